/* Declarations, step two: brace context for the C family.  A stack of
 * brace levels knows whether it is at file or namespace level, in a
 * class/struct body, an enum body, an initializer or a code block; within
 * a level, the current statement starts after the last ';', '{' or '}'.
 *   C/C++   functions and prototypes (name '(' ... ')' then a body, ';',
 *           a qualifier, ...) at file/namespace level and in class bodies;
 *           file-level variables; typedef names; enumerators
 *   Java    methods and constructors in class bodies; static fields
 *   JS/TS   methods in class bodies
 *   Go      names in grouped type/const/var declarations */
#include "cs_decl.h"
#include "cs_types.h"

#include <string.h>

enum { K_FILE, K_NS, K_CLASS, K_ENUM, K_BLOCK, K_INIT };
#define MAX_LEVELS 256

typedef struct level {
    int kind;
    size_t st;  /* statement start of the enclosing level */
    int pdepth; /* its paren depth */
    int cont;   /* the statement goes on after the closing brace */
} level;

typedef struct ctx {
    int lang; /* 'c' C/C++, 'j' Java, 's' JS/TS, 'n' C#, 'd' Dart, 'o' Solidity */
    const char *sh;
    size_t n;
    cs_toks *t;
    const char *buf;
} ctx;

static int in(char c, const char *set) { return c && strchr(set, c) != NULL; }

/* Index after the ')' matching the '(' at k (n when unbalanced). */
static size_t after_paren(const ctx *c, size_t k)
{
    int d = 0;
    for (size_t j = k; j < c->n; j++) {
        if (c->sh[j] == '(')
            d++;
        else if (c->sh[j] == ')' && --d == 0)
            return j + 1;
        else if (c->sh[j] == '{' || c->sh[j] == '}' || c->sh[j] == ';')
            return c->n; /* not a parameter list */
    }
    return c->n;
}

/* Has the statement [st, k) a token from `set` at paren depth 0? */
static int stmt_has(const ctx *c, size_t st, size_t k, const char *set)
{
    int d = 0;
    for (size_t j = st; j < k; j++) {
        char s = c->sh[j];
        if (s == '(' || s == '[')
            d++;
        else if ((s == ')' || s == ']') && d > 0)
            d--;
        else if (d == 0 && in(s, set))
            return 1;
    }
    return 0;
}

static int declarator_in(const ctx *c, size_t from, size_t k);

static int classify_brace(const ctx *c, size_t st, size_t k, int *cont)
{
    const char *sh = c->sh;
    char prev = k > 0 ? sh[k - 1] : 0;
    char prev2 = k > 1 ? sh[k - 2] : 0;
    *cont = 1;
    if (c->lang == 's' && prev == '>' && prev2 == '=') { /* arrow body */
        *cont = 0;
        return K_BLOCK;
    }
    if (in(prev, "=,(r[?") || (c->lang == 's' && prev == ':'))
        return K_INIT;
    if (c->lang == 'c') {
        if (stmt_has(c, st, k, "M") || (stmt_has(c, st, k, "x") && prev == '"')) {
            *cont = 0;
            return K_NS;
        }
        /* struct/union/enum at paren depth 0 only: one in a parameter
         * list (f(struct msg *m) {) leaves the brace a function body */
        int d = 0;
        for (size_t j = st; j < k; j++) {
            if (sh[j] == '(' || sh[j] == '[')
                d++;
            else if ((sh[j] == ')' || sh[j] == ']') && d > 0)
                d--;
            else if (d == 0 && in(sh[j], "SUE")) {
                if (declarator_in(c, j, k))
                    break;
                return sh[j] == 'E' ? K_ENUM : K_CLASS;
            }
        }
    } else if (c->lang == 'j') {
        if (stmt_has(c, st, k, "SIER") || (stmt_has(c, st, k, "n") && prev == ')'))
            return K_CLASS;
    } else if (c->lang == 'n' || c->lang == 'd' || c->lang == 'o') {
        /* C#, Dart, Solidity: type bodies; enum bodies list members */
        *cont = 0; /* a type body ends its declaration */
        for (size_t j = k; j-- > st;)
            if (in(sh[j], "SIERM"))
                return sh[j] == 'E' ? K_ENUM : sh[j] == 'M' ? K_NS : K_CLASS;
    } else if (stmt_has(c, st, k, "SI")) {
        return K_CLASS;
    }
    *cont = 0;
    return K_BLOCK;
}

/* A ')' at k closing a macro-wrapped return type or attribute, as in
 * PyAPI_FUNC(PyObject *) name(...) or int __attribute__((x)) name(...). */
static int macro_type(const ctx *c, size_t st, size_t k)
{
    int d = 0;
    for (size_t j = k + 1; j-- > st;) {
        if (c->sh[j] == ')')
            d++;
        else if (c->sh[j] == '(' && --d == 0)
            return j > st && c->sh[j - 1] == 'i' && (j - 1 == st || in(c->sh[j - 2], "ik*&x"));
    }
    return 0;
}

/* Is the identifier token at j __attribute__ or __declspec? */
static int attribute_word(const ctx *c, size_t j)
{
    const cs_tok *id = &c->t->v[j];
    const char *w = c->buf + id->start;
    size_t n = id->end - id->start;
    return (n >= 13 && memcmp(w, "__attribute", 11) == 0) ||
           (n >= 10 && memcmp(w, "__declspec", 10) == 0);
}

/* Does [st, name) already hold a declarator's parameter list, as in
 * int f(int) __THROW __nonnull((1))?  Then name( is an attribute macro.
 * Groups opened by __attribute__ or __declspec do not count. */
static int after_declarator(const ctx *c, size_t st, size_t name)
{
    int d = 0;
    for (size_t j = st; j < name; j++) {
        char s = c->sh[j];
        if (s == '(' && d++ == 0 && j > st && c->sh[j - 1] == 'i') {
            if (!attribute_word(c, j - 1))
                return 1;
        } else if (s == ')' && d > 0) {
            d--;
        }
    }
    return 0;
}

/* A parameter list at paren depth 0 in [from, k): `name(` whose name is no
 * attribute.  After struct/union/enum it makes the brace a function body
 * (enum op get_op(__u32 v) {), where struct S __attribute__((packed)) {
 * stays a type body. */
static int declarator_in(const ctx *c, size_t from, size_t k)
{
    int d = 0;
    for (size_t j = from; j < k; j++) {
        char s = c->sh[j];
        if ((s == '(' || s == '[') && d++ == 0 && s == '(' && j > from && c->sh[j - 1] == 'i' &&
            !attribute_word(c, j - 1))
            return 1;
        else if ((s == ')' || s == ']') && d > 0)
            d--;
    }
    return 0;
}

/* name '(' at k: a function or method declaration? */
static void try_function(const ctx *c, int kind, size_t st, size_t k, int in_init)
{
    const char *sh = c->sh;
    size_t name = k - 1;
    char prev = name > st ? sh[name - 1] : 0;
    char prev2 = name > st + 1 ? sh[name - 2] : 0;
    if (in_init || in(prev, ".n") || (prev == '>' && prev2 == '-'))
        return;
    size_t a = after_paren(c, k);
    char next = a < c->n ? sh[a] : 0;
    int ok = 0;
    if (c->lang == 'c') {
        if (kind != K_FILE && kind != K_NS && kind != K_CLASS)
            return;
        if (!in(next, "{;:ki=-r"))
            return;
        ok = (in(prev, "ik*&>:~") && !after_declarator(c, st, name)) ||
             (prev == ')' && macro_type(c, st, name - 1)) ||
             (kind == K_CLASS && prev == 0 && in(next, "{:"));
    } else if (c->lang == 'j') {
        ok = kind == K_CLASS && in(prev, "ikK>]") && in(next, "{;tk");
    } else if (c->lang == 'n') {
        ok = kind == K_CLASS && in(prev, "ikK>]?") && in(next, "{;t=k:");
    } else if (c->lang == 'd') {
        ok = (kind == K_CLASS || kind == K_FILE) && in(next, "{;=ik:") &&
             (in(prev, "ik>]?") || (prev == 0 && kind == K_CLASS));
    } else if (c->lang == 'o') {
        ok = 0; /* functions are keyword-led (function, modifier, event) */
    } else {
        ok = kind == K_CLASS && (prev == 0 || in(prev, "{};i*#")) && in(next, "{:;");
    }
    if (ok)
        c->t->v[name].def = 1;
}

/* NAME(...) alone on its line(s) at file level, ended by a line break
 * without ';', as in a header's NILFS_FNS(DIRTY, dirty) lines: a macro
 * that expands to whole definitions, so the statement ends there (else
 * the definition after it reads as its continuation).  A K&R or macro-
 * named function body ({ next) and a declaration (; next) go on. */
static int macro_statement(const ctx *c, int kind, size_t st, size_t open, size_t k)
{
    if (c->lang != 'c' || (kind != K_FILE && kind != K_NS) || open != st + 1 || c->sh[st] != 'i' ||
        c->sh[open] != '(' || k + 1 >= c->n || in(c->sh[k + 1], "{;:,=()[]"))
        return 0;
    const cs_tok *a = &c->t->v[k], *b = &c->t->v[k + 1];
    if (b->start <= a->end || !memchr(c->buf + a->end, '\n', b->start - a->end))
        return 0;
    /* YAML_DECLARE(const char *) then a name on the next line is a
     * macro-wrapped return type: one argument, a name next */
    int d = 0, comma = 0;
    for (size_t j = open; j < k; j++)
        if (c->sh[j] == '(' || c->sh[j] == '[')
            d++;
        else if (c->sh[j] == ')' || c->sh[j] == ']')
            d--;
        else if (d == 1 && c->sh[j] == ',')
            comma = 1;
    return comma || c->sh[k + 1] != 'i';
}

/* A typedef statement [st, k) ending at ';' k: mark the new names. */
static void typedef_names(const ctx *c, size_t st, size_t k)
{
    const char *sh = c->sh;
    int bd = 0, pd = 0;
    for (size_t j = st; j < k; j++) {
        char s = sh[j];
        if (s == '{')
            bd++;
        else if (s == '}')
            bd--;
        else if (s == '(')
            pd++;
        else if (s == ')')
            pd--;
        else if (s == 'i' && bd == 0) {
            char nx = sh[j + 1];
            if ((pd == 0 && in(nx, ",;[")) || (pd == 1 && j > 0 && sh[j - 1] == '*' && nx == ')'))
                c->t->v[j].def = 1;
        }
    }
}

static void go_groups(const ctx *c, const int *depth)
{
    const char *sh = c->sh;
    for (size_t k = 0; k + 1 < c->n; k++) {
        if (!in(sh[k], "YCV") || sh[k + 1] != '(')
            continue;
        if (sh[k] != 'Y' && depth[k] != 0)
            continue;
        int d = 0;
        for (size_t j = k + 1; j < c->n; j++) {
            if (sh[j] == '(' || sh[j] == '{' || sh[j] == '[')
                d++;
            else if ((sh[j] == ')' || sh[j] == '}' || sh[j] == ']') && --d == 0)
                break;
            else if (d == 1 && sh[j] == 'i' && in(sh[j - 1], "(;"))
                c->t->v[j].def = 1;
        }
    }
}

/* HCL: a block's last label ("name" in resource "type" "name" { }) is its
 * name: the string token shrinks to the label's text and becomes a
 * definition.  Attributes of a locals block are definitions too. */
static void hcl_blocks(const ctx *c, const char *buf, const int *depth)
{
    const char *sh = c->sh;
    cs_toks *t = c->t;
    for (size_t k = 0; k + 1 < c->n; k++) {
        if (sh[k] == '"' && sh[k + 1] == '{' && k > 0 && in(sh[k - 1], "i\"")) {
            size_t j = k;
            while (j > 0 && sh[j - 1] == '"')
                j--;
            cs_tok *tk = &t->v[k];
            if (j > 0 && sh[j - 1] == 'i' && tk->end - tk->start >= 3 && buf[tk->start] == '"' &&
                buf[tk->end - 1] == '"') {
                tk->start++;
                tk->end--;
                tk->kind = 'i';
                tk->def = 1;
            }
        } else if (sh[k] == 'G' && sh[k + 1] == '{') {
            int d = depth[k + 1] + 1;
            for (size_t j = k + 2; j + 1 < c->n && depth[j] >= d; j++)
                if (depth[j] == d && sh[j] == 'i' && sh[j + 1] == '=' &&
                    (sh[j - 1] == '{' || t->v[j - 1].end <= t->v[j].start) &&
                    in(sh[j - 1], "{}\"0i)],") && (j + 2 >= c->n || sh[j + 2] != '=')) {
                    /* first token on its line: the previous token ends
                     * before a newline */
                    const char *nl =
                        memchr(buf + t->v[j - 1].end, '\n', t->v[j].start - t->v[j - 1].end);
                    if (nl || sh[j - 1] == '{')
                        t->v[j].def = 1;
                }
        }
    }
}

/* The brace walk's state: the levels, and the statement being read. */
typedef struct walk {
    level stack[MAX_LEVELS];
    int sp;
    size_t st;    /* where the current statement starts */
    size_t popen; /* the last '(' or '[' opened at paren depth 0 */
    int pd, in_init, decl_seen;
} walk;

static void walk_new_statement(walk *w, size_t st)
{
    w->st = st;
    w->pd = w->in_init = w->decl_seen = 0;
}

static void walk_open_brace(const ctx *c, walk *w, size_t k)
{
    const char *shape = c->sh;
    /* C# property: Type Name { get; set; } */
    if (c->lang == 'n' && w->stack[w->sp].kind == K_CLASS && w->pd == 0 && !w->in_init &&
        k >= w->st + 2 && shape[k - 1] == 'i' && in(shape[k - 2], "ikK>]?") &&
        !stmt_has(c, w->st, k - 1, "SIERMn=("))
        c->t->v[k - 1].def = 1;
    int cont;
    int nk = classify_brace(c, w->st, k, &cont);
    if (w->sp + 1 < MAX_LEVELS)
        w->stack[++w->sp] = (level){nk, w->st, w->pd, cont};
    walk_new_statement(w, k + 1);
}

static void walk_close_brace(walk *w, size_t k)
{
    if (w->sp > 0) {
        level l = w->stack[w->sp--];
        if (l.cont) {
            w->st = l.st;
            w->pd = l.pdepth;
            return;
        }
    }
    walk_new_statement(w, k + 1);
}

/* An identifier at k: a variable, field, enumerator or function pointer
 * being declared? */
static void walk_ident(const ctx *c, walk *w, size_t k)
{
    const char *shape = c->sh;
    int kind = w->stack[w->sp].kind;
    size_t st = w->st;
    cs_toks *t = c->t;
    /* int (*handler)(int) = ...: a function pointer variable */
    if (c->lang == 'c' && w->pd == 1 && !w->in_init && (kind == K_FILE || kind == K_NS) && k >= 2 &&
        shape[k - 1] == '*' && shape[k - 2] == '(' && k + 2 < c->n && shape[k + 1] == ')' &&
        in(shape[k + 2], "([") && shape[st] != 't' && k - 2 > st && in(shape[k - 3], "ik*&")) {
        t->v[k].def = 1;
        return;
    }
    if (w->pd != 0 || w->in_init || k + 1 >= c->n)
        return;
    char prev = k > st ? shape[k - 1] : 0;
    char next = shape[k + 1];
    if (kind == K_ENUM && c->lang == 'c') {
        if (prev == 0 || prev == ',')
            t->v[k].def = 1;
    } else if (c->lang == 'c' && (kind == K_FILE || kind == K_NS)) {
        if (in(next, "=;,[") && !in(shape[st], "tuTr") && !stmt_has(c, st, k, "(") &&
            (in(prev, "ik*&>") || (prev == ',' && w->decl_seen))) {
            t->v[k].def = 1;
            w->decl_seen = 1;
        }
    } else if (c->lang == 'j' && kind == K_CLASS) {
        if (in(next, "=;,") && in(prev, "ikK>]") && stmt_has(c, st, k, "K"))
            t->v[k].def = 1;
    } else if (kind == K_ENUM && in(c->lang, "ndo")) {
        if ((prev == 0 || prev == ',') && in(next, ",;}=("))
            t->v[k].def = 1;
    } else if (in(c->lang, "ndo") && (kind == K_CLASS || (c->lang == 'd' && kind == K_FILE)) &&
               !in(shape[st], "rnuFx")) {
        /* fields and state variables: Type name; Type name = ... */
        if (in(next, "=;,") && in(prev, "ikK>]?)"))
            t->v[k].def = 1;
    }
}

void cs_decl_structural(int lexer, const char *buf, const char *shape, const int *depth, cs_toks *t)
{
    ctx c = {0, shape, t->n, t, buf};
    switch (lexer) {
    case CS_LEX_C:
    case CS_LEX_CPP: c.lang = 'c'; break;
    case CS_LEX_JAVA: c.lang = 'j'; break;
    case CS_LEX_CSHARP: c.lang = 'n'; break;
    case CS_LEX_DART: c.lang = 'd'; break;
    case CS_LEX_SOLIDITY: c.lang = 'o'; break;
    case CS_LEX_HCL: hcl_blocks(&c, buf, depth); return;
    case CS_LEX_JS:
    case CS_LEX_JSX:
    case CS_LEX_TS:
    case CS_LEX_TSX: c.lang = 's'; break;
    case CS_LEX_GO: go_groups(&c, depth); return;
    default: return;
    }
    walk w = {.stack = {{K_FILE, 0, 0, 0}}};
    for (size_t k = 0; k < c.n; k++) {
        switch (shape[k]) {
        case 'P': /* a preprocessor line is its own statement */
            while (k < c.n && shape[k] != 'Q')
                k++;
            walk_new_statement(&w, k + 1);
            break;
        case ';':
            if (c.lang == 'c' && w.pd == 0 && w.st < k && shape[w.st] == 't')
                typedef_names(&c, w.st, k);
            walk_new_statement(&w, k + 1);
            break;
        case '{': walk_open_brace(&c, &w, k); break;
        case '}': walk_close_brace(&w, k); break;
        case '(':
        case '[':
            if (shape[k] == '(' && k > w.st && shape[k - 1] == 'i' && w.pd == 0)
                try_function(&c, w.stack[w.sp].kind, w.st, k, w.in_init);
            if (w.pd == 0)
                w.popen = k;
            w.pd++;
            break;
        case ')':
        case ']':
            if (w.pd > 0 && --w.pd == 0 &&
                macro_statement(&c, w.stack[w.sp].kind, w.st, w.popen, k)) {
                w.st = k + 1;
                w.in_init = w.decl_seen = 0;
            }
            break;
        case '=':
            if (w.pd == 0)
                w.in_init = 1;
            break;
        case ',':
            if (w.pd == 0)
                w.in_init = 0;
            break;
        case 'i': walk_ident(&c, &w, k); break;
        default: break;
        }
    }
}

static int word_in(const char *buf, const cs_tok *tk, const char *const *words)
{
    size_t n = tk->end - tk->start;
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(buf + tk->start, *words, n) == 0)
            return 1;
    return 0;
}

/* Is token k inside a '(' or '[' opened in its own statement?  Then the
 * walk's paren depth there is at least 1 and no enumerator rule applies
 * (f(int a, size_t b)).  Scans back to the nearest unmatched opener; a
 * statement boundary (';', a brace, a directive's end) or a long way
 * back answers no. */
static int in_parens(const cs_toks *t, size_t k)
{
    int d = 0;
    for (size_t j = k, steps = 0; j-- > 0 && steps < 512; steps++) {
        char c = t->v[j].kind;
        if (c == ')' || c == ']')
            d++;
        else if ((c == '(' || c == '[') && d-- == 0)
            return 1;
        else if (in(c, ";{}Q"))
            return 0;
    }
    return 0;
}

/* cs_parens_hold on tokens: the brackets between the start of token k's
 * statement and k; 0 when a '}' (the statement may go on from before its
 * block), a directive or a long way lies between. */
static int parens_hold(const cs_toks *t, size_t k)
{
    char rev[256];
    size_t n = 0;
    for (size_t j = k, steps = 0; j-- > 0; steps++) {
        char c = t->v[j].kind;
        if (c == ';' || c == '{' || c == 'Q')
            break;
        if (c == '}' || c == 'P' || steps >= 4096)
            return 0;
        if (in(c, "()[]")) {
            if (n == sizeof rev)
                return 0;
            rev[n++] = c;
        }
    }
    return cs_parens_hold(rev, n);
}

/* Mirrors the C/C++ rules: a name is marked only
 *   after define or namespace (Pd(i), M(i)), whatever follows;
 *   before '<', '{' or ':' (a type's name), or a name after struct, class,
 *   union, enum, ')' or ']' (struct S final {, attributes between);
 *   before '(' after an identifier, '*', '&', '>', ':', '~' or ')' or at a
 *   statement start (functions), before '=' after an identifier (using),
 *   before '=', ';', ',', '[' outside brackets (variables, typedefs), or
 *   ')' after '*' (function pointers: (*name));
 *   in an enum body at a statement start or after ',' (enumerators),
 *   whatever follows; a statement starts after ';', '{', '}', ')' or a
 *   directive.
 * Anything else (Type name, Type *p, (Type)x, f(int a, Type b)) is a
 * usage.  cs_decl_raw.c reads the same rules from the bytes before
 * lexing: a rule added to the marking goes into both (test_decl_filter
 * fails otherwise). */
int cs_decl_clike_possible(const char *buf, size_t len, const cs_toks *t, size_t k, cs_raw_enum *re)
{
    static const char *const type_kw[] = {"struct", "class", "union", "enum", NULL};
    static const char *const lead_kw[] = {"define", "namespace", NULL};
    if (k == 0 || k + 1 >= t->n)
        return 1;
    char prev = t->v[k - 1].kind, next = t->v[k + 1].kind;
    if (in(next, "<{:") || (next == ')' && prev == '*') || (next == '=' && prev == 'i'))
        return 1;
    /* variables and typedef names: at paren depth 0 only (f(int, size_t)) */
    if (in(next, "=;,[") && !parens_hold(t, k))
        return 1;
    /* name '(' is a function only after a type-like token or at a
     * statement start (try_function); f(a, size_t(x)) is a usage */
    if (next == '(' && in(prev, "i*&>:~);{}Q"))
        return 1;
    if (next == 'i' && (in(prev, ")]") || (prev == 'i' && word_in(buf, &t->v[k - 1], type_kw))))
        return 1;
    if (prev == 'i' && word_in(buf, &t->v[k - 1], lead_kw))
        return 1;
    /* The enumerator rule last: only it follows the file's braces. */
    if (!in(prev, ";{})Q,") || in_parens(t, k))
        return 0;
    return cs_tok_enum_body(re, buf, len, t, k);
}
