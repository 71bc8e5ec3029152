/* The run-time exec watch's pure parts, from the exec core library
 * without the plugin: paths as a trapped process names them, the
 * interpreter the kernel would run for a script, dynamic loaders and the
 * program they are asked to load, and a denied program recognised by its
 * bytes under another name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

#include "execwatch_file.h"
#include "execwatch_ident.h"
#include "execwatch_proc.h"

/* The core reaches the host only through `api`; nothing here calls it. */
const vt_host_api *api = NULL;

static char dir[] = "/tmp/vthost-ewcore-XXXXXX";

static void write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_path_join(void **state)
{
    (void)state;
    char *p = ew_path_join("/a/b", "../c/./d");
    assert_string_equal(p, "/a/c/d");
    free(p);
    p = ew_path_join("/a", "/x/y/..");
    assert_string_equal(p, "/x");
    free(p);
}

static void test_loader(void **state)
{
    (void)state;
    assert_true(ew_is_loader("ld-linux-x86-64.so.2"));
    assert_false(ew_is_loader("bash"));
    char *args[] = {"--library-path", "/x", "--inhibit-cache", "/bin/true", "arg", NULL};
    assert_int_equal(ew_loader_program(args), 3);
    char *none[] = {"--library-path", NULL};
    assert_int_equal(ew_loader_program(none), -1);
}

static void test_script_interpreter(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/script", dir);
    write_file(path, "#!/bin/sh -e\necho hi\n", 0755);
    int root = ew_root_open(getpid());
    assert_true(root >= 0);
    char *interp = NULL, *arg = NULL;
    assert_int_equal(ew_interpreter(root, path, &interp, &arg), 0);
    assert_string_equal(interp, "/bin/sh");
    assert_string_equal(arg, "-e");
    free(interp);
    free(arg);
    close(root);
}

static void test_copy_recognised(void **state)
{
    (void)state;
    char denied[128], copy[128];
    snprintf(denied, sizeof denied, "%s/bin/forbidden-tool", dir);
    snprintf(copy, sizeof copy, "%s/innocent", dir);
    char bin[128];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    assert_int_equal(mkdir(bin, 0755), 0);
    write_file(denied, "#!/bin/sh\necho the denied program\n", 0755);
    write_file(copy, "#!/bin/sh\necho the denied program\n", 0755);
    const char *const names[] = {"forbidden-tool", NULL};
    ew_ident *id = NULL;
    assert_int_equal(ew_ident_new(names, bin, &id), VT_OK);
    assert_non_null(id);
    int fd = open(copy, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    const char *m = ew_ident_match(id, fd);
    assert_non_null(m);
    assert_string_equal(m, "forbidden-tool");
    close(fd);
    write_file(copy, "#!/bin/sh\necho something else\n", 0755);
    fd = open(copy, O_RDONLY | O_CLOEXEC);
    assert_null(ew_ident_match(id, fd));
    close(fd);
    ew_ident_free(id);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_join),
        cmocka_unit_test(test_loader),
        cmocka_unit_test(test_script_interpreter),
        cmocka_unit_test(test_copy_recognised),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
