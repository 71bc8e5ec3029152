/* vthost's own data in the sandbox's plan (sandbox_data.c): what the
 * host lists is resolved, made when a directory is missing, kept out of
 * the mask when it holds the workspace, and refused without namespaces
 * where a command may write around it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include <vthost/services.h>
#include "sandbox_int.h"

static const vt_host_api test_api = {.struct_size = sizeof(vt_host_api), .free = free};
const vt_host_api *api = &test_api;

static char base[PATH_MAX];    /* canonical scratch directory */
static const char *listed[8];  /* what the fake host lists: "d:PATH" or "f:PATH" */

static int fake_paths(cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; listed[i]; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", listed[i] + 2);
        cJSON_AddStringToObject(o, "kind", listed[i][0] == 'd' ? "dir" : "file");
        cJSON_AddItemToArray(arr, o);
    }
    *out = arr;
    return VT_OK;
}

static const vt_host_data_v1 fake = {.struct_size = sizeof fake, .paths = fake_paths};

static char *at(const char *rel)
{
    static char bufs[8][PATH_MAX + 64];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", base, rel);
    return b;
}

/* Plan with a sandbox whose workspace is base/ws. */
static int plan(int namespaces, sandbox_plan *p)
{
    static char *roots[1];
    static sandbox sb;
    memset(&sb, 0, sizeof sb);
    roots[0] = at("ws");
    sb.mode = SANDBOX_WORKSPACE_WRITE;
    sb.roots = roots;
    sb.nroots = 1;
    sb.namespaces = namespaces;
    sandbox_use_host_data(&sb, &fake);
    memset(p, 0, sizeof *p);
    p->sb = &sb;
    return sandbox_data_plan(&sb, p);
}

static void done(sandbox_plan *p)
{
    sandbox_data_free(p);
    free(p->truncated);
    p->truncated = NULL;
}

static int setup(void **st)
{
    (void)st;
    char dir[] = "/var/tmp/vthost-sbdata-XXXXXX";
    if (!mkdtemp(dir) || !realpath(dir, base))
        return -1;
    mkdir(at("ws"), 0755);
    mkdir(at("real"), 0700);
    return symlink(at("real"), at("link"));
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_resolved_and_made(void **st)
{
    (void)st;
    FILE *f = fopen(at("real/token"), "w");
    assert_non_null(f);
    fclose(f);
    char d1[PATH_MAX + 64], d2[PATH_MAX + 64], f1[PATH_MAX + 64], f2[PATH_MAX + 64];
    snprintf(d1, sizeof d1, "d:%s", at("link"));         /* a symlinked spelling */
    snprintf(d2, sizeof d2, "d:%s", at("home/.cache/vthost")); /* not there yet */
    snprintf(f1, sizeof f1, "f:%s", at("link/token"));
    snprintf(f2, sizeof f2, "f:%s", at("missing.pem"));
    listed[0] = d1, listed[1] = d2, listed[2] = f1, listed[3] = f2, listed[4] = NULL;
    sandbox_plan p;
    assert_int_equal(plan(1, &p), VT_OK);
    assert_int_equal(p.ndata, 3);
    assert_string_equal(p.data[0], at("real"));
    assert_int_equal(p.data_dir[0], 1);
    assert_string_equal(p.data[1], at("home/.cache/vthost"));
    assert_int_equal(p.data_dir[1], 1);
    assert_string_equal(p.data[2], at("real/token"));
    assert_int_equal(p.data_dir[2], 0);
    struct stat sb;
    assert_int_equal(stat(at("home/.cache/vthost"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    assert_null(p.truncated);
    done(&p);
}

/* ~/.cache a link (relative here) to a place that does not exist yet:
 * the place is made, and the mask covers where the path leads. */
static void test_dangling_link_target_made(void **st)
{
    (void)st;
    mkdir(at("home2"), 0700);
    assert_int_equal(symlink("../tmpcache", at("home2/.cache")), 0);
    char d[PATH_MAX + 64];
    snprintf(d, sizeof d, "d:%s", at("home2/.cache/vthost"));
    listed[0] = d, listed[1] = NULL;
    sandbox_plan p;
    assert_int_equal(plan(1, &p), VT_OK);
    assert_int_equal(p.ndata, 1);
    assert_string_equal(p.data[0], at("tmpcache/vthost"));
    struct stat sb;
    assert_int_equal(lstat(at("tmpcache/vthost"), &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0700);
    done(&p);
}

static void test_workspace_inside_is_not_masked(void **st)
{
    (void)st;
    char d[PATH_MAX + 64];
    snprintf(d, sizeof d, "d:%s", base); /* holds base/ws */
    listed[0] = d, listed[1] = NULL;
    sandbox_plan p;
    assert_int_equal(plan(1, &p), VT_OK);
    assert_int_equal(p.ndata, 0);
    assert_non_null(p.truncated);
    assert_non_null(strstr(p.truncated, "not masked"));
    done(&p);
}

static void test_no_namespaces_refuses_in_writable_place(void **st)
{
    (void)st;
    char d[PATH_MAX + 64];
    snprintf(d, sizeof d, "d:%s", at("ws/.cache/vthost"));
    listed[0] = d, listed[1] = NULL;
    sandbox_plan p;
    /* with namespaces: masked */
    assert_int_equal(plan(1, &p), VT_OK);
    assert_int_equal(p.ndata, 1);
    done(&p);
    /* without: Landlock cannot take reading away under the workspace */
    assert_int_equal(plan(0, &p), VT_ERR_DENIED);
    assert_non_null(p.truncated);
    assert_non_null(strstr(p.truncated, "mount namespace"));
    done(&p);
    /* outside any writable place: left out of the grant instead */
    snprintf(d, sizeof d, "d:%s", at("real"));
    assert_int_equal(plan(0, &p), VT_OK);
    assert_int_equal(p.ndata, 1);
    done(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolved_and_made),
        cmocka_unit_test(test_dangling_link_target_made),
        cmocka_unit_test(test_workspace_inside_is_not_masked),
        cmocka_unit_test(test_no_namespaces_refuses_in_writable_place),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
