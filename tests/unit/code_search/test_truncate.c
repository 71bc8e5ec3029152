/* A file cut short by another process while code_search has it mapped:
 * the pages past its new end raise SIGBUS, which must neither kill the
 * process nor lose the other files' results.  A thread truncates a large
 * file and writes it back in a loop while searches run; every search
 * completes with the small file's hit, and the large file's hit is found
 * once the file stays whole. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cs_test_util.h"

/* Large enough to be mapped, its last page partly used (mapped reads
 * need room for the vectorised search's overreach there). */
#define BIG_SIZE (300 * 1024 + 100)

typedef struct cutter {
    char *path;
    const char *data;
    atomic_int stop;
    atomic_long cuts;
} cutter;

static void *cut_loop(void *arg)
{
    cutter *c = arg;
    int fd = open(c->path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    while (!atomic_load(&c->stop)) {
        /* One page left: the mapping's later pages now fault. */
        if (ftruncate(fd, 4096) != 0 || pwrite(fd, c->data, BIG_SIZE, 0) != BIG_SIZE)
            break;
        atomic_fetch_add(&c->cuts, 1);
    }
    close(fd);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_truncated_while_mapped(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    char *data = malloc(BIG_SIZE);
    assert_non_null(data);
    for (size_t i = 0; i < BIG_SIZE; i++)
        data[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 23);
    memcpy(data + BIG_SIZE - 40, "\nint needle_word;\n", 18);
    tu_write(root, "big.c", data, BIG_SIZE);
    tu_write(root, "small.c", "int needle_word;\n", -1);
    cutter c = {.data = data};
    assert_true(asprintf(&c.path, "%s/big.c", root) > 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cut_loop, &c), 0);
    int searches = 0, with_big = 0;
    for (double end = now() + 1.5; now() < end || searches < 20; searches++) {
        char *got = tu_search_paths(root, NULL, "needle_word", 1u << CS_TEXT, 100, 0, 2);
        assert_non_null(got);
        assert_non_null(strstr(got, "T small.c:1:5"));
        with_big += strstr(got, "T big.c:") != NULL;
        free(got);
    }
    atomic_store(&c.stop, 1);
    pthread_join(th, NULL);
    print_message("%d searches, %d with the large file's hit, %ld cuts\n", searches, with_big,
                  atomic_load(&c.cuts));
    assert_true(atomic_load(&c.cuts) > 0);
    char *got = tu_search_paths(root, NULL, "needle_word", 1u << CS_TEXT, 100, 0, 2);
    assert_non_null(got);
    assert_non_null(strstr(got, "T big.c:"));
    assert_non_null(strstr(got, "T small.c:1:5"));
    free(got);
    free(c.path);
    free(data);
    tu_rmrf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_while_mapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
