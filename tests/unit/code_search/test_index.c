/* The content index's pieces: the trigram test never rules out a file
 * that holds a match; an entry is made only for content whose times are
 * old enough; the index file round-trips, and any damage to it gives an
 * empty index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cs.h"
#include "cs_test_util.h"
#include "cs_decls.h"
#include "cs_index.h"
#include "cs_query.h"
#include "cs_tri.h"

static const char ALPHABET[] = "abcXYZ_ \n\t(){}0\xc3\xa9\xc3\x89\xff";

static void fill_random(char *buf, size_t len, unsigned *seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = ALPHABET[rand_r(seed) % (sizeof ALPHABET - 1)];
}

/* A query taken from the buffer, its ASCII letters' case changed at
 * random (a lower-case query then matches caselessly, one with an
 * upper-case letter exactly): whenever the search finds it, the entry
 * made from the buffer must let the file through. */
static void test_tri_never_rules_out_a_match(void **state)
{
    (void)state;
    unsigned seed = 42;
    char buf[600], q[12];
    size_t tried = 0, found = 0;
    for (int round = 0; round < 3000; round++) {
        size_t len = 3 + (size_t)rand_r(&seed) % (sizeof buf - 3);
        fill_random(buf, len, &seed);
        size_t ql = 1 + (size_t)rand_r(&seed) % 10, at = (size_t)rand_r(&seed) % (len - 1);
        if (at + ql > len)
            ql = len - at;
        memcpy(q, buf + at, ql);
        q[ql] = '\0';
        for (size_t i = 0; i < ql; i++)
            if ((q[i] >= 'a' && q[i] <= 'z') || (q[i] >= 'A' && q[i] <= 'Z'))
                if (rand_r(&seed) % 2)
                    q[i] ^= 0x20;
        if (memchr(q, '\0', ql) || strlen(q) != ql)
            continue;
        cs_query cq;
        char *err = NULL;
        if (cs_query_init(&cq, q, &err) < 0) { /* a cut UTF-8 sequence */
            free(err);
            continue;
        }
        cs_matcher m;
        assert_int_equal(cs_matcher_init(&m, &cq), 0);
        int hit = cs_match_any(&m, buf, len);
        cs_trq tq;
        cs_trq_init(&tq, &cq);
        cs_ientry e = {.log2 = CS_IX_LOG_MIN};
        uint64_t bits[1 << (CS_IX_LOG_MIN - 6)] = {0};
        cs_tri_fill(buf, len, e.log2, bits);
        e.bits = bits;
        if (hit)
            assert_true(cs_tri_may_match(&tq, &e));
        tried++;
        found += (size_t)hit;
        cs_matcher_free(&m);
        cs_query_free(&cq);
    }
    assert_true(tried > 800 && found > 500);
}

/* A query that is absent does get ruled out (else the index is idle). */
static void test_tri_rules_out_absent(void **state)
{
    (void)state;
    const char *text = "static int counter;\nint main(void) { return counter; }\n";
    uint64_t bits[1 << (CS_IX_LOG_MAX - 6)] = {0};
    cs_ientry e = {.log2 = CS_IX_LOG_MAX, .bits = bits};
    cs_tri_fill(text, strlen(text), e.log2, bits);
    const char *yes[] = {"counter", "COUNTER", "Main(void", "int"};
    const char *no[] = {"pthread_mutex_lock", "Zebra", "naïve", "xyz"};
    for (size_t i = 0; i < 4; i++) {
        cs_query q;
        char *err = NULL;
        assert_int_equal(cs_query_init(&q, yes[i], &err), 0);
        cs_trq tq;
        cs_trq_init(&tq, &q);
        assert_true(cs_tri_may_match(&tq, &e));
        cs_query_free(&q);
        assert_int_equal(cs_query_init(&q, no[i], &err), 0);
        cs_trq_init(&tq, &q);
        /* naïve: a case-insensitive non-ASCII query is not served. */
        assert_int_equal(cs_tri_may_match(&tq, &e), i == 2);
        cs_query_free(&q);
    }
    e.flags = CS_IX_BINARY; /* a binary file never gives content results */
    cs_query q;
    char *err = NULL;
    assert_int_equal(cs_query_init(&q, "a", &err), 0);
    cs_trq tq;
    cs_trq_init(&tq, &q);
    assert_false(cs_tri_may_match(&tq, &e));
    cs_query_free(&q);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    (void)n;
    return fd;
}

/* git's racy rule: content whose times are not older than the limit gets
 * no entry; nor does content whose size is not what was read. */
static void test_note_racy_and_size(void **state)
{
    (void)state;
    char path[] = "/tmp/cs_note_XXXXXX";
    int tfd = mkstemp(path);
    assert_true(tfd >= 0);
    close(tfd);
    const char *text = "int needle_word;\n";
    int fd = write_file(path, text);
    assert_true(fd >= 0);
    int64_t now = (int64_t)time(NULL);
    cs_fresh f = {0};
    cs_index_note(&f, NULL, fd, text, strlen(text), strlen(text), now - 2, NULL);
    assert_int_equal(f.state, -1); /* written just now */
    cs_index_note(&f, NULL, fd, text, strlen(text) - 1, strlen(text) - 1, now + 10, NULL);
    assert_int_equal(f.state, -1); /* not the whole file */
    cs_index_note(&f, NULL, fd, text, strlen(text), strlen(text), now + 10, NULL);
    assert_int_equal(f.state, 2);
    cs_ientry old = {.rel = "x", .id = f.id, .log2 = f.log2, .bits = f.bits};
    cs_fresh g = {0};
    cs_index_note(&g, &old, fd, text, strlen(text), strlen(text), now + 10, NULL);
    assert_int_equal(g.state, 1); /* the same identity: the old entry holds */
    cs_fresh_free(&g);
    cs_fresh_free(&f);
    close(fd);
    unlink(path);
}

/* A search enters a share of what it covers: past it, a file read is
 * left as not read (state 0: any old entry stays, checked before use). */
static void test_budget_share(void **state)
{
    (void)state;
    cs_ixbudget b;
    atomic_init(&b.seen, 0);
    atomic_init(&b.spent, 0);
    assert_true(cs_ixbudget_spend(&b, CS_IX_SLACK));
    assert_false(cs_ixbudget_spend(&b, 1));
    cs_ixbudget_seen(&b, 100u << 20);
    assert_true(cs_ixbudget_spend(&b, (100u << 20) / 100 * CS_IX_SHARE_PCT));
    assert_false(cs_ixbudget_spend(&b, 1));
    char path[] = "/tmp/cs_budget_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "int needle_word;\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    cs_fresh f = {0};
    cs_index_note(&f, NULL, fd, text, strlen(text), strlen(text), (int64_t)time(NULL) + 10, &b);
    assert_int_equal(f.state, 0);
    assert_null(f.bits);
    close(fd);
    unlink(path);
}

/* A small index image, saved and loaded back: a file with declared
 * names, a binary one, one that declares nothing. */
static uint64_t names_bits[1 << (CS_IX_DLOG_MIN - 6)] = {0x8001};
static char *saved_index(const char *dir, const char *root, uint64_t *bits, size_t *len)
{
    cs_ientry v[3] = {
        {.rel = "a.c",
         .id = {1, 2, 3, 4, 5, 6, 7},
         .flags = CS_IX_DECLS,
         .log2 = CS_IX_LOG_MIN,
         .bits = bits,
         .dlog2 = CS_IX_DLOG_MIN,
         .dbits = names_bits},
        {.rel = "b/bin", .id = {1, 9, 3, 4, 5, 6, 7}, .flags = CS_IX_BINARY},
        {.rel = "b/c.c",
         .id = {1, 8, 3, 4, 5, 6, 7},
         .flags = CS_IX_DECLS,
         .log2 = CS_IX_LOG_MIN,
         .bits = bits},
    };
    char *path = cs_index_path(dir, root);
    assert_non_null(path);
    assert_int_equal(cs_index_save(path, root, cs_decls_build(), v, 3), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    *len = (size_t)st.st_size;
    return path;
}

static void load_expect(const char *path, const char *root, size_t want)
{
    cs_index ix;
    assert_int_equal(cs_index_load(path, root, cs_decls_build(), &ix), 0);
    assert_int_equal(ix.n, want);
    cs_index_free(&ix);
}

/* Every single-byte change and every truncation gives an empty index;
 * the intact file gives its entries back, for its own root only. */
static void test_file_damage_ignored(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs_ix_XXXXXX";
    assert_non_null(mkdtemp(dir));
    uint64_t bits[1 << (CS_IX_LOG_MIN - 6)] = {0};
    bits[1] = 0x5a5a;
    size_t len;
    char *path = saved_index(dir, "/work/root", bits, &len);
    cs_index ix;
    assert_int_equal(cs_index_load(path, "/work/root", cs_decls_build(), &ix), 0);
    assert_int_equal(ix.n, 3);
    assert_string_equal(ix.v[1].rel, "b/bin");
    assert_int_equal(ix.v[1].flags, CS_IX_BINARY);
    assert_int_equal(ix.v[2].id.ino, 8);
    assert_int_equal(ix.v[2].bits[1], 0x5a5a);
    assert_int_equal(ix.v[0].flags, CS_IX_DECLS);
    assert_int_equal(ix.v[0].dlog2, CS_IX_DLOG_MIN);
    assert_int_equal(ix.v[0].dbits[0], 0x8001);
    assert_int_equal(ix.v[2].flags, CS_IX_DECLS);
    assert_int_equal(ix.v[2].dlog2, 0);
    assert_null(ix.v[2].dbits);
    cs_index_free(&ix);
    load_expect(path, "/work/other", 0);
    char *good = malloc(len);
    FILE *fp = fopen(path, "rb");
    assert_int_equal(fread(good, 1, len, fp), len);
    fclose(fp);
    for (size_t i = 0; i < len; i++) {
        for (int flip = 0; flip < 2; flip++) {
            fp = fopen(path, "wb");
            char saved = good[i];
            if (flip)
                good[i] ^= 0x10;
            fwrite(good, 1, flip ? len : i, fp);
            fclose(fp);
            if (flip)
                good[i] = saved;
            load_expect(path, "/work/root", 0);
        }
    }
    unlink(path);
    free(path);
    free(good);
    rmdir(dir);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = write_file(p, text);
    assert_true(fd >= 0);
    close(fd);
}

/* The whole search with the index, against the same search without it:
 * made, used, and after an edit. */
static void test_search_with_index(void **state)
{
    (void)state;
    char root[] = "/tmp/cs_ixws_XXXXXX", ixdir[] = "/tmp/cs_ixdir_XXXXXX";
    assert_non_null(mkdtemp(root));
    assert_non_null(mkdtemp(ixdir));
    char name[32];
    for (int i = 0; i < 30; i++) {
        snprintf(name, sizeof name, "f%02d.c", i);
        put(root, name, i == 7 ? "int needle_word;\n" : "int other_word;\n");
    }
    put(root, "bin.dat", "needle_word\0\n");
    /* The sweep after a save: old index and temporary files go. */
    const char *aged[] = {"code_search-0123.idx", "code_search-0123.idx.9.0.tmp",
                          "code_search-4567.idx", "notes.idx"};
    const int age[] = {40 * 86400, 7200, 0, 40 * 86400};
    for (int i = 0; i < 4; i++) {
        put(ixdir, aged[i], "x");
        char p[512];
        snprintf(p, sizeof p, "%s/%s", ixdir, aged[i]);
        struct timespec ts[2] = {{time(NULL) - age[i], 0}, {time(NULL) - age[i], 0}};
        assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
    }
    sleep(3); /* older than the racy margin */
    const char *qs[] = {"needle_word", "Needle_word", "ne", "other", "naïve"};
    for (int round = 0; round < 3; round++) {
        if (round == 2)
            put(root, "f11.c", "int needle_word;\n"); /* the same size, just now */
        for (size_t k = 0; k < 5; k++) {
            char *with = tu_search_indexed(root, ixdir, qs[k], 0, 100);
            char *without = tu_search_indexed(root, NULL, qs[k], 0, 100);
            assert_string_equal(with, without);
            free(with);
            free(without);
        }
    }
    char *path = cs_index_path(ixdir, root);
    cs_index ix;
    assert_int_equal(cs_index_load(path, root, cs_decls_build(), &ix), 0);
    assert_int_equal(ix.n, 30); /* f11.c is too new to enter */
    cs_index_free(&ix);
    unlink(path);
    free(path);
    for (int i = 0; i < 30; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/f%02d.c", root, i);
        unlink(p);
    }
    char p[512];
    snprintf(p, sizeof p, "%s/bin.dat", root);
    unlink(p);
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", ixdir, aged[i]);
        assert_int_equal(access(p, F_OK) == 0, i >= 2); /* only the recent and foreign stay */
        unlink(p);
    }
    rmdir(root);
    assert_int_equal(rmdir(ixdir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tri_never_rules_out_a_match),
        cmocka_unit_test(test_tri_rules_out_absent),
        cmocka_unit_test(test_note_racy_and_size),
        cmocka_unit_test(test_budget_share),
        cmocka_unit_test(test_file_damage_ignored),
        cmocka_unit_test(test_search_with_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
