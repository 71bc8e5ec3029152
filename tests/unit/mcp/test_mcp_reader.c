/* The MCP line reader: framing, CR handling, oversized lines skipped
 * with bounded memory, and reading from a real pipe. */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "mcp_reader.h"

static void expect_line(mcp_reader *r, const char *want)
{
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(r, &line, &len), MCP_READ_LINE);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(line, want, len);
}

static void test_lines_and_cr(void **state)
{
    (void)state;
    const char in[] = "one\r\ntwo\n\nthree";
    mcp_reader r;
    mcp_reader_init_mem(&r, in, sizeof in - 1, 0);
    expect_line(&r, "one");
    expect_line(&r, "two");
    expect_line(&r, "");
    expect_line(&r, "three");  /* unterminated final line */
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
    mcp_reader_free(&r);
}

static void test_too_long_skipped(void **state)
{
    (void)state;
    /* max 100: a 300-byte line is reported once and skipped whole. */
    size_t n = 300;
    char *in = malloc(n + 32);
    memset(in, 'x', n);
    strcpy(in + n, "\nafter\n");
    mcp_reader r;
    mcp_reader_init_mem(&r, in, strlen(in), 100);
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_TOO_LONG);
    expect_line(&r, "after");
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
    /* Memory stayed near the limit plus one chunk, not the line size. */
    assert_true(r.cap <= 256 * 1024);
    mcp_reader_free(&r);
    free(in);
}

static void test_too_long_big_stays_bounded(void **state)
{
    (void)state;
    /* 5 MB of one line against a 64 KiB limit: memory stays bounded. */
    size_t n = 5 * 1000 * 1000;
    char *in = malloc(n + 16);
    memset(in, 'y', n);
    strcpy(in + n, "\nok");
    mcp_reader r;
    mcp_reader_init_mem(&r, in, strlen(in), 64 * 1024);
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_TOO_LONG);
    expect_line(&r, "ok");
    assert_true(r.cap <= 512 * 1024);
    mcp_reader_free(&r);
    free(in);
}

static void test_limit_exact_fits(void **state)
{
    (void)state;
    char in[130];
    memset(in, 'z', 100);
    strcpy(in + 100, "\r\nnext\n");
    mcp_reader r;
    mcp_reader_init_mem(&r, in, strlen(in), 101); /* 100 + CR fits */
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_LINE);
    assert_int_equal(len, 100);
    expect_line(&r, "next");
    mcp_reader_free(&r);
}

static void test_pipe_and_wake(void **state)
{
    (void)state;
    int p[2], w[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pipe(w), 0);
    assert_int_equal(write(p[1], "a\nb", 3), 3);
    mcp_reader r;
    mcp_reader_init_fd(&r, p[0], w[0], 0);
    expect_line(&r, "a");
    /* The wake descriptor interrupts a read that would block. */
    assert_int_equal(write(w[1], "x", 1), 1);
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_WAKE);
    mcp_reader_free(&r);
    close(p[0]);
    close(p[1]);
    close(w[0]);
    close(w[1]);
}

static void test_pipe_eof(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "x\ny\n", 4), 4);
    close(p[1]);
    mcp_reader r;
    mcp_reader_init_fd(&r, p[0], -1, 0);
    expect_line(&r, "x");
    expect_line(&r, "y");
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
    mcp_reader_free(&r);
    close(p[0]);
}

/* With a caller that waits for input (`ready`): one read per 1 taken,
 * MCP_READ_AGAIN instead of a wait, a partial line kept across. */
static void test_ready_reads_once_per_event(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    atomic_int ready;
    atomic_init(&ready, 0);
    mcp_reader r;
    mcp_reader_init_fd(&r, p[0], -1, 0);
    r.ready = &ready;
    const char *line;
    size_t len;
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_AGAIN);
    assert_int_equal(write(p[1], "one\ntw", 6), 6);
    assert_false(mcp_reader_has_line(&r));
    /* bytes there but no event taken: nothing is read */
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_AGAIN);
    atomic_store(&ready, 1);
    expect_line(&r, "one");
    assert_int_equal(atomic_load(&ready), 0);
    assert_false(mcp_reader_has_line(&r));
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_AGAIN);
    assert_int_equal(write(p[1], "o\nthree\n", 8), 8);
    atomic_store(&ready, 1);
    expect_line(&r, "two");
    assert_true(mcp_reader_has_line(&r)); /* "three" read with it */
    expect_line(&r, "three");
    close(p[1]);
    atomic_store(&ready, 1);
    assert_int_equal(mcp_reader_next(&r, &line, &len), MCP_READ_EOF);
    assert_true(mcp_reader_has_line(&r));
    mcp_reader_free(&r);
    close(p[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_and_cr),
        cmocka_unit_test(test_too_long_skipped),
        cmocka_unit_test(test_too_long_big_stays_bounded),
        cmocka_unit_test(test_limit_exact_fits),
        cmocka_unit_test(test_pipe_and_wake),
        cmocka_unit_test(test_pipe_eof),
        cmocka_unit_test(test_ready_reads_once_per_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
