/* Declared names in the content index: the set made from a file never
 * rules out a name the file declares (whatever its case), rules out what
 * it does not declare, and a search that leaves files out by it returns
 * what the same search without an index does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs.h"
#include "cs_decls.h"
#include "cs_index.h"
#include "cs_index_fmt.h"
#include "cs_lex.h"
#include "cs_query.h"
#include "cs_test_util.h"
#include "cs_types.h"

#define MAX_NAMES 400
#define NAME_MAX_LEN 64

static const char *const DIRS[] = {"forms", "lang", "langs"};

typedef struct names {
    char v[MAX_NAMES][NAME_MAX_LEN];
    size_t n;
} names;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 64, f);
    fclose(f);
    return buf;
}

static void add_name(names *ns, const char *s, size_t n)
{
    if (n == 0 || n >= NAME_MAX_LEN || ns->n >= MAX_NAMES)
        return;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80 || s[i] == '\0')
            return;
    for (size_t i = 0; i < ns->n; i++)
        if (strlen(ns->v[i]) == n && memcmp(ns->v[i], s, n) == 0)
            return;
    memcpy(ns->v[ns->n], s, n);
    ns->v[ns->n++][n] = '\0';
}

/* 1 when the query q gives a definition in the entry's file by the set. */
static int may(const char *q, const cs_ientry *e)
{
    cs_query cq;
    char *err = NULL;
    assert_int_equal(cs_query_init(&cq, q, &err), 0);
    cs_dq dq;
    cs_dq_init(&dq, &cq);
    int r = cs_decls_may(&dq, e);
    cs_query_free(&cq);
    return r;
}

/* Every fixture file: the set made from it admits each name it declares,
 * as written and lower-cased (the case-insensitive query). */
static void check_file(const char *path, int lexer, names *all, size_t *checked)
{
    size_t len;
    char *buf = slurp(path, &len);
    cs_toks t = {0};
    cs_fresh f = {0};
    assert_int_equal(cs_decls_make(&f, lexer, buf, len, &t), 0);
    cs_ientry e = {.flags = f.flags, .dlog2 = f.dlog2, .dbits = f.dbits};
    assert_true(e.flags & CS_IX_DECLS);
    for (size_t i = 0; i < t.n; i++) {
        if (!t.v[i].def)
            continue;
        const char *s = buf + t.v[i].start;
        size_t n = t.v[i].end - t.v[i].start;
        char q[NAME_MAX_LEN];
        if (n >= sizeof q || memchr(s, '\0', n))
            continue;
        memcpy(q, s, n);
        q[n] = '\0';
        assert_true(may(q, &e));
        for (size_t k = 0; k < n; k++)
            if (q[k] >= 'A' && q[k] <= 'Z')
                q[k] = (char)(q[k] + 32);
        assert_true(may(q, &e));
        add_name(all, s, n);
        (*checked)++;
    }
    cs_toks_free(&t);
    cs_fresh_free(&f);
    free(buf);
}

static void for_each_fixture(void (*fn)(const char *dir, const char *name, void *ud), void *ud)
{
    for (size_t d = 0; d < sizeof DIRS / sizeof *DIRS; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", CS_FIXTURES, DIRS[d]);
        DIR *dp = opendir(dir);
        assert_non_null(dp);
        struct dirent *de;
        while ((de = readdir(dp)))
            if (de->d_name[0] != '.')
                fn(DIRS[d], de->d_name, ud);
        closedir(dp);
    }
}

typedef struct walk_ud {
    names *all;
    size_t checked;
    const char *ws; /* or NULL: do not copy */
} walk_ud;

static void visit(const char *dir, const char *name, void *p)
{
    walk_ud *u = p;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", CS_FIXTURES, dir, name);
    int lexer;
    (void)cs_lang_of_file(name, &lexer);
    check_file(path, lexer, u->all, &u->checked);
    if (u->ws) {
        size_t len;
        char *buf = slurp(path, &len);
        char rel[1024];
        snprintf(rel, sizeof rel, "%s/%s", dir, name);
        tu_write(u->ws, rel, buf, (long)len);
        free(buf);
    }
}

static void test_set_admits_every_declared_name(void **state)
{
    (void)state;
    names *all = calloc(1, sizeof *all);
    walk_ud u = {all, 0, NULL};
    for_each_fixture(visit, &u);
    assert_true(u.checked > 200);
    free(all);
}

static void test_set_rules_out(void **state)
{
    (void)state;
    const char *src = "int alpha_one;\nvoid f(void) { beta_two(); }\n";
    cs_toks t = {0};
    cs_fresh f = {0};
    assert_int_equal(cs_decls_make(&f, CS_LEX_C, src, strlen(src), &t), 0);
    cs_ientry e = {.flags = f.flags, .dlog2 = f.dlog2, .dbits = f.dbits};
    assert_true(may("alpha_one", &e) && may("ALPHA_ONE", &e) && may("f", &e));
    assert_false(may("beta_two", &e)); /* used, not declared */
    assert_false(may("alpha_on", &e));
    /* A folding query (ß is SS) cannot be hashed as its matches are. */
    assert_true(may("stra\xc3\x9f"
                    "e",
                    &e));
    cs_fresh_free(&f);
    /* Nothing declared: an empty set; without a lexer the same. */
    const char *use = "void g(void);\n";
    assert_int_equal(cs_decls_make(&f, CS_LEX_NONE, use, strlen(use), &t), 0);
    assert_int_equal(f.dlog2, 0);
    e = (cs_ientry){.flags = f.flags, .dlog2 = f.dlog2, .dbits = f.dbits};
    assert_false(may("g", &e));
    cs_fresh_free(&f);
    /* An entry without the set vouches for nothing. */
    e = (cs_ientry){.flags = 0};
    assert_true(may("g", &e));
    cs_toks_free(&t);
}

/* An index file whose checksum is right but whose name-set fields are
 * not (forged, or written by a broken writer) is ignored whole: never an
 * out-of-bounds read. */
static void test_forged_set_fields_ignored(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    assert_non_null(dir);
    uint64_t bits[4] = {1, 2, 3, 4}, dbits[1] = {5};
    cs_ientry v[1] = {{.rel = "a.c",
                       .id = {1, 2, 3, 4, 5, 6, 7},
                       .flags = CS_IX_DECLS,
                       .log2 = CS_IX_LOG_MIN,
                       .bits = bits,
                       .dlog2 = CS_IX_DLOG_MIN,
                       .dbits = dbits}};
    char *path = cs_index_path(dir, "/r");
    uint64_t build = cs_decls_build();
    assert_int_equal(cs_index_save(path, "/r", build, v, 1), 0);
    size_t len;
    char *good = slurp(path, &len);
    size_t rec = sizeof(ix_header) + 8; /* the root "/r" padded to 8 */
    struct {
        size_t off;
        uint32_t value;
    } bad[] = {
        {offsetof(ix_rec, dlog2), CS_IX_DLOG_MIN - 1}, {offsetof(ix_rec, dlog2), CS_IX_DLOG_MAX + 1},
        {offsetof(ix_rec, dlog2), CS_IX_DLOG_MIN + 1}, /* beyond the words */
        {offsetof(ix_rec, zero), 1},
        {offsetof(ix_rec, dbitoff), 1000},
        {offsetof(ix_rec, flags), CS_IX_DECLS | CS_IX_BINARY},
        {offsetof(ix_rec, flags), 4},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *img = malloc(len);
        memcpy(img, good, len);
        memcpy(img + rec + bad[k].off, &bad[k].value, 4);
        ix_header h;
        memcpy(&h, img, sizeof h);
        h.sum = cs_index_checksum(img + sizeof h, len - sizeof h);
        memcpy(img, &h, sizeof h);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(img, 1, len, f), len);
        fclose(f);
        cs_index ix;
        assert_int_equal(cs_index_load(path, "/r", build, &ix), 0);
        if (ix.n != 0)
            fail_msg("forged field %zu (offset %zu) accepted", k, bad[k].off);
        cs_index_free(&ix);
        free(img);
    }
    /* The intact image loads, and only for its own build. */
    FILE *f = fopen(path, "wb");
    assert_int_equal(fwrite(good, 1, len, f), len);
    fclose(f);
    cs_index ix;
    assert_int_equal(cs_index_load(path, "/r", build, &ix), 0);
    assert_int_equal(ix.n, 1);
    assert_int_equal(ix.v[0].dbits[0], 5);
    cs_index_free(&ix);
    assert_int_equal(cs_index_load(path, "/r", build ^ 1, &ix), 0);
    assert_int_equal(ix.n, 0);
    free(good);
    free(path);
    tu_rmrf(dir);
    free(dir);
}

/* Every declared name of the fixtures, as definitions alone and as a
 * search bounded to one result (whose later files may only add
 * definitions): the same with the index as without. */
static void test_search_same_with_sets(void **state)
{
    (void)state;
    char *ws = tu_mkdtemp(), *ixdir = tu_mkdtemp();
    assert_non_null(ws);
    assert_non_null(ixdir);
    names *all = calloc(1, sizeof *all);
    walk_ud u = {all, 0, ws};
    for_each_fixture(visit, &u);
    sleep(3); /* older than the racy margin */
    free(tu_search_indexed(ws, ixdir, "x", CS_CAT_ALL, 100)); /* reads every file: the index */
    const unsigned def = 1u << CS_DEF;
    const unsigned cats[] = {def, CS_CAT_ALL, def | (1u << CS_USE)};
    for (size_t i = 0; i < all->n; i++) {
        char lower[NAME_MAX_LEN];
        snprintf(lower, sizeof lower, "%s", all->v[i]);
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p + 32);
        for (size_t c = 0; c < 3; c++) {
            const char *q = c == 1 ? lower : all->v[i];
            char *with = tu_search_indexed(ws, ixdir, q, cats[c], c ? 1 : 100);
            char *without = tu_search_indexed(ws, NULL, q, cats[c], c ? 1 : 100);
            if (strcmp(with, without) != 0)
                fail_msg("%s (%u): with the index %s, without %s", q, cats[c], with, without);
            free(with);
            free(without);
        }
    }
    free(all);
    tu_rmrf(ws);
    tu_rmrf(ixdir);
    free(ws);
    free(ixdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_admits_every_declared_name),
        cmocka_unit_test(test_set_rules_out),
        cmocka_unit_test(test_forged_set_fields_ignored),
        cmocka_unit_test(test_search_same_with_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
