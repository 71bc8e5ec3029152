/* libFuzzer target: apply_patch parse + match + apply against generated
 * file contents, checked against a simple model.
 *
 * The input drives a generator: a file of 1..24 lines drawn from a small
 * vocabulary (so blocks repeat and the matcher must pick the right one),
 * then one or two edits, each replacing a range of lines by new lines.
 * The generator writes the patch as a model would (up to three context
 * lines around each edit, an @@ header), parses it, applies it to the
 * file, and compares the result with the model: the same edits made on
 * the line array, each at the first place at or after the previous
 * edit where its context and removed lines occur exactly. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "patch_apply.h"
#include "patch_parse.h"
#include "../fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const VOCAB[] = {"a", "b", "alpha beta", "  indented", "",
                                    "x = 1;", "\tTAB", "}", "caf\xc3\xa9", "end"};
#define NVOCAB (sizeof VOCAB / sizeof *VOCAB)
#define MAXL 64

typedef struct {
    const char *v[MAXL];
    size_t n;
} lines;

typedef struct {
    char *buf;
    size_t len, cap;
} sb;

static void put(sb *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->buf = realloc(b->buf, b->cap);
        if (!b->buf)
            abort();
    }
    memcpy(b->buf + b->len, s, n + 1);
    b->len += n;
}

/* First i >= from where blk occurs in f; -1 when nowhere. */
static long find(const lines *f, size_t from, const char *const *blk, size_t nb)
{
    for (size_t i = from; i + nb <= f->n; i++) {
        size_t k = 0;
        while (k < nb && strcmp(f->v[i + k], blk[k]) == 0)
            k++;
        if (k == nb)
            return (long)i;
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_src s = {data, size};
    lines f = {.n = 1 + fuzz_take(&s, 24)};
    for (size_t i = 0; i < f.n; i++)
        f.v[i] = VOCAB[fuzz_take(&s, NVOCAB)];
    lines model = f;

    sb ptext = {0}, file = {0};
    put(&ptext, "*** Begin Patch\n*** Update File: f.txt\n");
    for (size_t i = 0; i < f.n; i++) {
        put(&file, f.v[i]);
        put(&file, "\n");
    }

    int nedits = 1 + (int)fuzz_take(&s, 2);
    size_t pos = 0;        /* in the model: edits go forward */
    int applicable = 1;
    for (int e = 0; e < nedits && applicable; e++) {
        if (pos >= model.n)
            break;
        size_t at = pos + fuzz_take(&s, (unsigned)(model.n - pos));
        size_t del = fuzz_take(&s, (unsigned)(model.n - at + 1));
        size_t add = fuzz_take(&s, 4);
        if (del == 0 && add == 0)
            add = 1;
        size_t before = at - pos < 3 ? at - pos : 3;
        size_t after = model.n - (at + del) < 3 ? model.n - (at + del) : 3;
        if (del == 0 && before == 0 && after == 0) {
            applicable = 0;  /* nothing to anchor a pure insertion: not a model edit */
            break;
        }
        const char *blk[MAXL];
        size_t nb = 0;
        for (size_t k = at - before; k < at + del + after; k++)
            blk[nb++] = model.v[k];
        /* The model applies where the block first occurs from pos on. */
        long where = find(&model, pos, blk, nb);
        if (where < 0)
            abort();
        size_t start = (size_t)where + before;

        put(&ptext, "@@\n");
        for (size_t k = 0; k < before; k++) {
            put(&ptext, " ");
            put(&ptext, blk[k]);
            put(&ptext, "\n");
        }
        for (size_t k = 0; k < del; k++) {
            put(&ptext, "-");
            put(&ptext, blk[before + k]);
            put(&ptext, "\n");
        }
        const char *added[4];
        for (size_t k = 0; k < add; k++) {
            added[k] = VOCAB[fuzz_take(&s, NVOCAB)];
            put(&ptext, "+");
            put(&ptext, added[k]);
            put(&ptext, "\n");
        }
        for (size_t k = 0; k < after; k++) {
            put(&ptext, " ");
            put(&ptext, blk[before + del + k]);
            put(&ptext, "\n");
        }
        if (model.n - del + add > MAXL) {
            applicable = 0;
            break;
        }
        lines next = {.n = 0};
        for (size_t k = 0; k < start; k++)
            next.v[next.n++] = model.v[k];
        for (size_t k = 0; k < add; k++)
            next.v[next.n++] = added[k];
        for (size_t k = start + del; k < model.n; k++)
            next.v[next.n++] = model.v[k];
        model = next;
        pos = start + add + after;
    }
    put(&ptext, "*** End Patch\n");

    if (applicable) {
        patch p;
        char *err = NULL;
        if (patch_parse(ptext.buf, ptext.len, &p, &err) != 0) {
            fprintf(stderr, "generated patch refused: %s\n%s", err ? err : "?", ptext.buf);
            abort();
        }
        file_result r;
        char *why = NULL;
        if (apply_update(&p, &p.ops[0], "f.txt", file.buf, file.len, &r, &why) != 0) {
            /* Context can legitimately match only fuzzily when an empty or
             * whitespace line makes a block ambiguous; an exact block never
             * fails to apply. */
            fprintf(stderr, "generated patch did not apply: %s\n%s", why ? why : "?", ptext.buf);
            abort();
        }
        sb want = {0};
        put(&want, "");
        for (size_t i = 0; i < model.n; i++) {
            put(&want, model.v[i]);
            put(&want, "\n");
        }
        if (file_result_flatten(&r) != 0)
            abort();
        if (r.size != want.len || memcmp(r.data, want.buf, want.len) != 0) {
            fprintf(stderr, "result differs from the model\npatch:\n%s\nfile:\n%s\nwant:\n%s\ngot:\n%.*s\n",
                    ptext.buf, file.buf, want.buf, (int)r.size, r.data ? r.data : "");
            abort();
        }
        free(want.buf);
        file_result_free(&r);
        patch_free(&p);
    }
    free(ptext.buf);
    free(file.buf);
    return 0;
}
