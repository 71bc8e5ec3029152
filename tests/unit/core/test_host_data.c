/* The host's own data as the service "host.own_data": the XDG
 * directories as the host reads them, the trust list, and what a front
 * end adds (made absolute). */
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
#include <vthost/services.h>
#include "host_data.h"
#include "services.h"

/* 1 when the service lists `path` as `kind`. */
static int listed(const char *path, const char *kind)
{
    const vt_host_data_v1 *s = services_lookup(VT_HOST_DATA_SERVICE);
    assert_non_null(s);
    assert_true(s->struct_size >= sizeof *s);
    cJSON *arr = NULL;
    assert_int_equal(s->paths(&arr), 0);
    int found = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "path");
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "kind");
        found |= cJSON_IsString(p) && cJSON_IsString(k) && !strcmp(p->valuestring, path) &&
                 !strcmp(k->valuestring, kind);
    }
    cJSON_Delete(arr);
    return found;
}

static void test_xdg_defaults(void **st)
{
    (void)st;
    assert_int_equal(host_data_publish(), 0);
    setenv("HOME", "/home/someone", 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("XDG_STATE_HOME");
    setenv("XDG_CACHE_HOME", "relative/ignored", 1);
    assert_true(listed("/home/someone/.config/vthost", "dir"));
    assert_true(listed("/home/someone/.config/vthost/http-token", "file"));
    assert_true(listed("/home/someone/.config/vthost/http.toml", "file"));
    assert_true(listed("/home/someone/.local/state/vthost", "dir"));
    assert_true(listed("/home/someone/.cache/vthost", "dir"));
    /* the trust list: the user's vtcode directory and its file */
    assert_true(listed("/home/someone/.config/vtcode", "dir"));
    assert_true(listed("/home/someone/.config/vtcode/vtcode.toml", "file"));
    setenv("XDG_CONFIG_HOME", "/etc/xdg-me", 1);
    setenv("XDG_STATE_HOME", "/srv/state", 1);
    assert_true(listed("/etc/xdg-me/vthost", "dir"));
    assert_true(listed("/etc/xdg-me/vtcode", "dir"));
    assert_true(listed("/srv/state/vthost", "dir"));
    assert_false(listed("/home/someone/.config/vthost", "dir"));
    services_clear();
}

static void test_front_end_files(void **st)
{
    (void)st;
    assert_int_equal(host_data_publish(), 0);
    char dir[] = "/tmp/vthost-hostdata-XXXXXX", cwd[PATH_MAX], real[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    assert_non_null(realpath(dir, real));
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    FILE *f = fopen("token", "w");
    assert_non_null(f);
    fclose(f);
    /* relative, existing: resolved; relative, missing: from the cwd */
    assert_int_equal(host_data_add("token", 0), 0);
    assert_int_equal(host_data_add("keys/not-yet.pem", 0), 0);
    assert_int_equal(host_data_add("", 0), VT_ERR_INVALID);
    char want[PATH_MAX + 32];
    snprintf(want, sizeof want, "%s/token", real);
    assert_true(listed(want, "file"));
    snprintf(want, sizeof want, "%s/keys/not-yet.pem", real);
    assert_true(listed(want, "file"));
    assert_int_equal(chdir(cwd), 0);
    snprintf(want, sizeof want, "%s/token", real);
    unlink(want);
    rmdir(real);
    services_clear();
}

/* A shared file is listed by every process of the user: what another
 * process recorded is read back from the state directory; the list
 * keeps the newest entries and is ignored when others could write it. */
/* The cache directory handed to plugins: $XDG_CACHE_HOME/vthost, made
 * 0700; a relative variable falls back to ~/.cache. */
static void test_cache_dir(void **st)
{
    (void)st;
    assert_int_equal(host_data_publish(), 0);
    const vt_host_data_v1 *s = services_lookup(VT_HOST_DATA_SERVICE);
    assert_true(s->struct_size >= offsetof(vt_host_data_v1, cache_dir) + sizeof s->cache_dir);
    char dir[] = "/tmp/vthost-cachedir-XXXXXX", want[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    char *got = NULL;
    assert_int_equal(s->cache_dir(&got), 0);
    snprintf(want, sizeof want, "%s/vthost", dir);
    assert_string_equal(got, want);
    struct stat sb;
    assert_int_equal(stat(got, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0700);
    free(got);
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", dir, 1);
    assert_int_equal(s->cache_dir(&got), 0);
    snprintf(want, sizeof want, "%s/.cache/vthost", dir);
    assert_string_equal(got, want);
    free(got);
    rmdir(want);
    snprintf(want, sizeof want, "%s/.cache", dir);
    rmdir(want);
    snprintf(want, sizeof want, "%s/vthost", dir);
    rmdir(want);
    rmdir(dir);
    unsetenv("XDG_CACHE_HOME");
    services_clear();
}

static void test_shared_files(void **st)
{
    (void)st;
    assert_int_equal(host_data_publish(), 0);
    char dir[] = "/tmp/vthost-hostdata-XXXXXX", list[PATH_MAX + 64], path[64];
    assert_non_null(mkdtemp(dir));
    setenv("XDG_STATE_HOME", dir, 1);
    snprintf(list, sizeof list, "%s/vthost/front-files", dir);
    for (int i = 0; i < 40; i++) {
        snprintf(path, sizeof path, "/srv/keys/token-%d", i);
        assert_int_equal(host_data_add(path, i == 39 ? HOST_DATA_SHARED | HOST_DATA_DIR
                                                     : HOST_DATA_SHARED),
                         0);
    }
    /* the newest 32 files are kept; a directory is never shared */
    struct stat sb;
    assert_int_equal(stat(list, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    FILE *f = fopen(list, "r");
    assert_non_null(f);
    char line[128];
    int n = 0, has_first = 0, has_last = 0, has_dir = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        has_first |= !strcmp(line, "/srv/keys/token-0\n");
        has_last |= !strcmp(line, "/srv/keys/token-38\n");
        has_dir |= !strcmp(line, "/srv/keys/token-39\n");
    }
    fclose(f);
    assert_int_equal(n, 32);
    assert_false(has_first);
    assert_true(has_last);
    assert_false(has_dir);
    /* what another process recorded: listed here too */
    f = fopen(list, "a");
    fputs("/elsewhere/other-token\nrelative/ignored\n", f);
    fclose(f);
    assert_true(listed("/elsewhere/other-token", "file"));
    assert_false(listed("relative/ignored", "file"));
    /* writable by others: not trusted */
    assert_int_equal(chmod(list, 0666), 0);
    assert_false(listed("/elsewhere/other-token", "file"));
    unlink(list);
    snprintf(list, sizeof list, "%s/vthost", dir);
    rmdir(list);
    rmdir(dir);
    unsetenv("XDG_STATE_HOME");
    services_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xdg_defaults),
        cmocka_unit_test(test_front_end_files),
        cmocka_unit_test(test_shared_files),
        cmocka_unit_test(test_cache_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
