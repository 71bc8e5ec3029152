/* Path patterns (gitignore-style, compiled to PCRE2) and the lexical and
 * symlink-resolved forms of request paths they are compared with. */
#include "paths.h"
#include "perm_match.h"
#include "strutil.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>

/* Lexically normalise an absolute path in place: collapse "//", drop "."
 * and fold ".." (never above the root).  The root is "/". */
static void normalise_abs(char *s)
{
    size_t n = 0;
    const char *p = s;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 1 && p[0] == '.') {
            /* skip */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (n > 0 && s[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else {
            s[n++] = '/';
            memmove(s + n, p, len);
            n += len;
        }
        p += len;
    }
    if (n == 0)
        s[n++] = '/';
    s[n] = 0;
}

/* p against base, unless p is absolute. */
static char *join(const char *base, const char *p)
{
    return p[0] == '/' ? strdup(p) : paths_join(base, p);
}

char *perm_path_lexical(const char *base, const char *p)
{
    char *s = join(base, p);
    if (s)
        normalise_abs(s);
    return s;
}

char *perm_path_resolved(const char *base, const char *p)
{
    char *orig = join(base, p);
    char *cut = orig ? strdup(orig) : NULL;
    char *out = NULL;
    char real[PATH_MAX];
    if (!cut)
        goto done;
    /* Walk back to the longest prefix that exists: what follows it is not
     * on disk yet (a file being created) and is appended as written. */
    for (;;) {
        if (realpath(cut[0] ? cut : "/", real)) {
            if (asprintf(&out, "%s/%s", real, orig + strlen(cut)) < 0)
                out = NULL;
            break;
        }
        char *slash = strrchr(cut, '/');
        if ((errno != ENOENT && errno != ENOTDIR) || !slash) {
            out = strdup(orig); /* unresolvable (loop, no access) */
            break;
        }
        *slash = 0;
    }
    if (out)
        normalise_abs(out);
done:
    free(cut);
    free(orig);
    return out;
}

int perm_path_within(const char *root, const char *abs)
{
    return perm_path_below(root, abs) != NULL;
}

const char *perm_path_below(const char *root, const char *abs)
{
    size_t rl = strlen(root);
    if (rl == 1 && root[0] == '/')
        return abs + 1;
    if (strncmp(root, abs, rl) != 0)
        return NULL;
    if (abs[rl] == 0)
        return abs + rl;
    if (abs[rl] == '/')
        return abs + rl + 1;
    return NULL;
}

/* ---- pattern compilation --------------------------------------------- */

static int has_glob(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
            return 1;
    return 0;
}

/* Translate one path segment of a glob into regex text. */
static void put_segment(char *out, size_t *n, const char *seg, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = seg[i];
        if (c == '*') {
            memcpy(out + *n, "[^/]*", 5);
            *n += 5;
        } else if (c == '?') {
            memcpy(out + *n, "[^/]", 4);
            *n += 4;
        } else if (c == '[' && memchr(seg + i + 1, ']', len - i - 1)) {
            size_t j = i + 1;
            out[(*n)++] = '[';
            if (j < len && (seg[j] == '!' || seg[j] == '^')) {
                out[(*n)++] = '^';
                j++;
            }
            if (j < len && seg[j] == ']') { /* literal ] first in a class */
                out[(*n)++] = '\\';
                out[(*n)++] = ']';
                j++;
            }
            for (; j < len && seg[j] != ']'; j++) {
                if (seg[j] == '\\' || seg[j] == '[') {
                    out[(*n)++] = '\\';
                }
                out[(*n)++] = seg[j];
            }
            if (j >= len) { /* no closing bracket after all: literal */
                out[(*n)++] = ']';
            } else {
                out[(*n)++] = ']';
            }
            i = j;
        } else {
            if (c == '\\' && i + 1 < len)
                c = seg[++i];
            if (!isalnum((unsigned char)c) && !((unsigned char)c & 0x80))
                out[(*n)++] = '\\';
            out[(*n)++] = c;
        }
    }
}

static char *errf(const char *what, const char *spec)
{
    char *s = NULL;
    if (asprintf(&s, "%s in path pattern \"%s\"", what, spec) < 0)
        return NULL;
    return s;
}

/* Phase 1, the anchor: "//x" is absolute, "~/x" under the home
 * directory, "/x" under the workspace, anything else below the call's
 * directory (gitignore style: no slash but a trailing one matches at any
 * depth).  *pat is the pattern's text under that anchor, malloc'd. */
static int path_anchor(const char *spec, const char *workspace, const char *home,
                       perm_path_base *base, char **pat, char **err)
{
    *pat = NULL;
    if (spec[0] == 0) {
        *err = errf("empty pattern", spec);
        return VT_ERR_INVALID;
    }
    if (strncmp(spec, "//", 2) == 0) {
        *base = PBASE_ABS;
        *pat = strdup(spec + 1);
    } else if (spec[0] == '~' && (spec[1] == '/' || spec[1] == 0)) {
        if (!home || !*home) {
            *err = errf("no home directory for ~", spec);
            return VT_ERR_INVALID;
        }
        *base = PBASE_ABS;
        *pat = str_printf("%s%s", home, spec + 1);
    } else if (spec[0] == '/') {
        *base = PBASE_ABS;
        *pat = str_printf("%s%s", workspace, spec);
    } else {
        *base = PBASE_CWD;
        const char *s = spec;
        while (s[0] == '.' && s[1] == '/')
            s += 2;
        size_t sl = strlen(s);
        while (sl > 0 && s[sl - 1] == '/')
            sl--;
        if (sl == 0 || (sl == 1 && s[0] == '.'))
            *pat = strdup("**");
        else if (!memchr(s, '/', sl) && !(sl == 2 && s[0] == '*' && s[1] == '*'))
            *pat = str_printf("**/%.*s", (int)sl, s);
        else
            *pat = strndup(s, sl);
    }
    return *pat ? 0 : VT_ERR_NOMEM;
}

/* Phase 2, lexical normalisation: "//" runs collapse everywhere; "." and
 * ".." fold when the pattern has no glob characters; no trailing "/". */
static void path_normalise(char *pat, perm_path_base base)
{
    size_t j = 0;
    for (size_t i = 0; pat[i]; i++)
        if (!(pat[i] == '/' && j > 0 && pat[j - 1] == '/'))
            pat[j++] = pat[i];
    pat[j] = 0;
    if (base == PBASE_ABS && !has_glob(pat, j))
        normalise_abs(pat);
    j = strlen(pat);
    while (j > 1 && pat[j - 1] == '/')
        pat[--j] = 0;
}

/* One "**" segment of the translation. */
static void put_any_depth(char *src, size_t *n, int first, int last, int *after_lead)
{
    const char *t = last ? (first ? ".*" : "/.*") : first ? "(?:.*/)?" : "(?:/.*)?";
    memcpy(src + *n, t, strlen(t));
    *n += strlen(t);
    if (first && !last)
        *after_lead = 1; /* the next segment brings no "/" of its own */
}

/* Phase 3, translation: the regex source (`src`, room for 6 bytes a
 * pattern byte and 32 more) and the literal key, the leading segments
 * without glob characters (`k`, room for the pattern). */
static size_t path_translate(const char *pat, perm_path_base base, char *src, char *k)
{
    size_t n = 0, kn = 0;
    int literal = 1, after_lead = 0, first = base != PBASE_ABS;
    const char *p = base == PBASE_ABS ? pat + 1 : pat; /* "/" is put per segment */
    while (*p || first) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 2 && p[0] == '*' && p[1] == '*') {
            literal = 0;
            put_any_depth(src, &n, first, e == NULL, &after_lead);
        } else {
            if (!first && !after_lead)
                src[n++] = '/';
            after_lead = 0;
            put_segment(src, &n, p, len);
            if (literal && !has_glob(p, len)) {
                if (kn > 0 || base == PBASE_ABS)
                    k[kn++] = '/';
                memcpy(k + kn, p, len);
                kn += len;
            } else {
                literal = 0;
            }
        }
        first = 0;
        if (!e)
            break;
        p = e + 1;
    }
    k[kn] = 0;
    /* A path matches when it or any parent matches. */
    memcpy(src + n, "(?:/.*)?", 8);
    return n + 8;
}

int perm_compile_path(const char *spec, const char *workspace, const char *home,
                      perm_path_base *base, pcre2_code **re, char **key, char **err)
{
    *re = NULL;
    *key = NULL;
    char *pat = NULL;
    int rc = path_anchor(spec, workspace, home, base, &pat, err);
    if (rc < 0)
        return rc;
    path_normalise(pat, *base);
    size_t plen = strlen(pat);
    char *src = malloc(plen * 6 + 32), *k = malloc(plen + 1);
    if (!src || !k) {
        free(pat);
        free(src);
        free(k);
        return VT_ERR_NOMEM;
    }
    size_t n = path_translate(pat, *base, src, k);
    free(pat);
    int ec;
    PCRE2_SIZE off;
    *re = rx_compile((PCRE2_SPTR)src, n,
                     PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOTALL | PCRE2_UTF |
                         PCRE2_MATCH_INVALID_UTF,
                     &ec, &off);
    free(src);
    if (!*re) {
        free(k);
        PCRE2_UCHAR why[256] = "invalid pattern";
        if (ec == RX_ERROR_NO_LIBRARY)
            rx_error_message(ec, why, sizeof why);
        *err = errf((const char *)why, spec);
        return VT_ERR_INVALID;
    }
    rx_jit_compile(*re, PCRE2_JIT_COMPLETE);
    *key = k;
    return 0;
}

int perm_path_floating_key(const char *spec, char **key)
{
    *key = NULL;
    if (spec[0] == '/' || spec[0] == '~')
        return 0;
    while (spec[0] == '.' && spec[1] == '/')
        spec += 2;
    size_t len = strlen(spec);
    while (len && spec[len - 1] == '/')
        len--;
    if (!len || memchr(spec, '/', len) || (len == 1 && spec[0] == '.'))
        return 0;
    if (len > 2 && spec[0] == '*' && spec[1] == '.' && !has_glob(spec + 2, len - 2)) {
        *key = strndup(spec + 2, len - 2);
        return *key ? 'E' : 0;
    }
    if (has_glob(spec, len) || (len == 2 && spec[0] == '.' && spec[1] == '.'))
        return 0;
    *key = strndup(spec, len);
    return *key ? 'N' : 0;
}
