/* Recognisers for data and markup files.  They emit 'D' tokens over the
 * names a file declares (JSON/YAML/TOML keys, Markdown headings and link
 * labels, CSS selectors' classes and ids, custom properties and SCSS
 * variables, Dockerfile stages, ARG and ENV names) and 'i' tokens over
 * references to them (CSS var(--x) and $x, Dockerfile $X and stage
 * names); everything else is text. */
#include "cs_lex.h"
#include "cs_types.h"

#include <string.h>
#include <strings.h>

static int sp(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

static size_t skip_sp(const char *b, size_t len, size_t i)
{
    while (i < len && sp((unsigned char)b[i]))
        i++;
    return i;
}

/* ---- JSON ---------------------------------------------------------- */

static void lex_json(const char *b, size_t len, cs_toks *t)
{
    size_t i = 0;
    while (i < len && !t->oom) {
        char c = b[i];
        if (c == '/' && i + 1 < len && b[i + 1] == '/') {
            i = cs_scan_eol(b, len, i);
        } else if (c == '/' && i + 1 < len && b[i + 1] == '*') {
            i = cs_scan_block_comment(b, len, i, 0);
        } else if (c == '"') {
            size_t e = cs_scan_quoted(b, len, i, '"', 0);
            size_t j = e;
            while (j < len && (sp((unsigned char)b[j]) || b[j] == '\n'))
                j++;
            if (j < len && b[j] == ':' && e - i >= 3 && b[e - 1] == '"')
                cs_tok_push(t, 'D', i + 1, e - 1);
            i = e > i ? e : i + 1;
        } else {
            i++;
        }
    }
}

/* ---- YAML ---------------------------------------------------------- */

static void lex_yaml(const char *b, size_t len, cs_toks *t)
{
    size_t i = 0;
    long block_indent = -1; /* inside a block scalar deeper than this */
    while (i < len && !t->oom) {
        size_t eol = cs_scan_eol(b, len, i);
        size_t s = skip_sp(b, eol, i);
        long indent = (long)(s - i);
        if (block_indent >= 0) {
            if (s == eol || indent > block_indent) {
                i = eol + 1;
                continue;
            }
            block_indent = -1;
        }
        /* sequence markers: "- - key: v" */
        while (s + 1 < eol && b[s] == '-' && (b[s + 1] == ' ' || b[s + 1] == '\t')) {
            s = skip_sp(b, eol, s + 1);
        }
        if (s < eol && b[s] != '#' &&
            !(b[s] == '-' && eol - s >= 3 && b[s + 1] == '-' && b[s + 2] == '-')) {
            size_t ks = s, ke, after;
            if (b[s] == '"' || b[s] == '\'') {
                size_t e = cs_scan_quoted(b, eol, s, b[s], 0);
                ks = s + 1;
                ke = e > ks ? e - 1 : ks;
                after = e;
            } else {
                size_t j = s;
                /* a plain key ends at ": " or ":" at the line end */
                while (j < eol && !(b[j] == ':' && (j + 1 == eol || sp((unsigned char)b[j + 1]))) &&
                       !(b[j] == ' ' && j + 1 < eol && b[j + 1] == '#'))
                    j++;
                ke = j;
                while (ke > ks && sp((unsigned char)b[ke - 1]))
                    ke--;
                after = j;
            }
            if (after < eol && b[after] == ':' && ke > ks && !strchr("[{&*!|>%@`", b[ks])) {
                cs_tok_push(t, 'D', ks, ke);
                size_t v = skip_sp(b, eol, after + 1);
                if (v < eol && (b[v] == '|' || b[v] == '>'))
                    block_indent = (long)(ks - i);
            }
        }
        i = eol + 1;
    }
}

/* ---- TOML ---------------------------------------------------------- */

/* Keys (bare or quoted, dotted) from i to the first `stop` character;
 * each becomes a 'D' token.  Returns the index of the stop character, or
 * 0 when the text is not a key. */
static size_t toml_keys(const char *b, size_t eol, size_t i, char stop, cs_toks *t)
{
    size_t marks = t->n;
    for (;;) {
        i = skip_sp(b, eol, i);
        size_t ks, ke;
        if (i < eol && (b[i] == '"' || b[i] == '\'')) {
            size_t e = cs_scan_quoted(b, eol, i, b[i], 0);
            ks = i + 1;
            ke = e > ks ? e - 1 : ks;
            i = e;
        } else {
            ks = i;
            while (i < eol && (cs_id_char((unsigned char)b[i]) || b[i] == '-'))
                i++;
            ke = i;
        }
        if (ke <= ks)
            break;
        cs_tok_push(t, 'D', ks, ke);
        i = skip_sp(b, eol, i);
        if (i < eol && b[i] == '.') {
            i++;
            continue;
        }
        if (i < eol && b[i] == stop)
            return i;
        break;
    }
    t->n = marks; /* not a key after all */
    return 0;
}

static void lex_toml(const char *b, size_t len, cs_toks *t)
{
    size_t i = 0;
    while (i < len && !t->oom) {
        size_t eol = cs_scan_eol(b, len, i);
        size_t s = skip_sp(b, eol, i);
        size_t next = eol + 1;
        if (s < eol && b[s] == '[') {
            size_t k = s + 1 + (s + 1 < eol && b[s + 1] == '[');
            toml_keys(b, eol, k, ']', t);
        } else if (s < eol && b[s] != '#') {
            size_t eq = toml_keys(b, eol, s, '=', t);
            if (eq) {
                size_t v = skip_sp(b, eol, eq + 1);
                /* a multi-line string value: its lines are not keys */
                if (v + 2 < len && (b[v] == '"' || b[v] == '\'') && b[v + 1] == b[v] &&
                    b[v + 2] == b[v]) {
                    char q[4] = {b[v], b[v], b[v], 0};
                    const char *e = v + 3 < len ? memmem(b + v + 3, len - v - 3, q, 3) : NULL;
                    size_t end = e ? (size_t)(e - b) + 3 : len;
                    next = cs_scan_eol(b, len, end) + 1;
                }
            }
        }
        i = next;
    }
}

/* ---- Markdown ------------------------------------------------------ */

static void lex_md(const char *b, size_t len, cs_toks *t)
{
    size_t i = 0;
    char fence = 0;
    size_t fence_n = 0;
    size_t prev_s = 0, prev_e = 0; /* the previous line's text, for setext */
    int prev_text = 0;
    if (len >= 4 && memcmp(b, "---\n", 4) == 0) { /* front matter */
        const char *e = memmem(b + 4, len - 4, "\n---", 4);
        if (e)
            i = cs_scan_eol(b, len, (size_t)(e - b) + 1) + 1;
    }
    while (i < len && !t->oom) {
        size_t eol = cs_scan_eol(b, len, i);
        size_t le = eol;
        if (le > i && b[le - 1] == '\r')
            le--;
        size_t s = skip_sp(b, le, i);
        int text = 0;
        if (s - i < 4 && s + 2 < le && (b[s] == '`' || b[s] == '~') && b[s + 1] == b[s] &&
            b[s + 2] == b[s]) {
            size_t n = 0;
            while (s + n < le && b[s + n] == b[s])
                n++;
            if (!fence) {
                fence = b[s];
                fence_n = n;
            } else if (b[s] == fence && n >= fence_n && skip_sp(b, le, s + n) == le) {
                fence = 0;
            }
        } else if (fence) {
            /* code block content: text */
        } else if (s - i < 4 && s < le && b[s] == '#') {
            size_t h = s;
            while (h < le && b[h] == '#')
                h++;
            if (h - s <= 6 && (h == le || sp((unsigned char)b[h]))) {
                size_t ts = skip_sp(b, le, h), te = le;
                while (te > ts && sp((unsigned char)b[te - 1]))
                    te--;
                size_t c = te;
                while (c > ts && b[c - 1] == '#')
                    c--;
                if (c < te && (c == ts || sp((unsigned char)b[c - 1]))) {
                    te = c;
                    while (te > ts && sp((unsigned char)b[te - 1]))
                        te--;
                }
                if (te > ts)
                    cs_tok_push(t, 'D', ts, te);
            }
        } else if (s - i < 4 && prev_text && s < le && (b[s] == '=' || b[s] == '-')) {
            size_t j = s;
            while (j < le && b[j] == b[s])
                j++;
            if (skip_sp(b, le, j) == le)
                cs_tok_push(t, 'D', prev_s, prev_e);
        } else if (s - i < 4 && s < le && b[s] == '[') {
            const char *close = memchr(b + s, ']', le - s);
            if (close && (size_t)(close - b) + 1 < le && close[1] == ':' && close > b + s + 1)
                cs_tok_push(t, 'D', s + 1, (size_t)(close - b));
            else
                text = 1;
        } else if (s < le) {
            text = 1;
        }
        if (text && s - i < 4 && !(s < le && strchr("-*+>|<", b[s]))) {
            size_t te = le;
            while (te > s && sp((unsigned char)b[te - 1]))
                te--;
            prev_s = s;
            prev_e = te;
            prev_text = 1;
        } else {
            prev_text = 0;
        }
        i = eol + 1;
    }
}

/* ---- CSS (and SCSS/Less) ------------------------------------------- */

static int css_id_start(unsigned char c) { return cs_id_start(c) || c == '-'; }

static size_t css_ident(const char *b, size_t len, size_t i)
{
    while (i < len && (cs_id_char((unsigned char)b[i]) || b[i] == '-'))
        i++;
    return i;
}

/* A prelude [s, e) ended by '{': classes and ids, @keyframes names,
 * SCSS mixins and placeholders are declared here. */
static void css_prelude(const char *b, size_t s, size_t e, cs_toks *t)
{
    s = skip_sp(b, e, s);
    while (s < e && (b[s] == '\n' || sp((unsigned char)b[s])))
        s++;
    if (s < e && b[s] == '@') {
        size_t k = css_ident(b, e, s + 1);
        size_t n = k - s - 1;
        int named = (n == 9 && memcmp(b + s + 1, "keyframes", 9) == 0) ||
                    (n == 5 && memcmp(b + s + 1, "mixin", 5) == 0) ||
                    (n == 8 && memcmp(b + s + 1, "function", 8) == 0) ||
                    (n > 10 && memcmp(b + k - 10, "-keyframes", 10) == 0);
        if (named) {
            size_t a = skip_sp(b, e, k);
            size_t z = css_ident(b, e, a);
            if (z > a)
                cs_tok_push(t, 'D', a, z);
        }
        return;
    }
    for (size_t i = s; i < e; i++) {
        char c = b[i];
        if (c == '"' || c == '\'') {
            i = cs_scan_quoted(b, e, i, c, 0) - 1;
        } else if ((c == '.' || c == '#' || c == '%') && i + 1 < e &&
                   css_id_start((unsigned char)b[i + 1]) && !(c == '#' && b[i + 1] == '{')) {
            size_t z = css_ident(b, e, i + 1);
            cs_tok_push(t, 'D', i + 1, z);
            i = z - 1;
        }
    }
}

/* A declaration or statement [s, e): --x: / $x: declare; var(--x), $x
 * and @include x use. */
static void css_decl(const char *b, size_t s, size_t e, cs_toks *t)
{
    while (s < e && (b[s] == '\n' || sp((unsigned char)b[s])))
        s++;
    size_t i = s;
    if (i + 2 < e && ((b[i] == '-' && b[i + 1] == '-') || b[i] == '$')) {
        size_t ns = b[i] == '$' ? i + 1 : i;
        size_t z = css_ident(b, e, ns);
        size_t c = skip_sp(b, e, z);
        if (z > ns && c < e && b[c] == ':') {
            cs_tok_push(t, 'D', ns, z);
            i = c + 1;
        }
    } else if (i < e && b[i] == '@' && e - i > 8 && memcmp(b + i, "@include", 8) == 0) {
        size_t a = skip_sp(b, e, i + 8);
        size_t z = css_ident(b, e, a);
        if (z > a)
            cs_tok_push(t, 'i', a, z);
        i = z;
    }
    for (; i < e; i++) {
        char c = b[i];
        if (c == '"' || c == '\'') {
            i = cs_scan_quoted(b, e, i, c, 0) - 1;
        } else if (c == '-' && i + 2 < e && b[i + 1] == '-' &&
                   (i == 0 || !cs_id_char((unsigned char)b[i - 1])) &&
                   css_id_start((unsigned char)b[i + 2])) {
            size_t z = css_ident(b, e, i);
            cs_tok_push(t, 'i', i, z);
            i = z - 1;
        } else if (c == '$' && i + 1 < e && css_id_start((unsigned char)b[i + 1])) {
            size_t z = css_ident(b, e, i + 1);
            cs_tok_push(t, 'i', i + 1, z);
            i = z - 1;
        }
    }
}

static void lex_css(const char *b, size_t len, cs_toks *t)
{
    size_t s = 0, i = 0;
    int paren = 0;
    while (i < len && !t->oom) {
        char c = b[i];
        if (c == '/' && i + 1 < len && b[i + 1] == '*') {
            if (s == i)
                s = cs_scan_block_comment(b, len, i, 0);
            i = cs_scan_block_comment(b, len, i, 0);
            if (s > i)
                s = i;
            continue;
        }
        if (c == '/' && i + 1 < len && b[i + 1] == '/' && (i == 0 || b[i - 1] != ':')) {
            size_t e = cs_scan_eol(b, len, i); /* SCSS line comment */
            if (s == i)
                s = e;
            i = e;
            continue;
        }
        if (c == '"' || c == '\'') {
            i = cs_scan_quoted(b, len, i, c, 0);
            continue;
        }
        if (c == '(')
            paren++;
        else if (c == ')' && paren > 0)
            paren--;
        else if (c == '#' && i + 1 < len && b[i + 1] == '{') { /* interpolation */
            const char *e = memchr(b + i, '}', len - i);
            i = e ? (size_t)(e - b) + 1 : len;
            continue;
        } else if (paren == 0 && c == '{') {
            css_prelude(b, s, i, t);
            s = i + 1;
        } else if (paren == 0 && (c == ';' || c == '}')) {
            css_decl(b, s, i, t);
            s = i + 1;
        }
        i++;
    }
    if (s < len)
        css_decl(b, s, len, t);
}

/* ---- Dockerfile ---------------------------------------------------- */

/* $NAME and ${NAME...} references in [i, e). */
static void docker_refs(const char *b, size_t i, size_t e, cs_toks *t)
{
    for (; i < e; i++) {
        if (b[i] != '$' || i + 1 >= e)
            continue;
        size_t s = i + 1 + (b[i + 1] == '{');
        if (s < e && cs_id_start((unsigned char)b[s])) {
            size_t z = cs_scan_ident(b, e, s);
            cs_tok_push(t, 'i', s, z);
            i = z - 1;
        }
    }
}

static int word_eq(const char *b, size_t s, size_t e, const char *w)
{
    return e - s == strlen(w) && strncasecmp(b + s, w, e - s) == 0;
}

static size_t word_end(const char *b, size_t e, size_t i)
{
    while (i < e && !sp((unsigned char)b[i]) && b[i] != '\n')
        i++;
    return i;
}

/* NAME[=value] / NAME value pairs of ARG and ENV. */
static void docker_names(const char *b, size_t i, size_t e, int env, cs_toks *t)
{
    for (;;) {
        while (i < e && (sp((unsigned char)b[i]) || b[i] == '\n' || b[i] == '\\'))
            i++;
        if (i >= e || !cs_id_start((unsigned char)b[i]))
            return;
        size_t z = cs_scan_ident(b, e, i);
        if (z < e && b[z] != '=' && !sp((unsigned char)b[z]) && b[z] != '\n' && b[z] != '\\')
            return;
        cs_tok_push(t, 'D', i, z);
        if (z >= e || b[z] != '=') {
            /* ENV NAME value (the rest is the value) / ARG NAME */
            docker_refs(b, z, e, t);
            return;
        }
        i = z + 1;
        if (i < e && (b[i] == '"' || b[i] == '\'')) {
            size_t q = cs_scan_quoted(b, e, i, b[i], 1);
            docker_refs(b, i, q, t);
            i = q;
        } else {
            size_t w = word_end(b, e, i);
            docker_refs(b, i, w, t);
            i = w;
        }
        if (!env)
            return;
    }
}

static void lex_dockerfile(const char *b, size_t len, cs_toks *t)
{
    size_t i = 0;
    while (i < len && !t->oom) {
        size_t s = skip_sp(b, len, i);
        /* one instruction: lines joined by a trailing backslash */
        size_t e = s;
        for (;;) {
            e = cs_scan_eol(b, len, e);
            size_t k = e;
            while (k > s && (b[k - 1] == '\r' || sp((unsigned char)b[k - 1])))
                k--;
            if (k > s && b[k - 1] == '\\' && e < len) {
                e++;
                continue;
            }
            break;
        }
        if (s < e && b[s] != '#') {
            size_t w = word_end(b, e, s);
            size_t a = skip_sp(b, e, w);
            if (word_eq(b, s, w, "FROM")) {
                while (a < e && b[a] == '-') { /* --platform=... */
                    a = skip_sp(b, e, word_end(b, e, a));
                }
                size_t iz = word_end(b, e, a);
                size_t k = a;
                while (k < iz && (cs_id_char((unsigned char)b[k]) || b[k] == '-'))
                    k++;
                if (k == iz && iz > a)
                    cs_tok_push(t, 'i', a, iz); /* an earlier stage */
                else
                    docker_refs(b, a, iz, t);
                size_t as = skip_sp(b, e, iz), az = word_end(b, e, as);
                if (word_eq(b, as, az, "AS")) {
                    size_t ns = skip_sp(b, e, az), nz = word_end(b, e, ns);
                    if (nz > ns)
                        cs_tok_push(t, 'D', ns, nz);
                }
            } else if (word_eq(b, s, w, "ARG")) {
                docker_names(b, a, e, 0, t);
            } else if (word_eq(b, s, w, "ENV")) {
                docker_names(b, a, e, 1, t);
            } else {
                /* COPY --from=stage among the leading flags */
                while ((word_eq(b, s, w, "COPY") || word_eq(b, s, w, "ADD")) && a + 2 < e &&
                       b[a] == '-' && b[a + 1] == '-') {
                    size_t z = word_end(b, e, a);
                    if (z - a > 7 && memcmp(b + a, "--from=", 7) == 0)
                        cs_tok_push(t, 'i', a + 7, z);
                    a = skip_sp(b, e, z);
                }
                docker_refs(b, a, e, t);
            }
        }
        i = e + 1;
    }
}

int cs_lex_data(int lexer, const char *b, size_t len, cs_toks *t)
{
    switch (lexer) {
    case CS_LEX_JSON: lex_json(b, len, t); break;
    case CS_LEX_YAML: lex_yaml(b, len, t); break;
    case CS_LEX_TOML: lex_toml(b, len, t); break;
    case CS_LEX_MD: lex_md(b, len, t); break;
    case CS_LEX_CSS: lex_css(b, len, t); break;
    case CS_LEX_DOCKERFILE: lex_dockerfile(b, len, t); break;
    default: break;
    }
    return t->oom ? -1 : 0;
}
