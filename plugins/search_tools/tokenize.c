/* Free text -> search terms (see tokenize.h for the rules). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "tokenize.h"

/* Longer pieces are identifiers of no search value (hashes, base64);
 * skipping them bounds the work per term. */
#define TOK_MAX_INPUT 128
/* Room for the folded form of TOK_MAX_INPUT bytes in the common case;
 * a piece whose folding grows past it is skipped. */
#define TOK_FOLD_CAP 512

enum { CL_SEP = 0, CL_WORD = 1, CL_JOIN = 2 };

typedef struct cp_info {
    size_t off;  /* byte offset in the text */
    uint8_t len; /* bytes */
    uint8_t cls;
    uint8_t cat; /* utf8proc category */
} cp_info;

/* Runs longer than this spill to the heap; most words fit. */
#define TOK_INLINE_CPS 128

typedef struct tok_state {
    tok_fn fn;
    void *ctx;
    const char *text;
    cp_info *cps; /* `inline_cps` or a heap copy */
    size_t ncps, cap;
    cp_info inline_cps[TOK_INLINE_CPS];
    utf8proc_int32_t fold[TOK_FOLD_CAP + 1];
} tok_state;

static int classify(utf8proc_int32_t cp, int cat)
{
    if (cp == '_' || cp == '.' || cp == '-')
        return CL_JOIN;
    if ((cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
        (cat >= UTF8PROC_CATEGORY_MN && cat <= UTF8PROC_CATEGORY_ME) ||
        (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO))
        return CL_WORD;
    return CL_SEP;
}

/* Fold bytes [off, off+len) and hand the term on when it has at least
 * two characters. */
static int emit(tok_state *st, size_t off, size_t len)
{
    if (len == 0 || len > TOK_MAX_INPUT)
        return 0;
    const utf8proc_option_t opts =
        UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_COMPOSE | UTF8PROC_STRIPMARK;
    utf8proc_ssize_t n = utf8proc_decompose((const utf8proc_uint8_t *)st->text + off,
                                            (utf8proc_ssize_t)len, st->fold, TOK_FOLD_CAP, opts);
    if (n < 0 || n > TOK_FOLD_CAP)
        return 0;
    /* Compatibility forms may bring separators in (U+037A folds to a
     * space and iota, U+2474 to "(1)"): a term keeps word and joiner
     * characters only. */
    utf8proc_ssize_t kept = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++)
        if (classify(st->fold[i], utf8proc_category(st->fold[i])) != CL_SEP)
            st->fold[kept++] = st->fold[i];
    n = utf8proc_reencode(st->fold, kept, opts);
    if (n < 0)
        return 0;
    const char *s = (const char *)st->fold;
    size_t chars = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            chars++;
    if (chars < 2)
        return 0;
    return st->fn(st->ctx, s, (size_t)n);
}

static int is_upper(int cat) { return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LT; }

/* One word (word characters only): camelCase pieces, then the whole word
 * when it had more than one piece. */
static int emit_word(tok_state *st, size_t a, size_t b)
{
    const cp_info *c = st->cps;
    size_t start = a;
    int pieces = 0, rc;
    for (size_t i = a + 1; i <= b; i++) {
        int cut = 0;
        if (i < b) {
            int prev = c[i - 1].cat, cur = c[i].cat;
            if (prev == UTF8PROC_CATEGORY_LL && is_upper(cur))
                cut = 1; /* pullRequest */
            else if (is_upper(prev) && is_upper(cur) && i + 1 < b &&
                     c[i + 1].cat == UTF8PROC_CATEGORY_LL)
                cut = 1; /* HTTPServer */
        }
        if (i == b || cut) {
            size_t end = c[i - 1].off + c[i - 1].len;
            if ((rc = emit(st, c[start].off, end - c[start].off)) != 0)
                return rc;
            pieces++;
            start = i;
        }
    }
    if (pieces > 1)
        return emit(st, c[a].off, c[b - 1].off + c[b - 1].len - c[a].off);
    return 0;
}

/* A run of word and joiner characters, trimmed of joiners at both ends. */
static int emit_run(tok_state *st)
{
    size_t a = 0, b = st->ncps;
    while (a < b && st->cps[a].cls == CL_JOIN)
        a++;
    while (b > a && st->cps[b - 1].cls == CL_JOIN)
        b--;
    int words = 0, rc;
    size_t i = a;
    while (i < b) {
        while (i < b && st->cps[i].cls == CL_JOIN)
            i++;
        size_t w = i;
        while (i < b && st->cps[i].cls == CL_WORD)
            i++;
        if (i > w) {
            if ((rc = emit_word(st, w, i)) != 0)
                return rc;
            words++;
        }
    }
    if (words > 1) {
        const cp_info *l = &st->cps[b - 1];
        return emit(st, st->cps[a].off, l->off + l->len - st->cps[a].off);
    }
    return 0;
}

static int push_cp(tok_state *st, size_t off, size_t len, int cls, int cat)
{
    if (st->ncps == st->cap && st->cps == st->inline_cps) {
        /* the inline array is full: move to the heap, twice its size */
        cp_info *heap = NULL;
        size_t heap_cap = 0;
        if (VT_GROW(&heap, &heap_cap, st->cap * 2) != 0)
            return VT_ERR_NOMEM;
        memcpy(heap, st->inline_cps, sizeof st->inline_cps);
        st->cps = heap;
        st->cap = heap_cap;
    } else if (VT_GROW(&st->cps, &st->cap, st->ncps + 1) != 0) {
        return VT_ERR_NOMEM;
    }
    st->cps[st->ncps++] = (cp_info){off, (uint8_t)len, (uint8_t)cls, (uint8_t)cat};
    return 0;
}

int tok_split(const char *text, size_t len, tok_fn fn, void *ctx)
{
    /* On the stack: one split per field, many fields per catalog. */
    tok_state state, *st = &state;
    st->fn = fn;
    st->ctx = ctx;
    st->text = text;
    st->cps = st->inline_cps;
    st->ncps = 0;
    st->cap = TOK_INLINE_CPS;

    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)text;
    size_t i = 0;
    int rc = 0;
    while (rc == 0 && i <= len) {
        int cls = CL_SEP, cat = 0;
        size_t n = 1;
        if (i < len) {
            utf8proc_int32_t cp;
            utf8proc_ssize_t k = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
            if (k > 0) {
                n = (size_t)k;
                cat = utf8proc_category(cp);
                cls = classify(cp, cat);
            }
        }
        /* A run starts at a word character; joiners only continue one. */
        if (cls == CL_WORD || (cls == CL_JOIN && st->ncps > 0))
            rc = push_cp(st, i, n, cls, cat);
        else if (st->ncps > 0) {
            rc = emit_run(st);
            st->ncps = 0;
        }
        i += n;
    }
    if (st->cps != st->inline_cps)
        free(st->cps);
    return rc;
}

int tok_is_blank(const char *text, size_t len)
{
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)text;
    size_t i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(s + i, (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0)
            return 0;
        int cat = utf8proc_category(cp);
        if (cat != UTF8PROC_CATEGORY_ZS && cat != UTF8PROC_CATEGORY_ZL &&
            cat != UTF8PROC_CATEGORY_ZP && cat != UTF8PROC_CATEGORY_CC &&
            cat != UTF8PROC_CATEGORY_CF)
            return 0;
        i += (size_t)k;
    }
    return 1;
}
