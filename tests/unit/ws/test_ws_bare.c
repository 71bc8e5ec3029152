/* Bare repositories found from the change log (ws_bare.h) on a real
 * tree: a repository whose HEAD or hooks/NAME the log names is found
 * once however many of its entries changed, one above a plain directory
 * is not looked for past the level above, and plain directories give
 * nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ws_bare.h"
#include "ws_test_sh.h"

static char root[PATH_MAX];

typedef struct seen {
    char v[8][PATH_MAX];
    int n;
} seen;

static void found(void *ctx, const char *abs)
{
    seen *s = ctx;
    assert_true(s->n < 8);
    snprintf(s->v[s->n++], PATH_MAX, "%s", abs + strlen(root));
}

/* ws_bare_find over changes named by `rels` (NULL-ended). */
static seen find(const char *const *rels)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; rels[i]; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", rels[i]);
        cJSON_AddStringToObject(o, "kind", "write");
        cJSON_AddItemToArray(arr, o);
    }
    seen s = {.n = 0};
    ws_bare_find(root, arr, found, &s);
    cJSON_Delete(arr);
    return s;
}

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-bare-XXXXXX";
    if (!mkdtemp(t) || !realpath(t, root))
        return -1;
    sh("cd '%s' && mkdir -p x/bare/objects x/bare/refs x/bare/hooks y/a y/b && "
       "printf 'ref: refs/heads/main\\n' > x/bare/HEAD",
       root);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    sh("rm -rf '%s'", root);
    return 0;
}

static void test_found_once(void **st)
{
    (void)st;
    const char *const rels[] = {"y/a/1", "x/bare/HEAD", "y/b/2", "x/bare/config", "y/a/3",
                                "x/bare/hooks/pre-commit", "x/bare/description", "top", NULL};
    seen s = find(rels);
    /* the repository's own directory, and again as hooks/NAME's parent's
     * parent: one each way, never once per entry */
    assert_int_equal(s.n, 2);
    assert_string_equal(s.v[0], "/x/bare");
    assert_string_equal(s.v[1], "/x/bare");
}

static void test_hooks_only(void **st)
{
    (void)st;
    const char *const rels[] = {"x/bare/hooks/post-checkout", "x/bare/hooks/pre-push", NULL};
    seen s = find(rels);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.v[0], "/x/bare");
}

static void test_plain_nothing(void **st)
{
    (void)st;
    const char *const rels[] = {"y/a/1", "y/b/2", "y/c", "x/other", NULL};
    seen s = find(rels);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_once),
        cmocka_unit_test(test_hooks_only),
        cmocka_unit_test(test_plain_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
