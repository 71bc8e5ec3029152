/* Output budget: token estimate, head/tail cuts on character boundaries,
 * and the spool keeping the complete output with bounded memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "spool.h"

static void test_tokens(void **st)
{
    (void)st;
    assert_int_equal(budget_tokens(0), 0);
    assert_int_equal(budget_tokens(1), 1);
    assert_int_equal(budget_tokens(4), 1);
    assert_int_equal(budget_tokens(5), 2);
    assert_int_equal(budget_tokens(40000), 10000);
    assert_int_equal(budget_tokens(40001), 10001);
}

static void test_under_budget_whole(void **st)
{
    (void)st;
    size_t omitted = 99;
    char *p = budget_preview("hello", 5, NULL, 0, 5, 2, &omitted);
    assert_string_equal(p, "hello");
    assert_int_equal(omitted, 0);
    free(p);
    /* exactly at the budget (8 bytes = 2 tokens) is not cut */
    p = budget_preview("abcdefgh", 8, NULL, 0, 8, 2, &omitted);
    assert_string_equal(p, "abcdefgh");
    assert_int_equal(omitted, 0);
    free(p);
}

static void test_cut_counts(void **st)
{
    (void)st;
    /* 100 bytes at a 5-token (20-byte) budget: 10 head + 10 tail bytes. */
    char text[101];
    for (int i = 0; i < 100; i++)
        text[i] = (char)('a' + i % 26);
    text[100] = '\0';
    size_t omitted;
    char *p = budget_preview(text, 100, text, 100, 100, 5, &omitted);
    assert_int_equal(omitted, 25 - 5);
    assert_non_null(strstr(p, "[... 20 tokens omitted"));
    assert_memory_equal(p, "abcdefghij\n", 11);
    size_t n = strlen(p);
    assert_memory_equal(p + n - 11, "\nmnopqrstuv", 11);
    free(p);
}

static void test_cut_multibyte(void **st)
{
    (void)st;
    /* "ж" is 2 bytes; an odd cut point must move to a boundary. */
    char text[64];
    for (int i = 0; i < 30; i++)
        memcpy(text + 2 * i, "\xD0\xB6", 2);
    size_t omitted;
    /* budget 3 tokens = 12 bytes -> head 6, tail 6 */
    char *p = budget_preview(text, 60, text, 60, 60, 3, &omitted);
    assert_memory_equal(p, "жжж\n", strlen("жжж\n"));
    free(p);
    /* 4-byte emoji with a 2-token budget: head 4 = one emoji */
    char emoji[40];
    for (int i = 0; i < 10; i++)
        memcpy(emoji + 4 * i, "\xF0\x9F\x98\x80", 4);
    p = budget_preview(emoji, 40, emoji + 1, 39, 40, 2, &omitted);
    assert_memory_equal(p, "\xF0\x9F\x98\x80\n", 5);
    /* the tail started mid-character and skipped to the next one */
    size_t n = strlen(p);
    assert_memory_equal(p + n - 5, "\n\xF0\x9F\x98\x80", 5);
    free(p);
}

static void test_invalid_utf8_replaced(void **st)
{
    (void)st;
    size_t omitted;
    char *p = budget_preview("a\xFF" "b", 3, NULL, 0, 3, 10, &omitted);
    assert_string_equal(p, "a\xEF\xBF\xBD" "b");
    free(p);
    /* NUL bytes stay visible instead of ending the string */
    p = budget_preview("a\0b", 3, NULL, 0, 3, 10, &omitted);
    assert_string_equal(p, "a\xE2\x90\x80" "b");
    free(p);
}

static void test_spool_streams(void **st)
{
    (void)st;
    char dir[] = "/tmp/vthost-spool-XXXXXX";
    assert_non_null(mkdtemp(dir));
    vt_spool *s = spool_new(dir, "tool", "7", 10); /* 40-byte budget */
    char chunk[1000];
    memset(chunk, 'x', sizeof chunk);
    chunk[0] = 'A';
    for (int i = 0; i < 1000; i++)
        assert_int_equal(spool_append(s, chunk, sizeof chunk), 0);
    assert_int_equal(spool_append(s, "END", 3), 0);
    cJSON *r = cJSON_CreateObject();
    assert_int_equal(spool_finish(s, r, NULL), 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "truncated")));
    assert_int_equal(cJSON_GetObjectItem(r, "original_token_count")->valuedouble,
                     (1000 * 1000 + 3 + 3) / 4);
    const char *out = cJSON_GetObjectItem(r, "output")->valuestring;
    assert_int_equal(out[0], 'A');
    assert_string_equal(out + strlen(out) - 3, "END");
    const char *rel = cJSON_GetObjectItem(r, "spool_path")->valuestring;
    assert_string_equal(rel, ".vtcode/context/tool_outputs/tool-7.txt");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 1000 * 1000 + 3);
    spool_free(s);
    cJSON_Delete(r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_spool_small_no_file(void **st)
{
    (void)st;
    char dir[] = "/tmp/vthost-spool-XXXXXX";
    assert_non_null(mkdtemp(dir));
    vt_spool *s = spool_new(dir, "tool", "8", 10);
    assert_int_equal(spool_append(s, "short", 5), 0);
    cJSON *r = cJSON_CreateObject();
    assert_int_equal(spool_finish(s, r, NULL), 0);
    assert_string_equal(cJSON_GetObjectItem(r, "output")->valuestring, "short");
    assert_null(cJSON_GetObjectItem(r, "truncated"));
    assert_null(cJSON_GetObjectItem(r, "spool_path"));
    char path[512];
    snprintf(path, sizeof path, "%s/.vtcode", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    spool_free(s);
    cJSON_Delete(r);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_under_budget_whole),
        cmocka_unit_test(test_cut_counts),
        cmocka_unit_test(test_cut_multibyte),
        cmocka_unit_test(test_invalid_utf8_replaced),
        cmocka_unit_test(test_spool_streams),
        cmocka_unit_test(test_spool_small_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
