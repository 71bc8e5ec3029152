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
#include <vthost/plugin.h>

#define SHAPE_SLACK 32

typedef struct kw { const char *w; char c; } kw;

static kw KW_CPP[] = {
    {"struct", 'S'}, {"class", 'S'}, {"union", 'U'}, {"enum", 'E'}, {"typedef", 't'},
    {"namespace", 'M'}, {"using", 'u'}, {"extern", 'x'}, {"template", 'T'},
    {"define", 'd'}, {"operator", 'o'}, {"new", 'n'},
    {"return", 'r'}, {"if", 'r'}, {"else", 'r'}, {"for", 'r'}, {"while", 'r'},
    {"do", 'r'}, {"switch", 'r'}, {"case", 'r'}, {"goto", 'r'}, {"sizeof", 'r'},
    {"alignof", 'r'}, {"decltype", 'r'}, {"throw", 'r'}, {"delete", 'r'},
    {"co_return", 'r'}, {"co_yield", 'r'}, {"co_await", 'r'}, {"catch", 'r'},
    {"try", 'r'}, {"static_assert", 'r'}, {"_Static_assert", 'r'}, {"default", 'r'},
    {"break", 'r'}, {"continue", 'r'}, {"typeid", 'r'}, {"_Generic", 'r'},
    {"void", 'k'}, {"char", 'k'}, {"short", 'k'}, {"int", 'k'}, {"long", 'k'},
    {"float", 'k'}, {"double", 'k'}, {"signed", 'k'}, {"unsigned", 'k'},
    {"bool", 'k'}, {"_Bool", 'k'}, {"const", 'k'}, {"volatile", 'k'},
    {"static", 'k'}, {"inline", 'k'}, {"register", 'k'}, {"auto", 'k'},
    {"restrict", 'k'}, {"constexpr", 'k'}, {"consteval", 'k'}, {"constinit", 'k'},
    {"virtual", 'k'}, {"explicit", 'k'}, {"friend", 'k'}, {"mutable", 'k'},
    {"typename", 'k'}, {"public", 'k'}, {"private", 'k'}, {"protected", 'k'},
    {"thread_local", 'k'}, {"noexcept", 'k'}, {"wchar_t", 'k'}, {"char8_t", 'k'},
    {"char16_t", 'k'}, {"char32_t", 'k'}, {"__inline", 'k'}, {"__inline__", 'k'},
    {"__restrict", 'k'}, {"__extension__", 'k'}, {"_Noreturn", 'k'},
    {"_Atomic", 'k'}, {"_Thread_local", 'k'}, {"__const", 'k'},
};
static kw KW_RUST[] = {
    {"fn", 'F'}, {"struct", 'S'}, {"enum", 'E'}, {"trait", 'T'}, {"type", 'Y'},
    {"mod", 'M'}, {"union", 'U'}, {"const", 'C'}, {"static", 'K'}, {"mut", 'm'},
    {"macro_rules", 'R'}, {"let", 'r'}, {"return", 'r'}, {"if", 'r'}, {"else", 'r'},
    {"match", 'r'}, {"for", 'r'}, {"while", 'r'}, {"loop", 'r'}, {"in", 'r'},
    {"impl", 'k'}, {"pub", 'k'}, {"use", 'k'}, {"where", 'k'}, {"as", 'k'},
};
static kw KW_GO[] = {
    {"func", 'F'}, {"type", 'Y'}, {"const", 'C'}, {"var", 'V'}, {"return", 'r'},
    {"if", 'r'}, {"else", 'r'}, {"for", 'r'}, {"range", 'r'}, {"switch", 'r'},
    {"case", 'r'}, {"go", 'r'}, {"defer", 'r'}, {"package", 'k'}, {"import", 'k'},
    {"struct", 'k'}, {"interface", 'k'}, {"map", 'k'}, {"chan", 'k'},
};
static kw KW_PY[] = {
    {"def", 'F'}, {"class", 'S'}, {"and", 'k'}, {"as", 'k'}, {"assert", 'k'},
    {"async", 'k'}, {"await", 'k'}, {"break", 'k'}, {"continue", 'k'}, {"del", 'k'},
    {"elif", 'k'}, {"else", 'k'}, {"except", 'k'}, {"finally", 'k'}, {"for", 'k'},
    {"from", 'k'}, {"global", 'k'}, {"if", 'k'}, {"import", 'k'}, {"in", 'k'},
    {"is", 'k'}, {"lambda", 'k'}, {"nonlocal", 'k'}, {"not", 'k'}, {"or", 'k'},
    {"pass", 'k'}, {"raise", 'k'}, {"return", 'k'}, {"try", 'k'}, {"while", 'k'},
    {"with", 'k'}, {"yield", 'k'}, {"False", 'k'}, {"None", 'k'}, {"True", 'k'},
};
static kw KW_JS[] = {
    {"function", 'F'}, {"class", 'S'}, {"interface", 'I'}, {"type", 'Y'},
    {"enum", 'E'}, {"namespace", 'M'}, {"module", 'M'}, {"const", 'C'},
    {"let", 'C'}, {"var", 'C'}, {"new", 'n'}, {"return", 'r'}, {"typeof", 'r'},
    {"instanceof", 'r'}, {"in", 'r'}, {"of", 'r'}, {"void", 'r'}, {"delete", 'r'},
    {"throw", 'r'}, {"case", 'r'}, {"yield", 'r'}, {"await", 'r'}, {"else", 'r'},
    {"if", 'r'}, {"for", 'r'}, {"while", 'r'}, {"do", 'r'}, {"switch", 'r'},
    {"catch", 'r'}, {"import", 'r'}, {"export", 'k'}, {"default", 'k'},
    {"extends", 'k'}, {"implements", 'k'},
};
static kw KW_JAVA[] = {
    {"class", 'S'}, {"interface", 'I'}, {"enum", 'E'}, {"record", 'R'},
    {"static", 'K'}, {"throws", 't'}, {"new", 'n'}, {"return", 'r'}, {"if", 'r'},
    {"else", 'r'}, {"for", 'r'}, {"while", 'r'}, {"do", 'r'}, {"switch", 'r'},
    {"case", 'r'}, {"throw", 'r'}, {"try", 'r'}, {"catch", 'r'}, {"finally", 'r'},
    {"public", 'k'}, {"private", 'k'}, {"protected", 'k'}, {"final", 'k'},
    {"abstract", 'k'}, {"void", 'k'}, {"int", 'k'}, {"long", 'k'}, {"short", 'k'},
    {"byte", 'k'}, {"char", 'k'}, {"boolean", 'k'}, {"float", 'k'}, {"double", 'k'},
    {"synchronized", 'k'}, {"native", 'k'}, {"transient", 'k'}, {"volatile", 'k'},
    {"strictfp", 'k'}, {"default", 'k'}, {"extends", 'k'}, {"implements", 'k'},
    {"package", 'k'}, {"import", 'k'},
};
static kw KW_SH[] = {
    {"function", 'F'}, {"export", 'x'}, {"readonly", 'x'}, {"declare", 'x'},
    {"typeset", 'x'}, {"local", 'l'},
};

/* toplevel: only names at brace depth 0.  every: group 1 spans a list
 * and each identifier in it is a name (a, b = ...). */
typedef struct pat { const char *re; int toplevel; int every; pcre2_code *code; } pat;
#define PAT(re, top) {re, top, 0, NULL}
#define PATN(re, top) {re, top, 1, NULL}

static pat P_CPP[] = {
    PAT("Pd(i)", 0),
    PAT("[SUE]S?(?:\\[\\[[^\\]]*\\]\\]|i\\((?:[^()]|\\([^()]*\\))*\\))*(i)(?:<[^{};]*>)?i?[{:]", 0),
    PAT("M(i)", 0),
    PAT("u(i)=", 0),
};
static pat P_RUST[] = {
    PAT("[FSETYMU](i)", 0), PAT("C(i)", 0), PAT("Km?(i)", 0), PAT("R!(i)", 0),
};
static pat P_GO[] = {
    PAT("F(i)", 0), PAT("F\\((?:[^()]|\\([^()]*\\))*\\)(i)", 0), PAT("Y(i)", 0),
    PATN("[CV]((?:i,)*i)", 1),
};
static pat P_PY[] = {
    PAT("[FS](i)", 0), PAT("L(i)(?:=(?!=)|:)", 0), PATN("L((?:i,)+i)=(?!=)", 0),
};
static pat P_JS[] = {
    PAT("F\\*?(i)", 0), PAT("[SIE](i)", 0), PAT("Y(i)(?=[=<])", 0),
    PAT("M(i)(?=[.{])", 0), PAT("(?<!\\()C(i)", 1),
};
static pat P_JAVA[] = {
    PAT("[SIE](i)", 0), PAT("R(i)\\(", 0),
};
static pat P_SH[] = {
    PAT("F(i)", 0), PAT("(?<=^|[L;{}&|])(i)\\(\\)", 0), PAT("(i)=", 1),
};

#define KW_SLOTS 512  /* open-addressing table, well above every keyword count */

typedef struct lang_rules {
    kw *kws;
    size_t nkw;
    pat *pats;
    size_t npat;
    short slot[KW_SLOTS];  /* index into kws + 1; 0 empty */
} lang_rules;

#define RULES(k, p) {k, sizeof k / sizeof k[0], p, sizeof p / sizeof p[0], {0}}
enum { R_CPP, R_RUST, R_GO, R_PY, R_JS, R_JAVA, R_SH, R_COUNT };
static lang_rules RULESET[R_COUNT] = {
    RULES(KW_CPP, P_CPP), RULES(KW_RUST, P_RUST), RULES(KW_GO, P_GO),
    RULES(KW_PY, P_PY), RULES(KW_JS, P_JS), RULES(KW_JAVA, P_JAVA),
    RULES(KW_SH, P_SH),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_failed;

static unsigned kw_hash(const char *s, size_t n)
{
    unsigned h = 2166136261u;  /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void init_rules(void)
{
    for (int r = 0; r < R_COUNT; r++) {
        lang_rules *lr = &RULESET[r];
        for (size_t i = 0; i < lr->nkw; i++) {
            unsigned h = kw_hash(lr->kws[i].w, strlen(lr->kws[i].w)) % KW_SLOTS;
            while (lr->slot[h])
                h = (h + 1) % KW_SLOTS;
            lr->slot[h] = (short)(i + 1);
        }
        for (size_t i = 0; i < RULESET[r].npat; i++) {
            pat *p = &RULESET[r].pats[i];
            int errc;
            PCRE2_SIZE off;
            p->code = pcre2_compile((PCRE2_SPTR)p->re, PCRE2_ZERO_TERMINATED, 0,
                                    &errc, &off, NULL);
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
    case CS_LEX_C: case CS_LEX_CPP: return R_CPP;
    case CS_LEX_RUST: return R_RUST;
    case CS_LEX_GO: return R_GO;
    case CS_LEX_PYTHON: return R_PY;
    case CS_LEX_JS: case CS_LEX_JSX: case CS_LEX_TS: case CS_LEX_TSX: return R_JS;
    case CS_LEX_JAVA: return R_JAVA;
    case CS_LEX_SHELL: return R_SH;
    default: return -1;
    }
}

static char keyword(const lang_rules *r, const char *s, size_t n)
{
    for (unsigned h = kw_hash(s, n) % KW_SLOTS; r->slot[h]; h = (h + 1) % KW_SLOTS) {
        const kw *k = &r->kws[r->slot[h] - 1];
        if (strncmp(k->w, s, n) == 0 && k->w[n] == '\0')
            return k->c;
    }
    return 'i';
}

int cs_decl_mark(int lexer, const char *buf, cs_toks *t)
{
    int ri = rules_of(lexer);
    if (ri < 0 || t->n == 0)
        return 0;
    pthread_once(&once, init_rules);
    if (init_failed)
        return VT_ERR_INTERNAL;
    const lang_rules *r = &RULESET[ri];
    /* The shape string keeps SHAPE_SLACK zeroed bytes after its end:
     * PCRE2's JIT reads the subject in 16-byte blocks. */
    if (t->n + SHAPE_SLACK > t->scap) {
        size_t nc = (t->n + SHAPE_SLACK) * 2;
        char *ns = realloc(t->shape, nc);
        if (ns)
            t->shape = ns;
        int *nd = realloc(t->depth, nc * sizeof *nd);
        if (nd)
            t->depth = nd;
        if (!ns || !nd)
            return VT_ERR_NOMEM;
        t->scap = nc;
    }
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
                    if (shape[k] == 'i' && (!pt->toplevel || depth[k] == 0))
                        t->v[k].def = 1;
            }
            start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        }
    }
    cs_decl_structural(lexer, shape, depth, t);
    return 0;
}
