/* Line splitting and normalisations for patch matching. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <vthost/plugin.h>
#include "patch_text.h"

int text_split(const char *base, size_t size, text_lines *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->size = size;
    out->eol = "\n";
    out->eol_len = 1;
    /* Count first so one allocation serves a 100k-line file. */
    size_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if (base[i] == '\n' || (base[i] == '\r' && (i + 1 >= size || base[i + 1] != '\n')))
            n++;
    }
    if (size && base[size - 1] != '\n' && base[size - 1] != '\r')
        n++;
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    if (!out->v)
        return VT_ERR_NOMEM;
    int have_eol = 0;
    size_t start = 0, i = 0;
    while (i < size) {
        char ch = base[i];
        if (ch != '\n' && ch != '\r') {
            i++;
            continue;
        }
        uint8_t step = (ch == '\r' && i + 1 < size && base[i + 1] == '\n') ? 2 : 1;
        out->v[out->n++] = (text_line){start, i - start, step};
        if (!have_eol) {
            out->eol = base + i;
            out->eol_len = step;
            have_eol = 1;
        }
        i += step;
        start = i;
    }
    if (start < size)
        out->v[out->n++] = (text_line){start, size - start, 0};
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
    if (c == 0x00A0 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
        c == 0x3000)
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
