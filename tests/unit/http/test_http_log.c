/* The access log (http_log.c): each request one line that is one JSON
 * object, whatever the client put in the fields it names (path, method,
 * tool): quotes, backslashes and control characters are escaped, never
 * a second line or a field of the client's making. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include "http_log.h"

/* The log's text after writing `e` to a fresh file. */
static char *log_of(const http_log_entry *e)
{
    char path[] = "/tmp/vthost-http-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(http_log_open(path), 0);
    http_log_write(e);
    http_log_close();
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    char *text = calloc(1, 8192);
    size_t n = fread(text, 1, 8191, f);
    text[n] = 0;
    fclose(f);
    unlink(path);
    return text;
}

static void test_fields_escaped_one_line(void **state)
{
    (void)state;
    const char *path = "/mcp\",\"status\":200,\"x\":\"\n{\"forged\":1}\\";
    const char *tool = "t\001\037\x7f\t\"\xc3\xa9";
    http_log_entry e = {.remote = "127.0.0.1",
                        .method = "POST",
                        .path = path,
                        .status = 401,
                        .session = "",
                        .rpc = "tools/call",
                        .tool = tool,
                        .decision = "deny",
                        .ms = 12.34};
    char *text = log_of(&e);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    assert_string_equal(nl + 1, ""); /* one line */
    *nl = 0;
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "path")->valuestring, path);
    assert_string_equal(cJSON_GetObjectItem(o, "tool")->valuestring, tool);
    assert_int_equal(cJSON_GetObjectItem(o, "status")->valueint, 401);
    assert_null(cJSON_GetObjectItem(o, "forged"));
    assert_null(cJSON_GetObjectItem(o, "session")); /* empty: left out */
    assert_string_equal(cJSON_GetObjectItem(o, "decision")->valuestring, "deny");
    assert_true(cJSON_GetObjectItem(o, "ms")->valuedouble > 12.2);
    assert_true(cJSON_GetObjectItem(o, "ms")->valuedouble < 12.4);
    assert_non_null(cJSON_GetObjectItem(o, "time"));
    assert_int_equal(cJSON_GetArraySize(o), 9);
    cJSON_Delete(o);
    free(text);
}

static void test_whole_ms_and_long_fields(void **state)
{
    (void)state;
    char tool[64];
    memset(tool, '"', sizeof tool - 1); /* every byte escaped */
    tool[sizeof tool - 1] = 0;
    http_log_entry e = {.remote = "::1", .method = "GET", .path = "/mcp", .status = 200,
                        .tool = tool, .ms = 3.0};
    char *text = log_of(&e);
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "tool")->valuestring, tool);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(o, "ms")));
    assert_non_null(strstr(text, "\"ms\":3}"));
    cJSON_Delete(o);
    free(text);
}

/* Logged to stderr, a line starts with its prefix (other stderr lines
 * are the server's own); logged to a file, it does not. */
static void test_stderr_line_prefixed(void **state)
{
    (void)state;
    char path[] = "/tmp/vthost-http-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
    assert_int_equal(http_log_open(NULL), 0);
    http_log_entry e = {.remote = "127.0.0.1", .method = "GET", .path = "/healthz", .status = 200};
    http_log_write(&e);
    http_log_close();
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    unlink(path);
    const char *prefix = "vthost access: ";
    assert_int_equal(strncmp(text, prefix, strlen(prefix)), 0);
    cJSON *o = cJSON_Parse(text + strlen(prefix));
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "path")->valuestring, "/healthz");
    cJSON_Delete(o);

    http_log_entry plain = {.path = "/mcp", .status = 200};
    char *file_text = log_of(&plain);
    assert_int_equal(file_text[0], '{');
    free(file_text);
}

/* Lines are gathered and written together: from 8 threads, far more than
 * the gathering buffer holds, every line reaches the file whole, each
 * thread's in the order it wrote them, by the time the log is closed. */
#define THREADS 8
#define PER_THREAD 3000

static void *writer(void *arg)
{
    char path[32];
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(path, sizeof path, "/t%d/%d", (int)(intptr_t)arg, i);
        http_log_entry e = {.remote = "127.0.0.1", .method = "POST", .path = path, .status = 200};
        http_log_write(&e);
    }
    return NULL;
}

static void test_many_threads_none_lost_in_order(void **state)
{
    (void)state;
    char path[] = "/tmp/vthost-http-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(http_log_open(path), 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, writer, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    http_log_close();
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    int next[THREADS] = {0};
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o); /* whole, never two lines run together */
        int th = -1, seq = -1;
        assert_int_equal(sscanf(cJSON_GetObjectItem(o, "path")->valuestring, "/t%d/%d", &th, &seq),
                         2);
        assert_true(th >= 0 && th < THREADS);
        assert_int_equal(seq, next[th]); /* in its thread's order, none skipped */
        next[th]++;
        n++;
        cJSON_Delete(o);
    }
    fclose(f);
    unlink(path);
    assert_int_equal(n, THREADS * PER_THREAD);
}

/* A line is written without a close: the gathered lines go out within
 * moments (10 ms) of the first of them. */
static void test_line_out_without_close(void **state)
{
    (void)state;
    char path[] = "/tmp/vthost-http-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(http_log_open(path), 0);
    http_log_entry e = {.remote = "::1", .method = "GET", .path = "/healthz", .status = 200};
    http_log_write(&e);
    char text[4096];
    ssize_t got = 0;
    for (int i = 0; i < 200 && got <= 0; i++) { /* up to 2 s on a loaded machine */
        usleep(10 * 1000);
        got = pread(fd, text, sizeof text - 1, 0);
    }
    assert_true(got > 0);
    text[got] = 0;
    assert_non_null(strstr(text, "\"path\":\"/healthz\""));
    http_log_close();
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_escaped_one_line),
        cmocka_unit_test(test_whole_ms_and_long_fields),
        cmocka_unit_test(test_stderr_line_prefixed),
        cmocka_unit_test(test_many_threads_none_lost_in_order),
        cmocka_unit_test(test_line_out_without_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
