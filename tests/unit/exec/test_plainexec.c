/* Which command texts run without the shell, and the shell's PATH search
 * as the session leader does it (plainexec.h).  Every text that any of
 * sh, dash or bash could read otherwise than as one program and its
 * arguments must go to the shell. */
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
#include <unistd.h>

#include "plainexec.h"
#include <vthost/plugin.h>

static void test_words(void **state)
{
    (void)state;
    static const char *const direct[] = {"true", "ls -la", "  make  -j2\tall ", "cat /proc/self/stat",
                                         "./build/x a=b --k=v,w +x @y z%", "git log -1 HEAD^",
                                         "false", "env", NULL};
    for (const char *const *c = direct; *c; c++) {
        char **v = NULL;
        assert_int_equal(plain_words(*c, &v), 1);
        assert_non_null(v);
        plain_words_free(v);
    }
    char **v = NULL;
    assert_int_equal(plain_words("  make  -j2\tall ", &v), 1);
    assert_string_equal(v[0], "make");
    assert_string_equal(v[1], "-j2");
    assert_string_equal(v[2], "all");
    assert_null(v[3]);
    plain_words_free(v);
    static const char *const shelled[] = {
        "", "   ", "echo hi", "printf x", "pwd", "test -e x", "cd /", "kill 1", "exec ls",
        ". f", ": x", "source f", "command ls", "time ls", "ls *", "ls ?", "ls [a]", "ls ~",
        "ls ~/x", "ls $HOME", "ls ${X}", "ls `x`", "ls $(x)", "ls 'a'", "ls \"a\"", "ls \\a",
        "ls {a,b}", "X=1 ls", "ls; ls", "ls && ls", "ls | ls", "ls & ls", "ls > f", "ls < f",
        "ls # c", "ls\nls", "ls\rx", "%1", "if", "[[", "ls (x)", "ls !x", "l\xc3\xa9", "chdir /",
        "umask", "ulimit -n", "wait", "set -e", "type ls", "hash", "local x", "true --help", "false --version", NULL};
    for (const char *const *c = shelled; *c; c++) {
        v = (char **)1;
        if (plain_words(*c, &v) != 0)
            fail_msg("'%s' must go to the shell", *c);
        assert_null(v);
    }
}

static void test_shells(void **state)
{
    (void)state;
    char *plain[] = {"PATH=/usr/bin", "HOME=/h", NULL};
    assert_int_equal(plain_shell_of("/usr/bin/bash", plain), PLAIN_BASH);
    assert_int_equal(plain_shell_of("/usr/bin/dash", plain), PLAIN_DASH);
    assert_int_equal(plain_shell_of("/usr/bin/zsh", plain), PLAIN_NONE);
    assert_int_equal(plain_shell_of("/usr/bin/fish", plain), PLAIN_NONE);
    assert_int_equal(plain_shell_of("/usr/bin/ksh", plain), PLAIN_NONE);
    static const char *const spoil[] = {"BASH_ENV=/x", "ENV=/x", "SHELLOPTS=xtrace",
                                        "BASHOPTS=x", "EXECIGNORE=*", "BASH_FUNC_ls%%=() { :; }",
                                        NULL};
    for (const char *const *s = spoil; *s; s++) {
        char *env[] = {"PATH=/usr/bin", (char *)*s, NULL};
        assert_int_equal(plain_shell_of("/usr/bin/bash", env), PLAIN_NONE);
    }
    char *nopath[] = {"HOME=/h", NULL};
    assert_int_equal(plain_shell_of("/usr/bin/bash", nopath), PLAIN_NONE);
}

static void link_as(const char *dir, const char *name, const char *to, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", dir, name);
    assert_int_equal(symlink(to, out), 0);
}

/* A shell is judged by the file its path leads to, not by the name it is
 * called: a link named sh to bash starts as bash (SHLVL, `_`), one named
 * bash to dash as dash; a file named sh may be either (not judged). */
static void test_shells_by_file(void **state)
{
    (void)state;
    char bash[4096], dash[4096];
    if (!realpath("/bin/bash", bash) || !realpath("/bin/dash", dash))
        skip();
    char dir[] = "/tmp/vthost-plainsh-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *plain[] = {"PATH=/usr/bin", NULL};
    char sh_link[600], bash_link[600], chain[600], sh_file[600];
    link_as(dir, "sh", bash, sh_link, sizeof sh_link);
    link_as(dir, "bash", dash, bash_link, sizeof bash_link);
    link_as(dir, "dash", bash_link, chain, sizeof chain); /* dash -> bash -> dash */
    assert_int_equal(plain_shell_of(sh_link, plain), PLAIN_BASH);
    assert_int_equal(plain_shell_of(bash_link, plain), PLAIN_DASH);
    assert_int_equal(plain_shell_of(chain, plain), PLAIN_DASH);
    snprintf(sh_file, sizeof sh_file, "%s/sub", dir);
    assert_int_equal(mkdir(sh_file, 0755), 0);
    snprintf(sh_file, sizeof sh_file, "%s/sub/sh", dir);
    int fd = open(sh_file, O_WRONLY | O_CREAT, 0755);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(plain_shell_of(sh_file, plain), PLAIN_NONE);
    assert_int_equal(plain_shell_of("/no/such/bash", plain), PLAIN_NONE);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static char **env_of(const char *const *src)
{
    size_t n = 0;
    while (src[n])
        n++;
    char **e = calloc(n + 1, sizeof *e);
    for (size_t i = 0; i < n; i++)
        e[i] = strdup(src[i]);
    return e;
}

static const char *get(char **env, const char *name)
{
    size_t n = strlen(name);
    for (char **e = env; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static void free_env(char **env)
{
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

static void test_env(void **state)
{
    (void)state;
    static const char *const src[] = {"PATH=/usr/bin", "PWD=/nowhere", "SHLVL=3",
                                      "OLDPWD=/no/such/dir", NULL};
    char **env = env_of(src), *under = NULL;
    assert_int_equal(plain_env(PLAIN_BASH, "/tmp", &env, &under), VT_OK);
    assert_string_equal(get(env, "PWD"), "/tmp");
    assert_string_equal(get(env, "SHLVL"), "3");
    assert_null(get(env, "OLDPWD"));
    assert_non_null(under);
    assert_int_equal(strncmp(under, "_=", 2), 0);
    assert_true(strlen(under) + 1 >= 4096);
    free_env(env);
    static const char *const dash_src[] = {"PATH=/usr/bin", "SHLVL=x", "OLDPWD=/nope", NULL};
    env = env_of(dash_src);
    assert_int_equal(plain_env(PLAIN_DASH, "/tmp", &env, &under), VT_OK);
    assert_string_equal(get(env, "PWD"), "/tmp");
    assert_string_equal(get(env, "SHLVL"), "x"); /* dash passes it on as it is */
    assert_string_equal(get(env, "OLDPWD"), "/nope");
    assert_null(under);
    assert_null(get(env, "_"));
    free_env(env);
}

static void put_file(const char *path, const char *bytes, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
    close(fd);
    chmod(path, mode);
}

static void test_find(void **state)
{
    (void)state;
    char dir[] = "/tmp/vthost-plainfind-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[256], b[256], path[600], given[4096], abs[4096], p[512];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    mkdir(a, 0755);
    mkdir(b, 0755);
    snprintf(p, sizeof p, "%s/prog", a); /* not executable: passed over */
    put_file(p, "\177ELF....", 8, 0644);
    snprintf(p, sizeof p, "%s/prog", b);
    put_file(p, "\177ELF....", 8, 0755);
    snprintf(p, sizeof p, "%s/script", b); /* a script: the shell's */
    put_file(p, "echo hi\n", 8, 0755);
    snprintf(p, sizeof p, "%s/hashbang", b);
    put_file(p, "#!/bin/sh\n", 10, 0755);
    snprintf(p, sizeof p, "%s/sub", a); /* a directory named like a program */
    mkdir(p, 0755);
    snprintf(path, sizeof path, "/no/such:%s:%s", a, b);
    int fd_at = 40;
    assert_int_equal(plain_find("prog", path, "/w", fd_at, given, abs, sizeof given), 1);
    snprintf(p, sizeof p, "%s/prog", b);
    assert_string_equal(given, p);
    assert_string_equal(abs, p);
    assert_true(fcntl(fd_at, F_GETFD) & FD_CLOEXEC);
    close(fd_at);
    assert_int_equal(plain_find("script", path, "/w", fd_at, given, abs, sizeof given), 0);
    assert_int_equal(plain_find("hashbang", path, "/w", fd_at, given, abs, sizeof given), 0);
    assert_int_equal(plain_find("sub", path, "/w", fd_at, given, abs, sizeof given), 0);
    assert_int_equal(plain_find("nothere", path, "/w", fd_at, given, abs, sizeof given), 0);
    assert_int_equal(fcntl(fd_at, F_GETFD), -1); /* nothing left open */
    /* a word with a slash is a path from the working directory */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(plain_find("b/prog", "/nowhere", dir, fd_at, given, abs, sizeof given), 1);
    close(fd_at);
    assert_string_equal(given, "b/prog");
    snprintf(p, sizeof p, "%s/b/prog", dir);
    assert_string_equal(abs, p);
    assert_int_equal(plain_find("a/prog", "/nowhere", dir, fd_at, given, abs, sizeof given), 0);
    assert_int_equal(chdir(cwd), 0);
    /* too long for the buffers: the shell's */
    assert_int_equal(plain_find("prog", path, "/w", fd_at, given, abs, 8), 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_shells),
        cmocka_unit_test(test_shells_by_file),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
