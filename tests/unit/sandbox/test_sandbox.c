/* The command sandbox, applied to real shells: what a confined command
 * can and cannot write, and whether it reaches the network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include <vthost/services.h>
#include "leader_wire.h"
#include "sandbox_int.h"

static char ws[PATH_MAX], sibling[PATH_MAX], extra[PATH_MAX];
static int port;
static int listener = -1;

/* Run `cmd` with `sh -c` under `sb`, as spawn.c does: the session
 * leader is cloned into the namespaces, confines itself and starts the
 * command.  Returns the exit status. */
static int run_in(const sandbox *sb, const char *cmd)
{
    sandbox_plan *plan = NULL;
    if (sb)
        assert_int_equal(sandbox_plan_make(sb, 0, NULL, &plan, NULL), 0);
    pid_t pid = sb && sandbox_namespaces(sb)
                    ? (pid_t)syscall(SYS_clone, (unsigned long)sandbox_clone_flags(plan) | SIGCHLD,
                                     NULL, NULL, NULL, NULL)
                    : fork();
    if (pid == 0) {
        const char *what = NULL;
        if (sb && sandbox_id_maps(sb, &what) != 0) {
            fprintf(stderr, "sandbox_id_maps failed at %s\n", what);
            _exit(126);
        }
        if (sb && sandbox_confine(plan, -1, ws, &what) != 0) {
            fprintf(stderr, "sandbox_confine failed at %s\n", what);
            _exit(126);
        }
        pid_t sh = fork();
        if (sh == 0) {
            if (chdir(ws) != 0)
                _exit(125);
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(sh, &st, 0);
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    sandbox_plan_free(plan); /* removes the session's cgroup (now empty) */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static sandbox *make(const char *toml_mode, int network, const char *root)
{
    cJSON *cfg = cJSON_CreateObject();
    cJSON *t = cJSON_AddObjectToObject(cfg, "sandbox");
    cJSON_AddStringToObject(t, "mode", toml_mode);
    cJSON_AddBoolToObject(t, "network_access", network);
    if (root) {
        cJSON *roots = cJSON_AddArrayToObject(t, "writable_roots");
        cJSON_AddItemToArray(roots, cJSON_CreateString(root));
    }
    sandbox_config c;
    char *err = NULL, *warning = NULL;
    assert_int_equal(sandbox_config_parse(cfg, &c, &err), 0);
    sandbox *sb = NULL;
    assert_int_equal(sandbox_prepare(&c, ws, &sb, &warning, &err), 0);
    if (warning)
        printf("# note: %s\n", warning);
    free(warning);
    sandbox_config_free(&c);
    cJSON_Delete(cfg);
    return sb;
}

static int setup(void **st)
{
    (void)st;
    char a[] = "/var/tmp/vthost-sbx-ws-XXXXXX", b[] = "/var/tmp/vthost-sbx-sib-XXXXXX",
         c[] = "/var/tmp/vthost-sbx-extra-XXXXXX";
    if (!mkdtemp(a) || !mkdtemp(b) || !mkdtemp(c))
        return -1;
    if (!realpath(a, ws) || !realpath(b, sibling) || !realpath(c, extra))
        return -1;
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/.git", ws);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/.git/config", ws);
    FILE *f = fopen(p, "w");
    fputs("[core]\n", f);
    fclose(f);
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (bind(listener, (struct sockaddr *)&sa, sizeof sa) || listen(listener, 16) ||
        getsockname(listener, (struct sockaddr *)&sa, &len))
        return -1;
    port = ntohs(sa.sin_port);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[3 * PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", ws, sibling, extra);
    close(listener);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_workspace_write(void **st)
{
    (void)st;
    sandbox *sb = make("workspace-write", 0, extra);
    assert_non_null(sb);
    assert_int_equal(run_in(sb, "echo ok > inside.txt && mkdir -p sub/dir && echo x > sub/dir/f"), 0);
    assert_int_equal(run_in(sb, "cat inside.txt >/dev/null && ls / >/dev/null"), 0);
    /* /tmp and /dev/null stay writable */
    assert_int_equal(run_in(sb, "f=$(mktemp /tmp/vthost-sbx-XXXXXX) && echo x > $f && rm $f"), 0);
    assert_int_equal(run_in(sb, "echo x > /dev/null"), 0);
    /* an extra writable root */
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "echo x > '%s/granted.txt'", extra);
    assert_int_equal(run_in(sb, cmd), 0);
    /* outside: home, /etc, a sibling of the workspace */
    assert_int_not_equal(run_in(sb, "echo x > \"$HOME/vthost-sandbox-escape.txt\""), 0);
    assert_int_not_equal(run_in(sb, "echo x > /etc/vthost-sandbox-escape"), 0);
    snprintf(cmd, sizeof cmd, "echo x > '%s/escape.txt'", sibling);
    assert_int_not_equal(run_in(sb, cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/escape.txt", sibling);
    assert_int_not_equal(access(cmd, F_OK), 0);
    /* renames out of the workspace are writes outside it */
    snprintf(cmd, sizeof cmd, "mv inside.txt '%s/moved.txt'", sibling);
    assert_int_not_equal(run_in(sb, cmd), 0);
    sandbox_free(sb);
}

/* The host's part of the plan, stood in for: the index cannot answer,
 * and repositories_below names `dir`/.git when there is one (the host's
 * walk is host/ws's, tested in unit_ws_repos). */
static int stub_repositories(vt_call *call, cJSON **out)
{
    (void)call;
    *out = NULL;
    return VT_ERR_UNSUPPORTED;
}

static int stub_below(const char *dir, cJSON **out)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof p, "%s/.git", dir);
    *out = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(*out, "repositories");
    struct stat sb;
    if (lstat(p, &sb) == 0) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", p);
        cJSON_AddStringToObject(e, "kind", "dir");
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddBoolToObject(*out, "complete", 1);
    return VT_OK;
}

static const char *const *stub_names(void)
{
    static const char *const none[] = {NULL};
    return none;
}

static const vt_wsindex_v1 stub_index = {.struct_size = sizeof(vt_wsindex_v1),
                                         .repositories = stub_repositories,
                                         .protected_names = stub_names,
                                         .repositories_below = stub_below};

/* A host older than 1.13: it cannot list the repositories below a root. */
static const vt_wsindex_v1 old_index = {
    .struct_size = offsetof(vt_wsindex_v1, repositories_below),
    .repositories = stub_repositories};

static void test_git_read_only(void **st)
{
    (void)st;
    sandbox *sb = make("workspace-write", 0, NULL);
    if (!sb) {
        fail_msg("no sandbox");
    }
    sb->index = &stub_index;
    int rc = run_in(sb, "echo '[evil]' >> .git/config");
    assert_int_not_equal(rc, 0);
    assert_int_equal(run_in(sb, "grep -q core .git/config && ! grep -q evil .git/config"), 0);
    /* the rest of the workspace stays writable in the namespace */
    assert_int_equal(run_in(sb, "echo y > next-to-git.txt"), 0);
    sandbox_free(sb);
}

/* On a host that cannot list them, the plan says the repositories below
 * the writable roots are writable, as for a walk cut short. */
static void test_old_host_warns(void **st)
{
    (void)st;
    sandbox *sb = make("workspace-write", 0, NULL);
    assert_non_null(sb);
    sb->index = &old_index;
    sandbox_plan *plan = NULL;
    assert_int_equal(sandbox_plan_make(sb, 0, NULL, &plan, NULL), 0);
    const char *w = sandbox_plan_warning(plan);
    if (sandbox_namespaces(sb)) {
        assert_non_null(w);
        assert_non_null(strstr(w, "cannot list the repositories"));
    }
    sandbox_plan_free(plan);
    sandbox_free(sb);
}

static void test_read_only_mode(void **st)
{
    (void)st;
    sandbox *sb = make("read-only", 0, NULL);
    assert_int_not_equal(run_in(sb, "echo x > ro.txt"), 0);
    assert_int_not_equal(run_in(sb, "echo x > /tmp/vthost-ro-escape"), 0);
    assert_int_equal(run_in(sb, "echo x > /dev/null && ls . >/dev/null"), 0);
    sandbox_free(sb);
}

static void test_network(void **st)
{
    (void)st;
    char cmd[256];
    /* bash's /dev/tcp opens a TCP socket: refused with network off */
    snprintf(cmd, sizeof cmd, "exec 3<>/dev/tcp/127.0.0.1/%d", port);
    char bash[300];
    snprintf(bash, sizeof bash, "bash -c '%s'", cmd);
    sandbox *off = make("workspace-write", 0, NULL);
    assert_int_not_equal(run_in(off, bash), 0);
    /* Unix-domain sockets still work */
    assert_int_equal(run_in(off, "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' "
                                 "2>/dev/null || ! command -v python3 >/dev/null"), 0);
    sandbox_free(off);
    sandbox *on = make("workspace-write", 1, NULL);
    assert_int_equal(run_in(on, bash), 0);
    sandbox_free(on);
}

static void test_full_access(void **st)
{
    (void)st;
    cJSON *cfg = cJSON_Parse("{\"sandbox\":{\"mode\":\"danger-full-access\"}}");
    sandbox_config c;
    char *err = NULL, *warning = NULL;
    assert_int_equal(sandbox_config_parse(cfg, &c, &err), 0);
    sandbox *sb = (sandbox *)1;
    assert_int_equal(sandbox_prepare(&c, ws, &sb, &warning, &err), 0);
    assert_null(sb);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "echo x > '%s/full.txt'", sibling);
    assert_int_equal(run_in(NULL, cmd), 0);
    sandbox_config_free(&c);
    cJSON_Delete(cfg);
}

static void test_config_errors(void **st)
{
    (void)st;
    const char *bad[] = {
        "{\"sandbox\":{\"mode\":\"open\"}}", "{\"sandbox\":{\"network_access\":\"yes\"}}",
        "{\"sandbox\":{\"writable_roots\":\"/tmp\"}}", "{\"sandbox\":{\"writable_roots\":[\"rel\"]}}",
        "{\"sandbox\":{\"fallback\":1}}", "{\"sandbox\":5}",
    };
    const char *key[] = {"sandbox.mode", "sandbox.network_access", "sandbox.writable_roots",
                         "sandbox.writable_roots", "sandbox.fallback", "'sandbox'"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *cfg = cJSON_Parse(bad[i]);
        sandbox_config c;
        char *err = NULL;
        assert_int_not_equal(sandbox_config_parse(cfg, &c, &err), 0);
        assert_non_null(err);
        assert_non_null(strstr(err, key[i]));
        free(err);
        cJSON_Delete(cfg);
    }
}

static void test_denial_scan(void **st)
{
    (void)st;
    sandbox_denial_scan s = {0};
    sandbox_denial_feed(&s, "all fine\n", 9);
    assert_false(s.seen);
    sandbox_denial_feed(&s, "sh: 1: cannot create /etc/x: Permis", 35);
    assert_false(s.seen);
    sandbox_denial_feed(&s, "sion denied\n", 12);
    assert_true(s.seen);
    sandbox_denial_scan r = {0};
    sandbox_denial_feed(&r, "touch: cannot touch 'a': Read-only file system", 46);
    assert_true(r.seen);
}

/* Which /proc/self/cgroup lines name a pids cgroup: v1's pids line and
 * v2's "0::" line (which the v2 path of the process bound starts from),
 * nothing else. */
static void test_cgroup_lines(void **state)
{
    (void)state;
    char dir[256];
    int v2 = -1;
    assert_int_equal(sandbox_cgroup_line("8:pids:/a/b\n", dir, sizeof dir, &v2), 1);
    assert_string_equal(dir, "/sys/fs/cgroup/pids/a/b");
    assert_int_equal(v2, 0);
    assert_int_equal(sandbox_cgroup_line("0::/system.slice/x.service\n", dir, sizeof dir, &v2),
                     1);
    assert_int_equal(v2, 1);
    assert_true(strstr(dir, "/system.slice/x.service") != NULL);
    assert_true(dir[strlen(dir) - 1] != '\n');
    assert_int_equal(sandbox_cgroup_line("0::/\n", dir, sizeof dir, &v2), 1);
    assert_true(!strcmp(dir, "/sys/fs/cgroup") || !strcmp(dir, "/sys/fs/cgroup/unified"));
    assert_int_equal(sandbox_cgroup_line("4:memory:/x\n", dir, sizeof dir, &v2), 0);
    assert_int_equal(sandbox_cgroup_line("9:name=systemd:/\n", dir, sizeof dir, &v2), 0);
    assert_int_equal(sandbox_cgroup_line("10::/x\n", dir, sizeof dir, &v2), 0);
    assert_int_equal(sandbox_cgroup_line("garbage", dir, sizeof dir, &v2), 0);
}

static void same_prog(const struct sock_fprog *a, const struct sock_fprog *b)
{
    assert_int_equal(a->len, b->len);
    if (a->len)
        assert_memory_equal(a->filter, b->filter, a->len * sizeof *a->filter);
}

static void same_strv(char **a, size_t na, char **b, size_t nb)
{
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        assert_string_equal(a[i], b[i]);
}

/* The configuration the exec'd leader maker receives (sandbox_wire.c):
 * every field a leader reads comes back equal, the seccomp programs
 * instruction for instruction; any shorter message is refused. */
static void test_config_wire(void **st)
{
    (void)st;
    sandbox *sb = make("workspace-write", 0, extra);
    sb->max_processes = 77;
    sb->cpu_seconds = 5;
    sb->memory_mb = 512;
    sb->file_size_mb = 9;
    wire_out w = {0};
    sandbox_pack(sb, &w);
    assert_false(w.failed);
    wire_in r = {w.buf, w.buf + w.len, 0};
    sandbox *back = sandbox_unpack(&r);
    assert_non_null(back);
    assert_true(r.p == r.end);
    assert_int_equal(back->mode, sb->mode);
    assert_int_equal(back->network_access, sb->network_access);
    assert_int_equal(back->landlock_abi, sb->landlock_abi);
    assert_int_equal(back->namespaces, sb->namespaces);
    assert_int_equal(back->proxy, sb->proxy);
    assert_int_equal(back->own_userns, sb->own_userns);
    assert_int_equal(back->max_processes, 77);
    assert_int_equal(back->cpu_seconds, 5);
    assert_int_equal(back->memory_mb, 512);
    assert_int_equal(back->file_size_mb, 9);
    assert_string_equal(back->uid_map, sb->uid_map);
    assert_string_equal(back->gid_map, sb->gid_map);
    if (sb->cgroup_base)
        assert_string_equal(back->cgroup_base, sb->cgroup_base);
    else
        assert_null(back->cgroup_base);
    if (sb->vtcode_dir)
        assert_string_equal(back->vtcode_dir, sb->vtcode_dir);
    else
        assert_null(back->vtcode_dir);
    same_strv(back->roots, back->nroots, sb->roots, sb->nroots);
    assert_true(sb->nroots >= 2); /* the workspace and the extra root */
    same_strv(back->policy, back->npolicy, sb->policy, sb->npolicy);
    same_prog(&back->seccomp, &sb->seccomp);
    same_prog(&back->seccomp_net, &sb->seccomp_net);
    same_prog(&back->seccomp_base, &sb->seccomp_base);
    same_prog(&back->seccomp_top, &sb->seccomp_top);
    same_prog(&back->seccomp_top_net, &sb->seccomp_top_net);
    assert_true(sb->seccomp.len > 0 && sb->seccomp_base.len > 0);
    assert_null(back->index);
    assert_null(back->host_data);
    /* the host's pointers stay behind */
    sandbox_unpacked_config_free(back);
    for (size_t cut = 0; cut < w.len; cut++) {
        wire_in t = {w.buf, w.buf + cut, 0};
        assert_null(sandbox_unpack(&t));
    }
    free(w.buf);
    sandbox_free(sb);
}

int main(void)
{
    if (sandbox_landlock_abi() <= 0) {
        printf("SKIP: this kernel offers no Landlock; the sandbox cannot be tested here\n");
        return 77;
    }
    printf("# Landlock ABI %d\n", sandbox_landlock_abi());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workspace_write),
        cmocka_unit_test(test_git_read_only),
        cmocka_unit_test(test_old_host_warns),
        cmocka_unit_test(test_read_only_mode),
        cmocka_unit_test(test_network),
        cmocka_unit_test(test_full_access),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_denial_scan),
        cmocka_unit_test(test_cgroup_lines),
        cmocka_unit_test(test_config_wire),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
