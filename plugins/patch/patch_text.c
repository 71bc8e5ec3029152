/* Line splitting and normalisations for patch matching. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <vthost/format.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_text.h"

int patch_fail(char **err, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    *err = vt_vformat(fmt, ap);
    va_end(ap);
    return rc;
}

/* The next line break at or after p: "\n", "\r\n" or a lone "\r".
 * Returns its position and *len (0 when there is none). */
static const char *next_break(const char *p, const char *end, int has_cr, size_t *len)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *cr = has_cr ? memchr(p, '\r', (size_t)((nl ? nl : end) - p)) : NULL;
    if (cr) {
        *len = (cr + 1 < end && cr[1] == '\n') ? 2 : 1;
        return cr;
    }
    *len = nl ? 1 : 0;
    return nl;
}

int text_split(const char *base, size_t size, text_lines *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->size = size;
    out->eol = "\n";
    out->eol_len = 1;
    /* memchr does the scanning; only files with a CR need the second. */
    int has_cr = size && memchr(base, '\r', size) != NULL;
    size_t cap = size / 40 + 16;
    out->v = malloc(cap * sizeof *out->v);
    if (!out->v)
        return VT_ERR_NOMEM;
    const char *p = base, *end = base + size;
    while (p < end) {
        size_t eol;
        const char *brk = next_break(p, end, has_cr, &eol);
        if (VT_GROW(&out->v, &cap, out->n + 1) != 0) {
            text_lines_free(out);
            return VT_ERR_NOMEM;
        }
        size_t len = (size_t)((brk ? brk : end) - p);
        if (len > UINT32_MAX) {
            text_lines_free(out);
            return VT_ERR_INVALID;
        }
        if (!brk) {
            out->v[out->n++] = (text_line){(size_t)(p - base), (uint32_t)len, 0};
            break;
        }
        out->v[out->n++] = (text_line){(size_t)(p - base), (uint32_t)len, (uint8_t)eol};
        if (out->n == 1 || out->eol_len == 0) {
            out->eol = brk;
            out->eol_len = eol;
        }
        p = brk + eol;
    }
    return 0;
}

void text_lines_free(text_lines *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

static int ascii_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n';
}

void text_rstrip(const char **s, size_t *len)
{
    while (*len && ascii_ws((*s)[*len - 1]))
        (*len)--;
}

void text_trim(const char **s, size_t *len)
{
    while (*len && ascii_ws(**s)) {
        (*s)++;
        (*len)--;
    }
    text_rstrip(s, len);
}

static utf8proc_int32_t fold_cp(utf8proc_int32_t c)
{
    if ((c >= 0x2010 && c <= 0x2015) || c == 0x2212)
        return '-';
    if (c >= 0x2018 && c <= 0x201B)
        return '\'';
    if (c >= 0x201C && c <= 0x201F)
        return '"';
    if (c == 0x00A0 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000)
        return ' ';
    return c;
}

char *text_fold(const char *s, size_t len, size_t *out_len)
{
    /* Folding only shrinks (every target is one byte), so len bytes do. */
    char *o = malloc(len + 1);
    if (!o)
        return NULL;
    size_t n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
    size_t i = 0;
    while (i < len) {
        if (p[i] < 0x80) {
            o[n++] = (char)p[i++];
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0) {
            o[n++] = (char)p[i++];
            continue;
        }
        utf8proc_int32_t f = fold_cp(cp);
        if (f == cp) {
            memcpy(o + n, p + i, (size_t)k);
            n += (size_t)k;
        } else {
            n += (size_t)utf8proc_encode_char(f, (utf8proc_uint8_t *)o + n);
        }
        i += (size_t)k;
    }
    const char *t = o;
    size_t tl = n;
    text_trim(&t, &tl);
    memmove(o, t, tl);
    o[tl] = '\0';
    *out_len = tl;
    return o;
}
