/* Declarations, step one: every token becomes one character of a "shape"
 * string (its kind, or a letter for a keyword), and per-language PCRE2
 * patterns over the shape find keyword-led declarations; capture groups
 * land on the declared names.  Step two (cs_decl_clike.c) handles what
 * needs brace context: C/C++ functions, variables, typedefs, enumerators,
 * methods in Java/JS/TS class bodies, Go's grouped declarations.
 *
 * Shape letters (per language):  F function  S struct/class  U union
 * E enum  T trait/template  Y type alias  M module/namespace  C const/let
 * K static  V var  I interface  R macro_rules/record  t typedef/throws
 * u using  x extern/export  d define  n new  r control keyword
 * k other keyword (types, modifiers)  m mut  l local  o operator */
#include "cs_decl.h"
#include "cs_types.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define SHAPE_SLACK 32

typedef struct kw {
    const char *w;
    char c;
} kw;

static kw KW_CPP[] = {
    {"struct", 'S'},         {"class", 'S'},     {"union", 'U'},      {"enum", 'E'},
    {"typedef", 't'},        {"namespace", 'M'}, {"using", 'u'},      {"extern", 'x'},
    {"template", 'T'},       {"define", 'd'},    {"operator", 'o'},   {"new", 'n'},
    {"return", 'r'},         {"if", 'r'},        {"else", 'r'},       {"for", 'r'},
    {"while", 'r'},          {"do", 'r'},        {"switch", 'r'},     {"case", 'r'},
    {"goto", 'r'},           {"sizeof", 'r'},    {"alignof", 'r'},    {"decltype", 'r'},
    {"throw", 'r'},          {"delete", 'r'},    {"co_return", 'r'},  {"co_yield", 'r'},
    {"co_await", 'r'},       {"catch", 'r'},     {"try", 'r'},        {"static_assert", 'r'},
    {"_Static_assert", 'r'}, {"default", 'r'},   {"break", 'r'},      {"continue", 'r'},
    {"typeid", 'r'},         {"_Generic", 'r'},  {"void", 'k'},       {"char", 'k'},
    {"short", 'k'},          {"int", 'k'},       {"long", 'k'},       {"float", 'k'},
    {"double", 'k'},         {"signed", 'k'},    {"unsigned", 'k'},   {"bool", 'k'},
    {"_Bool", 'k'},          {"const", 'k'},     {"volatile", 'k'},   {"static", 'k'},
    {"inline", 'k'},         {"register", 'k'},  {"auto", 'k'},       {"restrict", 'k'},
    {"constexpr", 'k'},      {"consteval", 'k'}, {"constinit", 'k'},  {"virtual", 'k'},
    {"explicit", 'k'},       {"friend", 'k'},    {"mutable", 'k'},    {"typename", 'k'},
    {"public", 'k'},         {"private", 'k'},   {"protected", 'k'},  {"thread_local", 'k'},
    {"noexcept", 'k'},       {"wchar_t", 'k'},   {"char8_t", 'k'},    {"char16_t", 'k'},
    {"char32_t", 'k'},       {"__inline", 'k'},  {"__inline__", 'k'}, {"__restrict", 'k'},
    {"__extension__", 'k'},  {"_Noreturn", 'k'}, {"_Atomic", 'k'},    {"_Thread_local", 'k'},
    {"__const", 'k'},
};
static kw KW_RUST[] = {
    {"fn", 'F'},          {"struct", 'S'}, {"enum", 'E'},   {"trait", 'T'},  {"type", 'Y'},
    {"mod", 'M'},         {"union", 'U'},  {"const", 'C'},  {"static", 'K'}, {"mut", 'm'},
    {"macro_rules", 'R'}, {"let", 'r'},    {"return", 'r'}, {"if", 'r'},     {"else", 'r'},
    {"match", 'r'},       {"for", 'r'},    {"while", 'r'},  {"loop", 'r'},   {"in", 'r'},
    {"impl", 'k'},        {"pub", 'k'},    {"use", 'k'},    {"where", 'k'},  {"as", 'k'},
};
static kw KW_GO[] = {
    {"func", 'F'},   {"type", 'Y'},      {"const", 'C'}, {"var", 'V'},     {"return", 'r'},
    {"if", 'r'},     {"else", 'r'},      {"for", 'r'},   {"range", 'r'},   {"switch", 'r'},
    {"case", 'r'},   {"go", 'r'},        {"defer", 'r'}, {"package", 'k'}, {"import", 'k'},
    {"struct", 'k'}, {"interface", 'k'}, {"map", 'k'},   {"chan", 'k'},
};
static kw KW_PY[] = {
    {"def", 'F'},   {"class", 'S'},  {"and", 'k'},      {"as", 'k'},       {"assert", 'k'},
    {"async", 'k'}, {"await", 'k'},  {"break", 'k'},    {"continue", 'k'}, {"del", 'k'},
    {"elif", 'k'},  {"else", 'k'},   {"except", 'k'},   {"finally", 'k'},  {"for", 'k'},
    {"from", 'k'},  {"global", 'k'}, {"if", 'k'},       {"import", 'k'},   {"in", 'k'},
    {"is", 'k'},    {"lambda", 'k'}, {"nonlocal", 'k'}, {"not", 'k'},      {"or", 'k'},
    {"pass", 'k'},  {"raise", 'k'},  {"return", 'k'},   {"try", 'k'},      {"while", 'k'},
    {"with", 'k'},  {"yield", 'k'},  {"False", 'k'},    {"None", 'k'},     {"True", 'k'},
};
static kw KW_JS[] = {
    {"function", 'F'},  {"class", 'S'},   {"interface", 'I'}, {"type", 'Y'},       {"enum", 'E'},
    {"namespace", 'M'}, {"module", 'M'},  {"const", 'C'},     {"let", 'C'},        {"var", 'C'},
    {"new", 'n'},       {"return", 'r'},  {"typeof", 'r'},    {"instanceof", 'r'}, {"in", 'r'},
    {"of", 'r'},        {"void", 'r'},    {"delete", 'r'},    {"throw", 'r'},      {"case", 'r'},
    {"yield", 'r'},     {"await", 'r'},   {"else", 'r'},      {"if", 'r'},         {"for", 'r'},
    {"while", 'r'},     {"do", 'r'},      {"switch", 'r'},    {"catch", 'r'},      {"import", 'r'},
    {"export", 'k'},    {"default", 'k'}, {"extends", 'k'},   {"implements", 'k'},
};
static kw KW_JAVA[] = {
    {"class", 'S'},      {"interface", 'I'},    {"enum", 'E'},    {"record", 'R'},
    {"static", 'K'},     {"throws", 't'},       {"new", 'n'},     {"return", 'r'},
    {"if", 'r'},         {"else", 'r'},         {"for", 'r'},     {"while", 'r'},
    {"do", 'r'},         {"switch", 'r'},       {"case", 'r'},    {"throw", 'r'},
    {"try", 'r'},        {"catch", 'r'},        {"finally", 'r'}, {"public", 'k'},
    {"private", 'k'},    {"protected", 'k'},    {"final", 'k'},   {"abstract", 'k'},
    {"void", 'k'},       {"int", 'k'},          {"long", 'k'},    {"short", 'k'},
    {"byte", 'k'},       {"char", 'k'},         {"boolean", 'k'}, {"float", 'k'},
    {"double", 'k'},     {"synchronized", 'k'}, {"native", 'k'},  {"transient", 'k'},
    {"volatile", 'k'},   {"strictfp", 'k'},     {"default", 'k'}, {"extends", 'k'},
    {"implements", 'k'}, {"package", 'k'},      {"import", 'k'},
};
static kw KW_SH[] = {
    {"function", 'F'}, {"export", 'x'},  {"readonly", 'x'},
    {"declare", 'x'},  {"typeset", 'x'}, {"local", 'l'},
};

/* ---- the table-driven languages ---- */
#define CTRL(w)                                                                                    \
    {                                                                                              \
        w, 'r'                                                                                     \
    }
#define MOD(w)                                                                                     \
    {                                                                                              \
        w, 'k'                                                                                     \
    }
static kw KW_CSHARP[] = {
    {"class", 'S'},     {"struct", 'S'},   {"interface", 'I'}, {"enum", 'E'},   {"record", 'R'},
    {"namespace", 'M'}, {"delegate", 'F'}, {"static", 'K'},    {"const", 'K'},  {"new", 'n'},
    {"event", 'k'},     {"using", 'u'},    CTRL("return"),     CTRL("if"),      CTRL("else"),
    CTRL("for"),        CTRL("foreach"),   CTRL("while"),      CTRL("do"),      CTRL("switch"),
    CTRL("case"),       CTRL("throw"),     CTRL("try"),        CTRL("catch"),   CTRL("finally"),
    CTRL("in"),         CTRL("is"),        CTRL("as"),         CTRL("await"),   CTRL("typeof"),
    CTRL("nameof"),     CTRL("sizeof"),    CTRL("lock"),       CTRL("yield"),   CTRL("get"),
    CTRL("set"),        CTRL("init"),      CTRL("value"),      CTRL("base"),    CTRL("this"),
    MOD("public"),      MOD("private"),    MOD("protected"),   MOD("internal"), MOD("abstract"),
    MOD("sealed"),      MOD("virtual"),    MOD("override"),    MOD("readonly"), MOD("async"),
    MOD("partial"),     MOD("extern"),     MOD("unsafe"),      MOD("volatile"), MOD("void"),
    MOD("int"),         MOD("long"),       MOD("short"),       MOD("byte"),     MOD("char"),
    MOD("bool"),        MOD("float"),      MOD("double"),      MOD("decimal"),  MOD("string"),
    MOD("object"),      MOD("var"),        MOD("uint"),        MOD("ulong"),    MOD("ushort"),
    MOD("sbyte"),       MOD("dynamic"),    MOD("required"),    MOD("ref"),      MOD("out"),
    MOD("params"),      MOD("where"),
};
static kw KW_KOTLIN[] = {
    {"fun", 'F'},    {"class", 'S'},  {"interface", 'S'},   {"object", 'S'},    {"typealias", 'Y'},
    {"val", 'C'},    {"var", 'C'},    {"constructor", 'k'}, {"companion", 'k'}, CTRL("return"),
    CTRL("if"),      CTRL("else"),    CTRL("when"),         CTRL("for"),        CTRL("while"),
    CTRL("do"),      CTRL("in"),      CTRL("is"),           CTRL("as"),         CTRL("throw"),
    CTRL("try"),     CTRL("catch"),   CTRL("this"),         CTRL("super"),      MOD("package"),
    MOD("import"),   MOD("private"),  MOD("public"),        MOD("internal"),    MOD("protected"),
    MOD("open"),     MOD("abstract"), MOD("override"),      MOD("data"),        MOD("sealed"),
    MOD("enum"),     MOD("inline"),   MOD("suspend"),       MOD("const"),       MOD("lateinit"),
    MOD("operator"), MOD("infix"),    MOD("annotation"),    MOD("inner"),       MOD("value"),
};
static kw KW_SWIFT[] = {
    {"func", 'F'},      {"class", 'S'},     {"struct", 'S'}, {"enum", 'S'},      {"protocol", 'S'},
    {"actor", 'S'},     {"typealias", 'Y'}, {"let", 'C'},    {"var", 'C'},       {"case", 'c'},
    {"extension", 'x'}, {"init", 'k'},      CTRL("return"),  CTRL("if"),         CTRL("else"),
    CTRL("guard"),      CTRL("for"),        CTRL("while"),   CTRL("in"),         CTRL("switch"),
    CTRL("throw"),      CTRL("try"),        CTRL("catch"),   CTRL("is"),         CTRL("as"),
    CTRL("await"),      CTRL("self"),       CTRL("super"),   CTRL("repeat"),     CTRL("default"),
    MOD("import"),      MOD("public"),      MOD("private"),  MOD("fileprivate"), MOD("internal"),
    MOD("open"),        MOD("static"),      MOD("final"),    MOD("override"),    MOD("mutating"),
    MOD("lazy"),        MOD("weak"),        MOD("async"),    MOD("throws"),      MOD("indirect"),
    MOD("inout"),
};
static kw KW_SCALA[] = {
    {"def", 'F'},     {"class", 'S'},  {"object", 'S'}, {"trait", 'S'}, {"enum", 'S'},
    {"type", 'Y'},    {"val", 'C'},    {"var", 'C'},    {"given", 'k'}, {"new", 'n'},
    CTRL("return"),   CTRL("if"),      CTRL("else"),    CTRL("match"),  CTRL("case"),
    CTRL("for"),      CTRL("while"),   CTRL("yield"),   CTRL("throw"),  CTRL("try"),
    CTRL("catch"),    CTRL("then"),    CTRL("do"),      CTRL("this"),   CTRL("super"),
    MOD("package"),   MOD("import"),   MOD("extends"),  MOD("with"),    MOD("private"),
    MOD("protected"), MOD("override"), MOD("abstract"), MOD("final"),   MOD("sealed"),
    MOD("implicit"),  MOD("lazy"),     MOD("case"),     MOD("inline"),  MOD("opaque"),
};
static kw KW_DART[] = {
    {"class", 'S'}, {"mixin", 'S'},  {"enum", 'E'},    {"extension", 'S'}, {"typedef", 'Y'},
    {"var", 'C'},   {"final", 'C'},  {"const", 'C'},   {"new", 'n'},       {"static", 'K'},
    CTRL("return"), CTRL("if"),      CTRL("else"),     CTRL("for"),        CTRL("while"),
    CTRL("do"),     CTRL("switch"),  CTRL("case"),     CTRL("throw"),      CTRL("try"),
    CTRL("catch"),  CTRL("in"),      CTRL("is"),       CTRL("as"),         CTRL("await"),
    CTRL("yield"),  CTRL("assert"),  CTRL("this"),     CTRL("super"),      CTRL("get"),
    CTRL("set"),    MOD("import"),   MOD("export"),    MOD("library"),     MOD("part"),
    MOD("void"),    MOD("late"),     MOD("abstract"),  MOD("external"),    MOD("factory"),
    MOD("async"),   MOD("sealed"),   MOD("base"),      MOD("extends"),     MOD("implements"),
    MOD("with"),    MOD("required"), MOD("covariant"), MOD("operator"),    MOD("dynamic"),
};
static kw KW_ZIG[] = {
    {"fn", 'F'},      {"const", 'C'},  {"var", 'C'},       {"test", 'k'},
    CTRL("return"),   CTRL("if"),      CTRL("else"),       CTRL("while"),
    CTRL("for"),      CTRL("switch"),  CTRL("try"),        CTRL("catch"),
    CTRL("orelse"),   CTRL("defer"),   CTRL("errdefer"),   CTRL("break"),
    CTRL("continue"), MOD("pub"),      MOD("extern"),      MOD("export"),
    MOD("inline"),    MOD("comptime"), MOD("struct"),      MOD("enum"),
    MOD("union"),     MOD("error"),    MOD("threadlocal"), MOD("usingnamespace"),
};
static kw KW_PROTO[] = {
    {"message", 'S'}, {"enum", 'S'},   {"service", 'S'}, {"rpc", 'F'},      {"oneof", 'S'},
    {"extend", 'x'},  {"option", 'o'}, {"returns", 'r'}, {"reserved", 'r'}, MOD("syntax"),
    MOD("edition"),   MOD("package"),  MOD("import"),    MOD("repeated"),   MOD("optional"),
    MOD("required"),  MOD("map"),      MOD("stream"),
};
static kw KW_SOLIDITY[] = {
    {"contract", 'S'},    {"interface", 'S'}, {"library", 'S'},  {"struct", 'S'}, {"enum", 'E'},
    {"function", 'F'},    {"event", 'F'},     {"modifier", 'F'}, {"error", 'F'},  {"new", 'n'},
    {"constructor", 'F'}, {"type", 'Y'},      CTRL("return"),    CTRL("returns"), CTRL("if"),
    CTRL("else"),         CTRL("for"),        CTRL("while"),     CTRL("emit"),    CTRL("revert"),
    CTRL("require"),      CTRL("delete"),     CTRL("try"),       CTRL("catch"),   CTRL("using"),
    CTRL("import"),       CTRL("pragma"),     CTRL("assembly"),  MOD("public"),   MOD("private"),
    MOD("internal"),      MOD("external"),    MOD("view"),       MOD("pure"),     MOD("payable"),
    MOD("constant"),      MOD("immutable"),   MOD("override"),   MOD("virtual"),  MOD("abstract"),
    MOD("memory"),        MOD("storage"),     MOD("calldata"),   MOD("indexed"),  MOD("is"),
    MOD("mapping"),
};
static kw KW_PHP[] = {
    {"function", 'F'},    {"class", 'S'},   {"interface", 'S'},   {"trait", 'S'},
    {"enum", 'S'},        {"const", 'C'},   {"namespace", 'M'},   {"new", 'n'},
    {"fn", 'r'},          {"case", 'c'},    CTRL("return"),       CTRL("if"),
    CTRL("else"),         CTRL("elseif"),   CTRL("for"),          CTRL("foreach"),
    CTRL("while"),        CTRL("do"),       CTRL("switch"),       CTRL("throw"),
    CTRL("try"),          CTRL("catch"),    CTRL("finally"),      CTRL("echo"),
    CTRL("print"),        CTRL("use"),      CTRL("as"),           CTRL("instanceof"),
    CTRL("match"),        CTRL("yield"),    CTRL("global"),       CTRL("require"),
    CTRL("require_once"), CTRL("include"),  CTRL("include_once"), MOD("public"),
    MOD("private"),       MOD("protected"), MOD("static"),        MOD("abstract"),
    MOD("final"),         MOD("readonly"),  MOD("var"),           MOD("extends"),
    MOD("implements"),
};
static kw KW_RUBY[] = {
    {"def", 'F'},
    {"class", 'S'},
    {"module", 'S'},
    {"attr_accessor", 'A'},
    {"attr_reader", 'A'},
    {"attr_writer", 'A'},
    CTRL("end"),
    CTRL("do"),
    CTRL("if"),
    CTRL("unless"),
    CTRL("else"),
    CTRL("elsif"),
    CTRL("while"),
    CTRL("until"),
    CTRL("for"),
    CTRL("in"),
    CTRL("case"),
    CTRL("when"),
    CTRL("return"),
    CTRL("yield"),
    CTRL("begin"),
    CTRL("rescue"),
    CTRL("ensure"),
    CTRL("then"),
    CTRL("and"),
    CTRL("or"),
    CTRL("not"),
    CTRL("self"),
    CTRL("super"),
    MOD("require"),
    MOD("require_relative"),
    MOD("include"),
    MOD("extend"),
    MOD("private"),
    MOD("public"),
    MOD("protected"),
};
static kw KW_LUA[] = {
    {"function", 'F'}, {"local", 'l'}, CTRL("end"),    CTRL("do"),     CTRL("if"),
    CTRL("then"),      CTRL("else"),   CTRL("elseif"), CTRL("while"),  CTRL("for"),
    CTRL("in"),        CTRL("repeat"), CTRL("until"),  CTRL("return"), CTRL("and"),
    CTRL("or"),        CTRL("not"),    CTRL("goto"),   CTRL("break"),
};
static kw KW_ELIXIR[] = {
    {"defmodule", 'M'},   {"defprotocol", 'M'}, {"def", 'F'},      {"defp", 'F'},
    {"defmacro", 'F'},    {"defmacrop", 'F'},   {"defguard", 'F'}, {"defguardp", 'F'},
    {"defdelegate", 'F'}, CTRL("do"),           CTRL("end"),       CTRL("fn"),
    CTRL("if"),           CTRL("else"),         CTRL("unless"),    CTRL("case"),
    CTRL("cond"),         CTRL("with"),         CTRL("when"),      CTRL("in"),
    CTRL("and"),          CTRL("or"),           CTRL("not"),       CTRL("receive"),
    CTRL("try"),          CTRL("rescue"),       MOD("defstruct"),  MOD("defimpl"),
    MOD("defexception"),  MOD("alias"),         MOD("import"),     MOD("require"),
    MOD("use"),
};
static kw KW_HASKELL[] = {
    {"data", 'S'},     {"newtype", 'S'}, {"class", 'S'},   {"type", 'Y'},     {"module", 'M'},
    {"instance", 'x'}, {"family", 'k'},  CTRL("where"),    CTRL("let"),       CTRL("in"),
    CTRL("case"),      CTRL("of"),       CTRL("if"),       CTRL("then"),      CTRL("else"),
    CTRL("do"),        CTRL("import"),   CTRL("deriving"), CTRL("qualified"), CTRL("hiding"),
    CTRL("infixl"),    CTRL("infixr"),   CTRL("infix"),    CTRL("foreign"),   CTRL("pattern"),
};
static kw KW_NIX[] = {
    {"let", 'l'}, {"inherit", 'I'}, CTRL("in"),   CTRL("with"),   CTRL("rec"),
    CTRL("if"),   CTRL("then"),     CTRL("else"), CTRL("assert"), CTRL("or"),
};
static kw KW_SQL[] = {
    /* matched without case */
    {"create", 'C'},    {"table", 'T'},  {"view", 'T'},       {"function", 'T'},
    {"procedure", 'T'}, {"index", 'T'},  {"trigger", 'T'},    {"type", 'T'},
    {"sequence", 'T'},  {"schema", 'T'}, {"database", 'T'},   {"domain", 'T'},
    {"extension", 'T'}, MOD("or"),       MOD("replace"),      MOD("temp"),
    MOD("temporary"),   MOD("unique"),   MOD("materialized"), MOD("if"),
    MOD("not"),         MOD("exists"),   MOD("unlogged"),     MOD("global"),
    MOD("local"),       MOD("virtual"),  MOD("recursive"),    MOD("concurrently"),
};
static kw KW_HCL[] = {
    {"locals", 'G'},
};

/* toplevel: only names at brace depth 0.  every: group 1 spans a list
 * and each identifier in it is a name (a, b = ...). */
typedef struct pat {
    const char *re;
    int toplevel;
    int every;
    pcre2_code *code;
} pat;
#define PAT(re, top)                                                                               \
    {                                                                                              \
        re, top, 0, NULL                                                                           \
    }
#define PATN(re, top)                                                                              \
    {                                                                                              \
        re, top, 1, NULL                                                                           \
    }

static pat P_CPP[] = {
    PAT("Pd(i)", 0),
    PAT("[SUE]S?(?:\\[\\[[^\\]]*\\]\\]|i\\((?:[^()]|\\([^()]*\\))*\\))*(i)(?:<[^{};]*>)?i?[{:]", 0),
    PAT("M(i)", 0),
    PAT("u(i)=", 0),
};
static pat P_RUST[] = {
    PAT("[FSETYMU](i)", 0),
    PAT("C(i)", 0),
    PAT("Km?(i)", 0),
    PAT("R!(i)", 0),
};
static pat P_GO[] = {
    PAT("F(i)", 0),
    PAT("F\\((?:[^()]|\\([^()]*\\))*\\)(i)", 0),
    PAT("Y(i)", 0),
    PATN("[CV]((?:i,)*i)", 1),
};
static pat P_PY[] = {
    PAT("[FS](i)", 0),
    PAT("L(i)(?:=(?!=)|:)", 0),
    PATN("L((?:i,)+i)=(?!=)", 0),
};
static pat P_JS[] = {
    PAT("F\\*?(i)", 0),     PAT("[SIE](i)", 0),     PAT("Y(i)(?=[=<])", 0),
    PAT("M(i)(?=[.{])", 0), PAT("(?<!\\()C(i)", 1),
};
static pat P_JAVA[] = {
    PAT("[SIE](i)", 0),
    PAT("R(i)\\(", 0),
};
static pat P_SH[] = {
    PAT("F(i)", 0),
    PAT("(?<=^|[L;{}&|])(i)\\(\\)", 0),
    PAT("(i)=", 1),
};

static pat P_CSHARP[] = {
    PAT("[SIERM](?:i\\.)*(i)", 0),
    PAT("F[^;(]*?(i)(?:<[^;(]*>)?\\(", 0),
};
/* fun <T> Receiver<X>.name(  /  class/object/interface Name  /  val name */
static pat P_KOTLIN[] = {
    PAT("F(?:<[^(]*?>)?(?:i(?:<[^(]*?>)?\\??\\.)*(i)", 0),
    PAT("S(i)", 0),
    PAT("Y(i)", 0),
    PAT("C(?:<[^=]*?>)?(?:i\\.)?(i)", 0),
    PATN("C\\(((?:i(?::i)?,)*i)", 0),
};
static pat P_SWIFT[] = {
    PAT("F(i)", 0),
    PAT("S(i)", 0),
    PAT("Y(i)", 0),
    PAT("C(i)", 0),
    PATN("(?<=[{;}])c((?:i(?:\\([^()]*\\))?(?:=[^,;{}]*)?,)*i)", 0),
};
static pat P_SCALA[] = {
    PAT("F(i)", 0),
    PAT("S(i)", 0),
    PAT("Y(i)", 0),
    PAT("C(i)", 0),
};
static pat P_DART[] = {
    PAT("[SE](i)", 0),
    PAT("Y(?:i(?:<[^=;]*?>)?\\?{0,1})?(i)[=(<]", 0),
    PAT("C(?:i(?:<[^;={}]*>)?\\?{0,1})?(i)(?=[=;,])", 0),
};
static pat P_ZIG[] = {
    PAT("F(i)", 0),
    PAT("C(i)", 0),
};
static pat P_PROTO[] = {
    PAT("[SF](i)", 0),
    PAT("(?<![\\[,o])(i)=-?0", 0),
};
static pat P_SOLIDITY[] = {
    PAT("[SEF](i)", 0),
    PAT("Y(i)", 0),
};
static pat P_PHP[] = {
    PAT("F&?(i)", 0),
    PAT("S(i)", 0),
    PAT("M(?:i\\\\)*(i)", 0),
    PAT("C(?:i(?=i))?(i)=", 0),
    PAT("k[k?i|&]*\\$(i)(?=[;=,)])", 0),
    PAT("c(i)[;=]", 0),
};
static pat P_RUBY[] = {
    PAT("F(?:[iNr]\\.)?([iN])", 0),
    PAT("S(?:N::)*(N)", 0),
    PAT("L(N)=(?![=~>])", 0),
    PATN("A((?::i,)*:i)", 0),
};
static pat P_LUA[] = {
    PAT("F(?:i[.:])*(i)", 0),
    PATN("l((?:i(?:<i>)?,)*i)", 0),
    PAT("L(?:i\\.)*(i)=(?!=)", 0),
};
static pat P_ELIXIR[] = {
    PAT("M(?:i\\.)*(i)", 0),
    PAT("F(i)", 0),
};
static pat P_HASKELL[] = {
    PAT("L[SY](?:[^L=]*?=>)?(i)", 0),           PATN("L((?:i,)*i)::", 0),
    PAT("L(i)[^L:]*?(?<![=<>/!])=(?![=>])", 0), PAT("LS[^L=]*=(i)", 0),
    PATN("(?<=[{,])((?:i,)*i)::", 0),
};
static pat P_NIX[] = {
    PAT("(?<=[{;l])(?:i\\.)*(i)=(?!=)", 0),
};
static pat P_SQL[] = {
    PAT("Ck*T(?:k*)(?:i\\.)?(i)", 0),
};

#define KW_SLOTS 512 /* open-addressing table, well above every keyword count */

typedef struct lang_rules {
    kw *kws;
    size_t nkw;
    pat *pats;
    size_t npat;
    int nocase;           /* keywords match in any case (SQL) */
    short slot[KW_SLOTS]; /* index into kws + 1; 0 empty */
    /* Bit n of edge[0][c] (edge[1][c]): some keyword of n bytes starts
     * (ends) with the byte c.  Most identifiers fail one of the two and
     * are known not to be keywords without hashing them. */
    uint32_t edge[2][256];
} lang_rules;

/* Designated: the tables built at start-up (slot, edge) start zeroed. */
#define RULES(k, p)                                                                                \
    {                                                                                              \
        .kws = k, .nkw = sizeof k / sizeof k[0], .pats = p, .npat = sizeof p / sizeof p[0]         \
    }
#define RULES_NOCASE(k, p)                                                                         \
    {                                                                                              \
        .kws = k, .nkw = sizeof k / sizeof k[0], .pats = p, .npat = sizeof p / sizeof p[0],        \
        .nocase = 1                                                                                \
    }
#define KWONLY(k)                                                                                  \
    {                                                                                              \
        .kws = k, .nkw = sizeof k / sizeof k[0]                                                    \
    }
enum {
    R_CPP,
    R_RUST,
    R_GO,
    R_PY,
    R_JS,
    R_JAVA,
    R_SH,
    R_CSHARP,
    R_KOTLIN,
    R_SWIFT,
    R_SCALA,
    R_DART,
    R_ZIG,
    R_PROTO,
    R_SOLIDITY,
    R_PHP,
    R_RUBY,
    R_LUA,
    R_ELIXIR,
    R_HASKELL,
    R_NIX,
    R_SQL,
    R_HCL,
    R_COUNT
};
static lang_rules RULESET[R_COUNT] = {
    RULES(KW_CPP, P_CPP),
    RULES(KW_RUST, P_RUST),
    RULES(KW_GO, P_GO),
    RULES(KW_PY, P_PY),
    RULES(KW_JS, P_JS),
    RULES(KW_JAVA, P_JAVA),
    RULES(KW_SH, P_SH),
    RULES(KW_CSHARP, P_CSHARP),
    RULES(KW_KOTLIN, P_KOTLIN),
    RULES(KW_SWIFT, P_SWIFT),
    RULES(KW_SCALA, P_SCALA),
    RULES(KW_DART, P_DART),
    RULES(KW_ZIG, P_ZIG),
    RULES(KW_PROTO, P_PROTO),
    RULES(KW_SOLIDITY, P_SOLIDITY),
    RULES(KW_PHP, P_PHP),
    RULES(KW_RUBY, P_RUBY),
    RULES(KW_LUA, P_LUA),
    RULES(KW_ELIXIR, P_ELIXIR),
    RULES(KW_HASKELL, P_HASKELL),
    RULES(KW_NIX, P_NIX),
    RULES_NOCASE(KW_SQL, P_SQL),
    KWONLY(KW_HCL),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_failed;

static unsigned kw_hash(const char *s, size_t n, int nocase)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (nocase && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        h = (h ^ c) * 16777619u;
    }
    return h;
}

static void init_rules(void)
{
    for (int r = 0; r < R_COUNT; r++) {
        lang_rules *lr = &RULESET[r];
        for (size_t i = 0; i < lr->nkw; i++) {
            size_t n = strlen(lr->kws[i].w);
            unsigned h = kw_hash(lr->kws[i].w, n, lr->nocase) % KW_SLOTS;
            while (lr->slot[h])
                h = (h + 1) % KW_SLOTS;
            lr->slot[h] = (short)(i + 1);
            if (n > 0 && n < 32)
                for (int e = 0; e < 2; e++) {
                    unsigned char c = (unsigned char)lr->kws[i].w[e ? n - 1 : 0];
                    lr->edge[e][c] |= 1u << n;
                    if (lr->nocase && c >= 'a' && c <= 'z')
                        lr->edge[e][c - 32] |= 1u << n;
                    if (lr->nocase && c >= 'A' && c <= 'Z')
                        lr->edge[e][c + 32] |= 1u << n;
                }
        }
        for (size_t i = 0; i < RULESET[r].npat; i++) {
            pat *p = &RULESET[r].pats[i];
            int errc;
            PCRE2_SIZE off;
            p->code = pcre2_compile((PCRE2_SPTR)p->re, PCRE2_ZERO_TERMINATED, 0, &errc, &off, NULL);
            if (!p->code)
                init_failed = 1;
            else
                (void)pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
        }
    }
}

void cs_decl_release(void)
{
    for (int r = 0; r < R_COUNT; r++)
        for (size_t i = 0; i < RULESET[r].npat; i++) {
            pcre2_code_free(RULESET[r].pats[i].code);
            RULESET[r].pats[i].code = NULL;
        }
}

static int rules_of(int lexer)
{
    switch (lexer) {
    case CS_LEX_C:
    case CS_LEX_CPP: return R_CPP;
    case CS_LEX_RUST: return R_RUST;
    case CS_LEX_GO: return R_GO;
    case CS_LEX_PYTHON: return R_PY;
    case CS_LEX_JS:
    case CS_LEX_JSX:
    case CS_LEX_TS:
    case CS_LEX_TSX: return R_JS;
    case CS_LEX_JAVA: return R_JAVA;
    case CS_LEX_SHELL: return R_SH;
    case CS_LEX_CSHARP: return R_CSHARP;
    case CS_LEX_KOTLIN: return R_KOTLIN;
    case CS_LEX_SWIFT: return R_SWIFT;
    case CS_LEX_SCALA: return R_SCALA;
    case CS_LEX_DART: return R_DART;
    case CS_LEX_ZIG: return R_ZIG;
    case CS_LEX_PROTO: return R_PROTO;
    case CS_LEX_SOLIDITY: return R_SOLIDITY;
    case CS_LEX_PHP: return R_PHP;
    case CS_LEX_RUBY: return R_RUBY;
    case CS_LEX_LUA: return R_LUA;
    case CS_LEX_ELIXIR: return R_ELIXIR;
    case CS_LEX_HASKELL: return R_HASKELL;
    case CS_LEX_NIX: return R_NIX;
    case CS_LEX_SQL: return R_SQL;
    case CS_LEX_HCL: return R_HCL;
    default: return -1;
    }
}

static char keyword(const lang_rules *r, const char *s, size_t n)
{
    if (n == 0 || n >= 32 || !(r->edge[0][(unsigned char)s[0]] & (1u << n)) ||
        !(r->edge[1][(unsigned char)s[n - 1]] & (1u << n)))
        return 'i';
    for (unsigned h = kw_hash(s, n, r->nocase) % KW_SLOTS; r->slot[h]; h = (h + 1) % KW_SLOTS) {
        const kw *k = &r->kws[r->slot[h] - 1];
        if ((r->nocase ? strncasecmp(k->w, s, n) : strncmp(k->w, s, n)) == 0 && k->w[n] == '\0')
            return k->c;
    }
    return 'i';
}

int cs_decl_mark(int lexer, const char *buf, cs_toks *t)
{
    int ri = rules_of(lexer);
    if (ri < 0 || t->n == 0) {
        /* Data and markup: the lexer already knows the declared names. */
        for (size_t k = 0; k < t->n; k++)
            t->v[k].def = t->v[k].kind == 'D';
        return 0;
    }
    pthread_once(&once, init_rules);
    if (init_failed)
        return VT_ERR_INTERNAL;
    const lang_rules *r = &RULESET[ri];
    /* The shape string keeps SHAPE_SLACK zeroed bytes after its end:
     * PCRE2's JIT reads the subject in 16-byte blocks. */
    /* shape and depth share scap: both grow from it to the same size */
    size_t need = t->n + SHAPE_SLACK, shape_cap = t->scap, depth_cap = t->scap;
    if (VT_GROW(&t->shape, &shape_cap, need) != 0 || VT_GROW(&t->depth, &depth_cap, need) != 0)
        return VT_ERR_NOMEM;
    t->scap = shape_cap;
    if (!t->md && !(t->md = pcre2_match_data_create(8, NULL)))
        return VT_ERR_NOMEM;
    char *shape = t->shape;
    int *depth = t->depth;
    pcre2_match_data *md = t->md;
    int d = 0;
    for (size_t k = 0; k < t->n; k++) {
        cs_tok *tk = &t->v[k];
        tk->def = 0;
        char c = tk->kind;
        if (c == 'i' && tk->end - tk->start <= 16)
            c = keyword(r, buf + tk->start, tk->end - tk->start);
        else if (c == 'D')
            tk->def = 1;
        /* Ruby: a capitalised name is a constant (N), declared by '=' */
        if (c == 'i' && ri == R_RUBY && buf[tk->start] >= 'A' && buf[tk->start] <= 'Z')
            c = 'N';
        shape[k] = c;
        if (c == '}' && d > 0)
            d--;
        depth[k] = d;
        if (c == '{')
            d++;
    }
    memset(shape + t->n, 0, SHAPE_SLACK);
    for (size_t p = 0; p < r->npat; p++) {
        const pat *pt = &r->pats[p];
        size_t start = 0;
        while (start < t->n) {
            int m = pcre2_match(pt->code, (PCRE2_SPTR)shape, t->n, start, 0, md, NULL);
            if (m < 0)
                break;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            for (int g = 1; g < m; g++) {
                if (ov[2 * g] == PCRE2_UNSET)
                    continue;
                size_t end = pt->every ? ov[2 * g + 1] : ov[2 * g] + 1;
                for (size_t k = ov[2 * g]; k < end; k++)
                    if ((shape[k] == 'i' || shape[k] == 'N') && (!pt->toplevel || depth[k] == 0))
                        t->v[k].def = 1;
            }
            start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        }
    }
    cs_decl_structural(lexer, buf, shape, depth, t);
    return 0;
}
