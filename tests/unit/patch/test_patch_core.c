/* Parser, matcher, line endings and diff rendering of apply_patch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "patch_apply.h"
#include "patch_buf.h"
#include "patch_fs.h"
#include "patch_sync.h"
#include "patch_match.h"
#include "patch_parse.h"
#include "patch_release.h"
#include "patch_text.h"

static int parse(const char *text, patch *p, char **err)
{
    return patch_parse(text, strlen(text), p, err);
}

static void expect_error(const char *text, const char *needle)
{
    patch p;
    char *err = NULL;
    assert_int_equal(parse(text, &p, &err), VT_ERR_INVALID);
    assert_non_null(err);
    if (!strstr(err, needle))
        fail_msg("error '%s' lacks '%s'", err, needle);
    free(err);
}

static void test_parse_all_operations(void **state)
{
    (void)state;
    const char *t = "*** Begin Patch\n"
                    "*** Add File: a.txt\n+one\n+two\n"
                    "*** Delete File: b.txt\n"
                    "*** Update File: c.txt\n*** Move to: d/c.txt\n"
                    "@@ def f():\n ctx\n-old\n+new\n"
                    "@@\n-x\n+y\n*** End of File\n"
                    "*** End Patch\n";
    patch p;
    char *err = NULL;
    assert_int_equal(parse(t, &p, &err), 0);
    assert_int_equal(p.nops, 3);
    assert_int_equal(p.ops[0].kind, PATCH_ADD);
    assert_string_equal(p.ops[0].path, "a.txt");
    assert_int_equal(p.ops[0].count, 2);
    assert_int_equal(p.ops[1].kind, PATCH_DELETE);
    assert_int_equal(p.ops[2].kind, PATCH_UPDATE);
    assert_string_equal(p.ops[2].move_to, "d/c.txt");
    assert_int_equal(p.ops[2].chunk_count, 2);
    const patch_chunk *c0 = &p.chunks[p.ops[2].chunk_first];
    assert_int_equal(c0->ctx_len, strlen("def f():"));
    assert_memory_equal(c0->ctx, "def f():", c0->ctx_len);
    assert_int_equal(c0->count, 3);
    assert_int_equal(c0->eof, 0);
    assert_int_equal(c0->line_no, 8);
    const patch_chunk *c1 = c0 + 1;
    assert_null(c1->ctx);
    assert_int_equal(c1->eof, 1);
    assert_int_equal(p.lines[c1->first].kind, '-');
    patch_free(&p);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n",
                 "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk "
                 "header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', "
                 "'*** Update File: {path}'");
    expect_error("*** Begin Patch\n*** End Patch\n", "No files were modified.");
    expect_error("", "the patch is empty");
    expect_error("hello\n*** End Patch\n", "line 1: The first line of the patch must be");
    expect_error("*** Begin Patch\n*** Add File: a\n+a\n", "must be '*** End Patch'");
    expect_error("*** Begin Patch\n*** Update File: a\n@@\n-x\nbad\n*** End Patch\n",
                 "line 5: Unexpected line found in update hunk: 'bad'");
    expect_error("*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch\n",
                 "line 3: Update hunk for 'a' does not contain any lines");
    expect_error("*** Begin Patch\n*** Add File:   \n*** End Patch\n", "needs a path");
    expect_error("*** Begin Patch\n*** Update File: a\n*** End Patch\n",
                 "Update file hunk for path 'a' is empty");
    expect_error("*** Begin Patch\n*** Add File: a\n+a\n*** End Patch\ntrailing\n",
                 "must be '*** End Patch'");
}

static void test_parse_leniency(void **state)
{
    (void)state;
    const char *ok[] = {
        "<<'EOF'\n*** Begin Patch\n*** Add File: a\n+a\n*** End Patch\nEOF\n",
        "<<\"EOF\"\n*** Begin Patch\n*** Add File: a\n+a\n*** End Patch\nEOF",
        "<<EOF\n*** Begin Patch\n*** Add File: a\n+a\n*** End Patch\nEOF\n\n",
        "\n  *** Begin Patch \n  *** Add File: a  \n+a\n\t*** End Patch\t\n\n\n",
        "*** Begin Patch\r\n*** Add File: a\r\n+a\r\n*** End Patch\r\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        patch p;
        char *err = NULL;
        if (parse(ok[i], &p, &err) != 0)
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(p.nops, 1);
        assert_string_equal(p.ops[0].path, "a");
        assert_int_equal(p.lines[p.ops[0].first].len, 1);
        patch_free(&p);
    }
    /* An unclosed heredoc is not unwrapped. */
    expect_error("<<EOF\n*** Begin Patch\n*** Add File: a\n+a\n*** End Patch\n",
                 "first line of the patch must be");
    /* Unified-diff range headers keep only their section text. */
    patch p;
    char *err = NULL;
    assert_int_equal(parse("*** Begin Patch\n*** Update File: a\n@@ -1,2 +1,2 @@ int main()\n"
                           "-x\n+y\n*** End Patch\n", &p, &err), 0);
    assert_int_equal(p.chunks[0].ctx_len, strlen("int main()"));
    patch_free(&p);
    assert_int_equal(parse("*** Begin Patch\n*** Update File: a\n@@ -3 +3 @@\n-x\n+y\n"
                           "*** End Patch\n", &p, &err), 0);
    assert_null(p.chunks[0].ctx);
    patch_free(&p);
}

static void test_text_split_endings(void **state)
{
    (void)state;
    const char *s = "a\r\nb\nc\rd";
    text_lines t;
    assert_int_equal(text_split(s, strlen(s), &t), 0);
    assert_int_equal(t.n, 4);
    assert_int_equal(t.v[0].eol, 2);
    assert_int_equal(t.v[1].eol, 1);
    assert_int_equal(t.v[2].eol, 1);
    assert_int_equal(t.v[3].eol, 0);
    assert_int_equal(t.v[3].len, 1);
    assert_memory_equal(t.eol, "\r\n", 2);
    text_lines_free(&t);
    assert_int_equal(text_split("", 0, &t), 0);
    assert_int_equal(t.n, 0);
    assert_memory_equal(t.eol, "\n", 1);
    text_lines_free(&t);
}

static void test_fold(void **state)
{
    (void)state;
    /* en dash, minus, curly quotes, no-break and thin spaces; invalid
     * UTF-8 bytes pass through. */
    const char *in = "  \xe2\x80\x93\xe2\x88\x92 \xe2\x80\x98x\xe2\x80\x99 \xe2\x80\x9cy\xe2\x80\x9d"
                     "\xc2\xa0z\xe2\x80\x89\xff\xc3\xa9 \xc2\xa0";
    size_t n;
    char *f = text_fold(in, strlen(in), &n);
    assert_string_equal(f, "-- 'x' \"y\" z \xff\xc3\xa9");
    assert_int_equal(n, strlen(f));
    free(f);
}

static size_t seek(const char *file, const char *const *pat, size_t n, size_t from, int eof)
{
    text_lines t;
    assert_int_equal(text_split(file, strlen(file), &t), 0);
    match_span sp[8];
    for (size_t i = 0; i < n; i++)
        sp[i] = (match_span){pat[i], strlen(pat[i])};
    matcher m;
    matcher_init(&m, &t);
    size_t at = (size_t)-1;
    int r = matcher_seek(&m, from, sp, n, eof, &at);
    matcher_free(&m);
    text_lines_free(&t);
    return r == 1 ? at : (size_t)-1;
}

/* The context index must find what the scan finds: the same pass wins
 * and the same (first) position, from every cursor, with and without
 * End of File.  A small alphabet of lines differing only in whitespace
 * makes every pass and many hash collisions occur. */
static void test_match_index_equals_scan(void **state)
{
    (void)state;
    static const char *const kinds[] = {"a", "a  ", " a", "b", "\tb ", "c", "", "  ", "a\xe2\x80\x94"};
    char file[4096];
    size_t o = 0;
    uint32_t seed = 7;
    for (int i = 0; i < 300; i++) {
        seed = seed * 1103515245u + 12345u;
        o += (size_t)snprintf(file + o, sizeof file - o, "%s\n", kinds[(seed >> 16) % 9]);
    }
    text_lines t;
    assert_int_equal(text_split(file, o, &t), 0);
    static const char *const pats[][3] = {{"a", "b", NULL},      {"a", "a", "c"}, {"b ", " c", NULL},
                                          {"", "a", NULL},        {"c", NULL, NULL},
                                          {"a-", NULL, NULL},     {"  b", "a", "a"}};
    for (size_t k = 0; k < sizeof pats / sizeof *pats; k++) {
        match_span sp[3];
        size_t n = 0;
        while (n < 3 && pats[k][n]) {
            sp[n] = (match_span){pats[k][n], strlen(pats[k][n])};
            n++;
        }
        for (size_t from = 0; from <= t.n; from += 7)
            for (int eof = 0; eof < 2; eof++) {
                matcher scan, ix;
                matcher_init(&scan, &t);
                matcher_init(&ix, &t);
                ix.scanned = (size_t)-1 / 2; /* build the index at once */
                size_t a1 = (size_t)-1, a2 = (size_t)-1;
                int r1 = matcher_seek(&scan, from, sp, n, eof, &a1);
                int r2 = matcher_seek(&ix, from, sp, n, eof, &a2);
                assert_non_null(ix.ix_start);
                assert_int_equal(r1, r2);
                assert_int_equal(a1, a2);
                matcher_free(&scan);
                matcher_free(&ix);
            }
    }
    text_lines_free(&t);
}

static void test_match_passes(void **state)
{
    (void)state;
    const char *f = "x  \ny\nx\n  y \n\xe2\x80\x9cq\xe2\x80\x9d\n";
    const char *x[] = {"x"};
    assert_int_equal(seek(f, x, 1, 0, 0), 2);        /* exact beats rstrip */
    const char *xy[] = {"x", "y"};
    assert_int_equal(seek(f, xy, 2, 0, 0), 0);       /* rstrip */
    const char *xy2[] = {"x", "y"};
    assert_int_equal(seek(f, xy2, 2, 1, 0), 2);      /* trim, from the cursor */
    const char *q[] = {"\"q\""};
    assert_int_equal(seek(f, q, 1, 0, 0), 4);        /* folded quotes */
    const char *none[] = {"zzz"};
    assert_int_equal(seek(f, none, 1, 0, 0), (size_t)-1);
    const char *end[] = {"x"};
    assert_int_equal(seek("x\ny\nx\n", end, 1, 0, 1), 2);
    assert_int_equal(seek("x\ny\n", end, 1, 0, 1), (size_t)-1);
    const char *big[] = {"a", "b", "c"};
    assert_int_equal(seek("a\nb\n", big, 3, 0, 0), (size_t)-1);
}

static char *run_update(const char *file, const char *patch_text, char **diff, char **err)
{
    patch p;
    assert_int_equal(parse(patch_text, &p, err), 0);
    file_result r;
    int rc = apply_update(&p, &p.ops[0], "f", file, strlen(file), &r, err);
    if (rc == 0)
        rc = file_result_flatten(&r); /* the pieces borrow from the patch */
    patch_free(&p);
    if (rc)
        return NULL;
    char *out = strndup(r.data, r.size);
    *diff = strdup(r.diff.content);
    file_result_free(&r);
    return out;
}

static void test_update_endings(void **state)
{
    (void)state;
    char *diff = NULL, *err = NULL;
    char *o = run_update("a\r\nb\nc", "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n+N\n"
                                      "*** End Patch\n", &diff, &err);
    assert_non_null(o);
    /* New lines take the first ending; the last line gains one. */
    assert_string_equal(o, "a\r\nB\r\nN\r\nc\r\n");
    assert_string_equal(diff, "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+N\n-c\n\\ No newline at end of file\n+c\n");
    free(o);
    free(diff);
    o = run_update("only", "*** Begin Patch\n*** Update File: f\n+more\n*** End Patch\n", &diff,
                   &err);
    assert_string_equal(o, "only\nmore\n");
    free(o);
    free(diff);
    o = run_update("x\n", "*** Begin Patch\n*** Update File: f\n-y\n+z\n*** End Patch\n", &diff,
                   &err);
    assert_null(o);
    assert_non_null(strstr(err, "Failed to find expected lines in f (chunk 1, patch line 3):\ny\n"));
    free(err);
}

/* Long unchanged stretches are copied whole and stand in the edit
 * script as one skipped run: the bytes (CRLF kept, the missing final
 * ending added) and the hunk numbers must be those of a line-by-line
 * build. */
static void test_update_long_runs(void **state)
{
    (void)state;
    char file[1024] = "", *diff = NULL, *err = NULL;
    size_t o = 0;
    for (int i = 1; i <= 30; i++)
        o += (size_t)snprintf(file + o, sizeof file - o, "l%d%s", i, i == 30 ? "" : "\r\n");
    char *out = run_update(file,
                           "*** Begin Patch\n*** Update File: f\n@@\n l10\n-l11\n+L11\n l12\n"
                           "@@\n l28\n l29\n-l30\n+L30\n*** End Patch\n",
                           &diff, &err);
    assert_non_null(out);
    char want[1024] = "";
    o = 0;
    for (int i = 1; i <= 30; i++)
        o += (size_t)snprintf(want + o, sizeof want - o, "%s%d\r\n", i == 11 || i == 30 ? "L" : "l",
                              i);
    assert_string_equal(out, want);
    assert_string_equal(diff, "@@ -8,7 +8,7 @@\n l8\n l9\n l10\n-l11\n+L11\n l12\n l13\n l14\n"
                              "@@ -27,4 +27,4 @@\n l27\n l28\n l29\n-l30\n"
                              "\\ No newline at end of file\n+L30\n");
    free(out);
    free(diff);
    /* An untouched last line without an ending, after a skipped run. */
    out = run_update("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm",
                     "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End Patch\n", &diff,
                     &err);
    assert_non_null(out);
    assert_string_equal(out, "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n");
    assert_string_equal(diff, "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n"
                              "@@ -10,4 +10,4 @@\n j\n k\n l\n-m\n\\ No newline at end of file\n+m\n");
    free(out);
    free(diff);
}

/* An update's content as pieces of the old text and the patch: a
 * kept run stays one piece where it was, and file_result_same tells
 * a real change from a rewrite of the same bytes. */
static void test_update_pieces(void **state)
{
    (void)state;
    char *err = NULL;
    const char *file = "a\nb\nc\nd\ne\n";
    patch p;
    assert_int_equal(parse("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n c\n"
                           "*** End Patch\n",
                           &p, &err),
                     0);
    file_result r;
    assert_int_equal(apply_update(&p, &p.ops[0], "f", file, strlen(file), &r, &err), 0);
    assert_int_equal(r.size, strlen(file));
    assert_null(r.data);
    assert_int_equal(r.nseg, 4); /* "a\n", "B", "\n", "c\nd\ne\n" */
    assert_ptr_equal(r.seg[0].iov_base, file);
    assert_ptr_equal(r.seg[3].iov_base, file + 4);
    assert_int_equal(r.seg[3].iov_len, 6);
    assert_false(file_result_same(&r, file, strlen(file)));
    assert_int_equal(file_result_flatten(&r), 0);
    assert_string_equal(r.data, "a\nB\nc\nd\ne\n");
    file_result_free(&r);
    patch_free(&p);
    /* The same line removed and added back: the same bytes. */
    assert_int_equal(parse("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+b\n c\n"
                           "*** End Patch\n",
                           &p, &err),
                     0);
    assert_int_equal(apply_update(&p, &p.ops[0], "f", file, strlen(file), &r, &err), 0);
    assert_true(file_result_same(&r, file, strlen(file)));
    assert_false(file_result_same(&r, file, strlen(file) - 1));
    file_result_free(&r);
    patch_free(&p);
}

static void test_diff_hunks_and_truncation(void **state)
{
    (void)state;
    /* Two changes 10 lines apart: two hunks; 6 apart: one. */
    char file[4096] = "", pt[4096];
    for (int i = 1; i <= 30; i++)
        sprintf(file + strlen(file), "l%d\n", i);
    char *diff = NULL, *err = NULL;
    char *o = run_update(file, "*** Begin Patch\n*** Update File: f\n@@\n-l5\n+L5\n@@\n-l15\n"
                               "+L15\n*** End Patch\n", &diff, &err);
    assert_non_null(o);
    assert_string_equal(diff, "@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n"
                              "@@ -12,7 +12,7 @@\n l12\n l13\n l14\n-l15\n+L15\n l16\n l17\n l18\n");
    free(o);
    free(diff);
    o = run_update(file, "*** Begin Patch\n*** Update File: f\n@@\n-l5\n+L5\n@@\n-l12\n"
                         "+L12\n*** End Patch\n", &diff, &err);
    assert_non_null(strstr(diff, "@@ -2,14 +2,14 @@\n"));
    assert_null(strstr(diff + 1, "@@ -"));
    free(o);
    free(diff);
    /* A 300-line addition is cut to 80 + marker + 80 lines. */
    strcpy(pt, "*** Begin Patch\n*** Add File: big\n");
    patch p;
    char *big = malloc(300 * 16 + 64);
    strcpy(big, pt);
    for (int i = 0; i < 300; i++)
        sprintf(big + strlen(big), "+%d\n", i);
    strcat(big, "*** End Patch\n");
    assert_int_equal(parse(big, &p, &err), 0);
    file_result r;
    assert_int_equal(apply_add(&p, &p.ops[0], &r), 0);
    assert_int_equal(r.diff.additions, 300);
    assert_true(r.diff.truncated);
    assert_int_equal(r.diff.omitted, 301 - 160);
    size_t lines = 0;
    for (const char *c = r.diff.content; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 161);
    assert_non_null(strstr(r.diff.content, "\n... 141 lines omitted ...\n+220\n"));
    assert_non_null(strstr(r.diff.content, "+299\n"));
    file_result_free(&r);
    patch_free(&p);
    free(big);
}

static void test_path_check(void **state)
{
    (void)state;
    struct { const char *in, *out; int rc; } cases[] = {
        {"a/b.txt", "a/b.txt", 0},   {"./a//b/./c", "a/b/c", 0}, {"a/../b", "b", 0},
        {"../x", NULL, VT_ERR_OUTSIDE}, {"a/../../x", NULL, VT_ERR_OUTSIDE},
        {"/etc/passwd", NULL, VT_ERR_OUTSIDE}, {"", NULL, VT_ERR_INVALID},
        {".", NULL, VT_ERR_INVALID}, {"a\tb", NULL, VT_ERR_INVALID},
        {"a\x7f", NULL, VT_ERR_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *norm = NULL, *err = NULL;
        int rc = fs_path_check(cases[i].in, &norm, &err);
        assert_int_equal(rc, cases[i].rc);
        if (cases[i].out)
            assert_string_equal(norm, cases[i].out);
        else
            assert_non_null(err);
        free(norm);
        free(err);
    }
}

/* The confinement rules, with openat2 and with the O_NOFOLLOW walk. */
static void check_fs(int walk)
{
    fs_force_walk(walk);
    char dir[] = "/tmp/vtpatch-fs.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "cd %s && printf 'a\\n' > a.txt && mkdir d && printf 'x\\n' > d/x.txt && "
             "ln -s a.txt ln && ln -s d dl && ln -s /etc out && chmod 750 a.txt", dir);
    assert_int_equal(system(cmd), 0);
    int root = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(root >= 0);
    char *data = NULL, *err = NULL;
    size_t len;
    mode_t mode;
    assert_int_equal(fs_read(root, "a.txt", &data, &len, &mode, &err), 0);
    assert_int_equal(len, 2);
    assert_int_equal(mode, 0750);
    pbuf_free(data);
    const char *refused[] = {"ln", "dl/x.txt", "out/hostname"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(fs_read(root, refused[i], &data, &len, &mode, &err), VT_ERR_DENIED);
        assert_non_null(strstr(err, "symbolic link"));
        free(err);
    }
    assert_int_equal(fs_read(root, "d", &data, &len, &mode, &err), VT_ERR_INVALID);
    free(err);
    assert_int_equal(fs_read(root, "none", &data, &len, &mode, &err), VT_ERR_NOT_FOUND);
    assert_int_equal(fs_absent(root, "d/new.txt", &err), 0);
    assert_int_equal(fs_absent(root, "new/deeper/f.txt", &err), 0);
    assert_int_equal(fs_absent(root, "a.txt", &err), VT_ERR_EXISTS);
    assert_int_equal(fs_absent(root, "ln", &err), VT_ERR_EXISTS);
    assert_int_equal(fs_absent(root, "dl/new.txt", &err), VT_ERR_DENIED);
    free(err);
    assert_true(fs_absent(root, "a.txt/x", &err) < 0);
    free(err);
    /* Writing creates missing directories and records them. */
    fs_created_dirs dirs = {0};
    assert_int_equal(fs_write(root, "n/m/f.txt", "hi\n", 3, -1, 1, &dirs, &err), 0);
    assert_int_equal(dirs.n, 2);
    assert_string_equal(dirs.v[0], "n");
    assert_string_equal(dirs.v[1], "n/m");
    assert_int_equal(fs_write(root, "n/m/f.txt", "x", 1, -1, 1, NULL, &err), VT_ERR_EXISTS);
    free(err);
    assert_int_equal(fs_write(root, "dl/y.txt", "x", 1, -1, 0, &dirs, &err), VT_ERR_DENIED);
    free(err);
    char *tmp = NULL;
    fs_dircache cache = {0};
    int kept = -1;
    struct iovec parts[] = {{"ne", 2}, {"", 0}, {"w\n", 2}};
    assert_int_equal(
        fs_stage(root, "d/x.txt", parts, 3, 0640, 0, NULL, &cache, &tmp, &kept, &err), 0);
    assert_true(kept >= 0);
    assert_int_equal(fs_sync_paths(root, &tmp, &kept, 1, &err), 0);
    close(kept);
    assert_int_equal(fs_sync_paths(root, &tmp, NULL, 1, &err), 0);
    assert_int_equal(fs_publish(root, tmp, "d/x.txt", 0, &cache, &err), 0);
    assert_int_equal(cache.n, 1);
    fs_dircache_free(&cache);
    free(tmp);
    assert_int_equal(fs_read(root, "d/x.txt", &data, &len, &mode, &err), 0);
    assert_memory_equal(data, "new\n", 4);
    assert_int_equal(mode, 0640);
    pbuf_free(data);
    /* More pieces than one writev takes: all written, in order. */
    enum { PIECES = 3000 };
    struct iovec *many = malloc(PIECES * sizeof *many);
    char *want = malloc(PIECES);
    assert_non_null(many);
    assert_non_null(want);
    for (size_t i = 0; i < PIECES; i++) {
        want[i] = (char)('a' + i % 26);
        many[i] = (struct iovec){want + i, i % 7 ? 1 : 0};
    }
    /* Whole, and in slices handed to the disk early (fs_writev_all):
     * slices that end inside a piece and hold several. */
    static const char *const many_names[] = {"d/many.txt", "d/sliced.txt"};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(fs_stage(root, many_names[k], many, PIECES, -1, k ? 5 : 0, NULL, NULL,
                                  &tmp, NULL, &err),
                         0);
        assert_int_equal(fs_publish(root, tmp, many_names[k], 1, NULL, &err), 0);
        free(tmp);
        assert_int_equal(fs_read(root, many_names[k], &data, &len, &mode, &err), 0);
        size_t o = 0;
        for (size_t i = 0; i < PIECES; i++)
            if (i % 7)
                assert_int_equal(data[o++], want[i]);
        assert_int_equal(len, o);
        pbuf_free(data);
    }
    free(many);
    free(want);
    struct iovec long_piece[] = {{"0123456789", 10}, {"", 0}, {"abc", 3}};
    assert_int_equal(
        fs_stage(root, "d/long.txt", long_piece, 3, -1, 4, NULL, NULL, &tmp, NULL, &err), 0);
    assert_int_equal(fs_publish(root, tmp, "d/long.txt", 1, NULL, &err), 0);
    free(tmp);
    assert_int_equal(fs_read(root, "d/long.txt", &data, &len, &mode, &err), 0);
    assert_int_equal(len, 13);
    assert_memory_equal(data, "0123456789abc", 13);
    pbuf_free(data);
    /* The file is made with its mode; one the umask narrows is set after. */
    mode_t was = umask(022);
    assert_int_equal(
        fs_stage(root, "d/open.txt", parts, 3, 0666, 0, NULL, NULL, &tmp, NULL, &err), 0);
    umask(was);
    assert_int_equal(fs_publish(root, tmp, "d/open.txt", 1, NULL, &err), 0);
    free(tmp);
    assert_int_equal(fs_read(root, "d/open.txt", &data, &len, &mode, &err), 0);
    assert_int_equal(mode, 0666);
    pbuf_free(data);
    assert_int_equal(fs_unlink(root, "n/m/f.txt", &err), 0);
    fs_remove_dirs(root, &dirs);
    fs_created_dirs_free(&dirs);
    assert_int_equal(fs_absent(root, "n", &err), 0);
    close(root);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    fs_force_walk(0);
}

/* Whole-file buffers: small ones from malloc, large ones mapped (huge
 * pages where offered); every byte usable, growth keeps the content and
 * crosses from one kind to the other; a file of several megabytes reads
 * back whole through fs_read. */
static void test_pbuf(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 4096, (1u << 20) - 1, 1u << 20, (3u << 20) + 17};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *b = pbuf_alloc(sizes[i]);
        assert_non_null(b);
        memset(b, 'x', sizes[i]);
        pbuf_free(b);
    }
    pbuf_free(NULL);
    size_t cap = 100;
    char *b = pbuf_alloc(cap);
    assert_non_null(b);
    memcpy(b, "keep me", 7);
    assert_int_equal(pbuf_grow(&b, &cap, 7, 50), 0);
    assert_int_equal(cap, 100);
    assert_int_equal(pbuf_grow(&b, &cap, 7, (2u << 20) + 5), 0);
    assert_true(cap >= (2u << 20) + 5);
    assert_memory_equal(b, "keep me", 7);
    b[cap - 1] = 'z';
    pbuf_free(b);
    /* The freed mapping serves the next large buffer that fits; a larger
     * one is mapped anew; both freed, the larger is kept; all usable. */
    char *x = pbuf_alloc(3u << 20), *y = pbuf_alloc(5u << 20);
    assert_non_null(x);
    assert_non_null(y);
    memset(x, 'x', 3u << 20);
    memset(y, 'y', 5u << 20);
    pbuf_free(x);
    pbuf_free(y);
    char *z = pbuf_alloc(4u << 20);
    assert_non_null(z);
    memset(z, 'z', 4u << 20);
    pbuf_free(z);
    pbuf_fini();

    char dir[] = "/tmp/vtpatch-pbuf-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/big", dir);
    size_t n = (5u << 20) + 3;
    char *want = malloc(n);
    assert_non_null(want);
    for (size_t i = 0; i < n; i++)
        want[i] = (char)('a' + (i * 7) % 26);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(want, 1, n, f), n);
    fclose(f);
    int root = open(dir, O_RDONLY | O_DIRECTORY);
    char *data = NULL, *err = NULL;
    size_t len = 0;
    mode_t mode;
    assert_int_equal(fs_read(root, "big", &data, &len, &mode, &err), 0);
    assert_int_equal(len, n);
    assert_memory_equal(data, want, n);
    assert_int_equal(data[n], '\0');
    pbuf_free(data);
    free(want);
    close(root);
    unlink(path);
    rmdir(dir);
}

/* Which mounts let a replacing rename go without an fsync: only ext4
 * that keeps the data before the rename (data=ordered or journal, with
 * auto_da_alloc), judged from the line of the device asked about. */
static void test_mountinfo_ordered(void **state)
{
    (void)state;
    static const char mi[] =
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
        "28 27 254:1 / /wb rw shared:1 - ext4 /dev/vdb rw,data=writeback\n"
        "29 27 254:2 / /nada rw - ext4 /dev/vdc rw,noauto_da_alloc,data=ordered\n"
        "30 27 254:3 / /jrnl rw - ext4 /dev/vdd rw,data=journal\n"
        "31 27 0:40 / /x rw - xfs /dev/vde rw,attr2\n"
        "32 27 0:41 / /b rw - btrfs /dev/vdf rw,space_cache=v2\n"
        "33 27 254:4 / /t rw - tmpfs tmpfs rw\n";
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 0), 1);
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 1), 0);
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 2), 0);
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 3), 1);
    assert_int_equal(fs_mountinfo_ordered(mi, 0, 40), 0);
    assert_int_equal(fs_mountinfo_ordered(mi, 0, 41), 0);
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 4), 0);
    assert_int_equal(fs_mountinfo_ordered(mi, 254, 9), 0); /* not mounted */
    assert_int_equal(fs_mountinfo_ordered("", 254, 0), 0);
    assert_int_equal(fs_mountinfo_ordered("27 1 254:0 / / rw - ext4", 254, 0), 0); /* cut short */
    /* A real directory: a definite answer, the same twice (cached). */
    fs_order_cache c = {0};
    int fd = open(".", O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    int a = fs_sync_need(fd, &c);
    assert_true(a == FS_SYNC_ALWAYS || a == FS_RENAME_ORDERED || a == FS_VOLATILE);
    assert_int_equal(c.known, 1);
    assert_int_equal(fs_sync_need(fd, &c), a);
    close(fd);
    /* A filesystem in memory (tmpfs at /dev/shm, where there is one):
     * nothing of it survives a crash, so nothing is synced; the cache
     * of another device does not answer for it. */
    struct statfs sf;
    fd = open("/dev/shm", O_RDONLY | O_DIRECTORY);
    if (fd >= 0 && fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC)
        assert_int_equal(fs_sync_need(fd, &c), FS_VOLATILE);
    if (fd >= 0)
        close(fd);
}

/* Descriptors handed to release_later are all closed once it is waited
 * for, including a batch that replaced a running one. */
static void test_release_later(void **state)
{
    (void)state;
    int keep[4];
    for (int round = 0; round < 2; round++) {
        int *fds = malloc(3 * sizeof *fds);
        assert_non_null(fds);
        fds[0] = open(".", O_PATH | O_CLOEXEC);
        fds[1] = -1;
        fds[2] = open(".", O_PATH | O_CLOEXEC);
        assert_true(fds[0] >= 0 && fds[2] >= 0);
        keep[2 * round] = fds[0];
        keep[2 * round + 1] = fds[2];
        release_later(fds, 3);
    }
    release_wait();
    for (int i = 0; i < 4; i++)
        assert_int_equal(fcntl(keep[i], F_GETFD), -1);
    release_wait(); /* nothing running: returns */
}

static void test_fs_openat2(void **state)
{
    (void)state;
    check_fs(0);
}

static void test_fs_walk_fallback(void **state)
{
    (void)state;
    check_fs(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_all_operations),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_leniency),
        cmocka_unit_test(test_text_split_endings),
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_match_passes),
        cmocka_unit_test(test_match_index_equals_scan),
        cmocka_unit_test(test_update_endings),
        cmocka_unit_test(test_update_long_runs),
        cmocka_unit_test(test_update_pieces),
        cmocka_unit_test(test_diff_hunks_and_truncation),
        cmocka_unit_test(test_path_check),
        cmocka_unit_test(test_mountinfo_ordered),
        cmocka_unit_test(test_release_later),
        cmocka_unit_test(test_pbuf),
        cmocka_unit_test(test_fs_openat2),
        cmocka_unit_test(test_fs_walk_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
