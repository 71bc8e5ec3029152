/* exec_command and write_stdin through one running host (host_open +
 * pipeline_call, the way every front end calls), with real processes:
 * sessions, PTYs, Ctrl-C, cancellation, pruning, and no descriptor or
 * zombie leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <vthost/services.h>
#include "host.h"
#include "pipeline.h"
#include "test_host.h"

static char ws[256];

static call_result run_call(const char *tool, atomic_int *cancel, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static call_result run_call(const char *tool, atomic_int *cancel, const char *fmt, ...)
{
    char json[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    cJSON *args = cJSON_Parse(json);
    if (!args)
        fail_msg("bad test JSON: %s", json);
    call_request req = {.tool = tool, .args = args, .cancel = cancel};
    call_result res;
    pipeline_call(&req, &res);
    cJSON_Delete(args);
    return res;
}

static call_result run(const char *tool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static call_result run(const char *tool, const char *fmt, ...)
{
    char json[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(json, sizeof json, fmt, ap);
    va_end(ap);
    return run_call(tool, NULL, "%s", json);
}

static const cJSON *field(const call_result *r, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(r->response, k);
}

static const char *output(const call_result *r)
{
    const cJSON *o = field(r, "output");
    return cJSON_IsString(o) ? o->valuestring : "";
}

static long long sid(const call_result *r)
{
    const cJSON *s = field(r, "session_id");
    return cJSON_IsNumber(s) ? (long long)s->valuedouble : -1;
}

static int exit_code(const call_result *r)
{
    const cJSON *e = field(r, "exit_code");
    return cJSON_IsNumber(e) ? (int)e->valuedouble : -1000;
}

static void dump(const call_result *r)
{
    char *s = cJSON_PrintUnformatted(r->response);
    fprintf(stderr, "status %d message %s response %s\n", r->status,
            r->message ? r->message : "-", s ? s : "?");
    free(s);
}

#define ASSERT_OK(r)                                                       \
    do {                                                                   \
        if ((r).status != CALL_OK)                                         \
            dump(&(r));                                                    \
        assert_int_equal((r).status, CALL_OK);                             \
    } while (0)

static const vt_sessions_v1 *sessions(void)
{
    return host_api()->service_lookup(VT_SESSIONS_SERVICE);
}

/* Poll a session until it exits (or the time is up). */
static call_result poll_until_exit(long long id, int seconds)
{
    call_result r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\",\"yield_time_ms\":%d}", id,
                        seconds * 1000);
    return r;
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Children of this process that are zombies, or (any state) all children;
 * the exec plugin's leader maker (zygote.c), which lives as long as the
 * plugin, is not one of a call's. */
static int count_children(int zombies_only)
{
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        char *rp = strrchr(buf, ')');
        char state;
        int ppid;
        if (strstr(buf, " (vthost-maker) ") == buf + strcspn(buf, " "))
            continue;
        if (rp && sscanf(rp + 2, "%c %d", &state, &ppid) == 2 && ppid == getpid() &&
            (!zombies_only || state == 'Z'))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* A session leader reports its command's end before its PID namespace
 * is torn down, and is reaped (its pidfd closed) a moment later: what
 * is left after the calls is looked at until it settles (2 s at most). */
static int settled_children(int zombies_only)
{
    int n = count_children(zombies_only);
    for (int t = 0; n && t < 200; t++) {
        usleep(10000);
        n = count_children(zombies_only);
    }
    return n;
}

static int settled_fds(int want)
{
    int n = count_fds();
    for (int t = 0; n != want && t < 200; t++) {
        usleep(10000);
        n = count_fds();
    }
    return n;
}

/* A process is gone when it no longer exists or is only a zombie that
 * is not ours to reap. */
static int process_gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    char *rp = strrchr(buf, ')');
    return rp && rp[2] == 'Z';
}

/* Commands run in their own PID namespace: the pids they print are not
 * the host's.  A process is found by an argument no other has. */
static int marker_gone(const char *marker)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) {
        char path[300], buf[4096];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        /* A command line longer than buf is cut; the terminator keeps
         * the last (cut) argument a string. */
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        for (size_t k = 0; k < n && !found; k += strlen(buf + k) + 1)
            found = !strcmp(buf + k, marker) && !process_gone((pid_t)atoi(e->d_name));
    }
    if (d)
        closedir(d);
    return !found;
}

static int wait_marker_gone(const char *marker, int ms)
{
    for (int t = 0; t < ms / 10; t++) {
        if (marker_gone(marker))
            return 1;
        usleep(10000);
    }
    return marker_gone(marker);
}

/* ---- tests ----------------------------------------------------------- */

static void test_quick_exit(void **state)
{
    (void)state;
    call_result r = run("exec_command", "{\"cmd\":\"echo hello; echo oops >&2\"}");
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 0);
    assert_true(cJSON_IsTrue(field(&r, "is_exited")));
    assert_true(cJSON_IsTrue(field(&r, "success")));
    assert_null(field(&r, "session_id"));
    assert_string_equal(output(&r), "hello\noops\n");
    assert_string_equal(field(&r, "backend")->valuestring, "pipe");
    assert_string_equal(field(&r, "working_directory")->valuestring, ws);
    assert_true(cJSON_IsNumber(field(&r, "wall_time")));
    call_result_free(&r);
}

static void test_nonzero_exit(void **state)
{
    (void)state;
    call_result r = run("exec_command", "{\"cmd\":\"printf partial; exit 7\"}");
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 7);
    assert_string_equal(output(&r), "partial");
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"kill -TERM $$\"}");
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 128 + SIGTERM);
    call_result_free(&r);
}

static void test_environment_and_workdir(void **state)
{
    (void)state;
    char sub[300];
    snprintf(sub, sizeof sub, "%s/sub dir", ws);
    mkdir(sub, 0755);
    call_result r = run("exec_command",
                        "{\"cmd\":\"echo $NO_COLOR $PAGER $GIT_PAGER $TERM; pwd\","
                        "\"workdir\":\"sub dir\"}");
    ASSERT_OK(r);
    char want[400];
    snprintf(want, sizeof want, "1 cat cat dumb\n%s\n", sub);
    assert_string_equal(output(&r), want);
    assert_string_equal(field(&r, "working_directory")->valuestring, sub);
    call_result_free(&r);

    r = run("exec_command", "{\"cmd\":\"pwd\",\"workdir\":\"/\"}");
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    assert_non_null(strstr(r.message, "outside the workspace"));
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"pwd\",\"workdir\":\"../..\"}");
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"pwd\",\"workdir\":\"no-such-dir\"}");
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    assert_non_null(strstr(r.message, "does not exist"));
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"true\",\"shell\":\"/no/such/zsh\"}");
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    assert_non_null(strstr(r.message, "no such shell"));
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"echo $0\",\"shell\":\"sh\"}");
    ASSERT_OK(r);
    assert_non_null(strstr(output(&r), "sh\n"));
    call_result_free(&r);
}

static void test_preflight(void **state)
{
    (void)state;
    call_result r = run("exec_command",
                        "{\"cmd\":\"id\",\"sandbox_permissions\":\"require_escalated\"}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"id\",\"sandbox_permissions\":\"require_escalated\","
                            "\"justification\":\"  \"}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"id\",\"sandbox_permissions\":\"root\"}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":\"12x\"}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
    /* chars is required: "" polls, a missing one is refused. */
    r = run("write_stdin", "{\"session_id\":1}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":1,\"chars\":5}");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);
}

static void test_long_output_spooled(void **state)
{
    (void)state;
    call_result r = run("exec_command",
                        "{\"cmd\":\"seq 1 200000\",\"max_output_tokens\":200}");
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 0);
    assert_true(cJSON_IsTrue(field(&r, "truncated")));
    assert_true(strlen(output(&r)) < 2000);
    assert_non_null(strstr(output(&r), "200000\n"));
    const cJSON *sp = field(&r, "spool_path");
    assert_true(cJSON_IsString(sp));
    char path[600];
    snprintf(path, sizeof path, "%s%s%s", sp->valuestring[0] == '/' ? "" : ws,
             sp->valuestring[0] == '/' ? "" : "/", sp->valuestring);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[32];
    long want = 1;
    int ok = 1;
    while (fgets(line, sizeof line, f))
        ok &= atol(line) == want++;
    fclose(f);
    assert_true(ok);
    assert_int_equal(want, 200001);
    call_result_free(&r);
}

static void test_pty_prompt_answered(void **state)
{
    (void)state;
    call_result r = run("exec_command",
                        "{\"cmd\":\"printf '\\\\033[1mbold\\\\033[0m\\\\n'; read -p 'name? ' n; "
                        "echo \\\"hello $n\\\"; [ -t 0 ] && echo tty\","
                        "\"tty\":true,\"yield_time_ms\":1500,\"shell\":\"bash\"}");
    ASSERT_OK(r);
    long long id = sid(&r);
    assert_true(id > 0);
    assert_false(cJSON_IsTrue(field(&r, "is_exited")));
    assert_string_equal(field(&r, "backend")->valuestring, "pty");
    assert_string_equal(output(&r), "bold\nname? ");
    call_result_free(&r);

    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"bob\\n\",\"yield_time_ms\":3000}", id);
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 0);
    /* the terminal echoes the input; CRLF became LF */
    assert_string_equal(output(&r), "bob\nhello bob\ntty\n");
    call_result_free(&r);

    r = run("write_stdin", "{\"session_id\":\"%lld\",\"chars\":\"\"}", id);
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    char want[64];
    snprintf(want, sizeof want, "exec session %lld not found", id);
    assert_non_null(strstr(r.message, want));
    call_result_free(&r);
}

static void test_pty_size_and_term(void **state)
{
    (void)state;
    call_result r = run("exec_command", "{\"cmd\":\"stty size; echo $TERM\",\"tty\":true}");
    ASSERT_OK(r);
    assert_string_equal(output(&r), "24 80\nxterm\n");
    call_result_free(&r);
}

/* The splitter service the host's guard uses. */
static void test_splitter_service(void **state)
{
    (void)state;
    const vt_splitter_v1 *sp = host_api()->service_lookup(VT_SPLITTER_SERVICE);
    assert_non_null(sp);
    assert_true(sp->struct_size >= sizeof(vt_splitter_v1));
    cJSON *out = NULL;
    assert_int_equal(sp->split("make test && eval \"$x\" > log", &out), 0);
    char *s = cJSON_PrintUnformatted(out);
    assert_string_equal(s, "[{\"command\":\"make test\",\"opaque\":false},"
                           "{\"command\":\"eval \\\"$x\\\"\",\"opaque\":true,"
                           "\"writes\":[\"log\"]}]");
    free(s);
    cJSON_Delete(out);
}

static void test_pipe_stdin(void **state)
{
    (void)state;
    call_result r = run("exec_command", "{\"cmd\":\"for i in 1 2; do read l; echo got $l; done\","
                                        "\"yield_time_ms\":250}");
    ASSERT_OK(r);
    long long id = sid(&r);
    assert_true(id > 0);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"one\\n\",\"yield_time_ms\":1000}", id);
    ASSERT_OK(r);
    assert_string_equal(output(&r), "got one\n");
    assert_int_equal(sid(&r), id);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"two\\nthree\\n\",\"yield_time_ms\":3000}", id);
    ASSERT_OK(r);
    assert_string_equal(output(&r), "got two\n");
    assert_int_equal(exit_code(&r), 0);
    call_result_free(&r);
}

static void test_outlives_yield_then_polled(void **state)
{
    (void)state;
    call_result r = run("exec_command",
                        "{\"cmd\":\"echo start; sleep 2; echo done\",\"yield_time_ms\":1000}");
    ASSERT_OK(r);
    long long id = sid(&r);
    assert_true(id > 0);
    assert_string_equal(output(&r), "start\n");
    double wall = field(&r, "wall_time")->valuedouble;
    assert_true(wall >= 0.99 && wall < 1.9);
    call_result_free(&r);
    r = poll_until_exit(id, 10);
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 0);
    assert_string_equal(output(&r), "done\n");
    call_result_free(&r);
}

static void ctrl_c(int tty)
{
    call_result r = run("exec_command",
                        "{\"cmd\":\"echo $$; sleep 30.%d; echo not-reached\",\"tty\":%s,"
                        "\"yield_time_ms\":1000}", 400 + tty, tty ? "true" : "false");
    ASSERT_OK(r);
    long long id = sid(&r);
    pid_t pid = (pid_t)atoi(output(&r));
    assert_true(id > 0 && pid > 0);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\",\"yield_time_ms\":5000}", id);
    ASSERT_OK(r);
    assert_true(cJSON_IsTrue(field(&r, "is_exited")));
    assert_int_equal(exit_code(&r), 128 + SIGINT);
    assert_null(strstr(output(&r), "not-reached"));
    call_result_free(&r);
    char marker[16];
    snprintf(marker, sizeof marker, "30.%d", 400 + tty);
    assert_true(wait_marker_gone(marker, 2000));
}

static void test_ctrl_c_pipe(void **state)
{
    (void)state;
    ctrl_c(0);
}

static void test_ctrl_c_pty(void **state)
{
    (void)state;
    ctrl_c(1);
}

typedef struct canceller {
    atomic_int *flag;
    int after_ms;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    usleep((useconds_t)c->after_ms * 1000);
    atomic_store(c->flag, 1);
    return NULL;
}

static void test_cancel_ends_group(void **state)
{
    (void)state;
    char pidfile[300];
    snprintf(pidfile, sizeof pidfile, "%s/cancel.pid", ws);
    atomic_int flag = 0;
    canceller c = {&flag, 1000};
    pthread_t t;
    pthread_create(&t, NULL, cancel_later, &c);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    call_result r = run_call("exec_command", &flag,
                             "{\"cmd\":\"sleep 30.402 & echo $! > cancel.pid; wait\","
                             "\"yield_time_ms\":20000}");
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(t, NULL);
    assert_int_equal(r.status, CALL_CANCELLED);
    assert_true((b.tv_sec - a.tv_sec) < 5);
    call_result_free(&r);
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int pid = 0;
    assert_int_equal(fscanf(f, "%d", &pid), 1);
    fclose(f);
    assert_true(pid > 0);
    assert_true(wait_marker_gone("30.402", 2000));
}

/* A session started by a thread that then exits lives on: the MCP
 * server's worker threads come and go (a parent-death signal fires when
 * the forking thread exits, which must not end the command). */
static void *start_session(void *arg)
{
    call_result r = run("exec_command", "{\"cmd\":\"sleep 30\",\"yield_time_ms\":250}");
    *(long long *)arg = sid(&r);
    call_result_free(&r);
    return NULL;
}

static void test_session_outlives_its_thread(void **state)
{
    (void)state;
    long long id = -1;
    pthread_t t;
    pthread_create(&t, NULL, start_session, &id);
    pthread_join(t, NULL);
    assert_true(id > 0);
    usleep(300 * 1000);
    call_result r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\",\"yield_time_ms\":0}", id);
    ASSERT_OK(r);
    assert_false(cJSON_IsTrue(field(&r, "is_exited")));
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\",\"yield_time_ms\":3000}", id);
    ASSERT_OK(r);
    assert_int_equal(exit_code(&r), 128 + SIGINT);
    call_result_free(&r);
}

static void *start_session_quick(void *arg)
{
    call_result r = run("exec_command", "{\"cmd\":\"exec sleep 30\",\"yield_time_ms\":0}");
    *(long long *)arg = sid(&r);
    call_result_free(&r);
    return NULL;
}

/* A thread that ends while its command's supervisor is still setting up
 * (the parent-death signal fires then) must not end the command. */
static void test_sessions_of_short_lived_threads(void **state)
{
    (void)state;
    enum { N = 16 };
    long long id[N];
    pthread_t t[N];
    for (int k = 0; k < N; k++) {
        id[k] = -1;
        pthread_create(&t[k], NULL, start_session_quick, &id[k]);
    }
    for (int k = 0; k < N; k++)
        pthread_join(t[k], NULL);
    usleep(500 * 1000);
    for (int k = 0; k < N; k++) {
        assert_true(id[k] > 0);
        call_result r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\","
                                           "\"yield_time_ms\":0}", id[k]);
        ASSERT_OK(r);
        if (cJSON_IsTrue(field(&r, "is_exited")))
            dump(&r);
        assert_false(cJSON_IsTrue(field(&r, "is_exited")));
        call_result_free(&r);
    }
    for (int k = 0; k < N; k++) {
        call_result r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\","
                                           "\"yield_time_ms\":3000}", id[k]);
        ASSERT_OK(r);
        assert_int_equal(exit_code(&r), 128 + SIGINT);
        call_result_free(&r);
    }
}

/* ---- pruning ---------------------------------------------------------- */

typedef struct filler {
    int count;
    long long ids[16];
    int warned;
} filler;

static void *fill(void *arg)
{
    filler *f = arg;
    for (int k = 0; k < f->count; k++) {
        call_result r = run("exec_command", "{\"cmd\":\"exec sleep 60\",\"yield_time_ms\":250}");
        f->ids[k] = sid(&r);
        if (cJSON_GetObjectItemCaseSensitive(r.response, "warnings"))
            f->warned = 1;
        call_result_free(&r);
    }
    return NULL;
}

static void test_prune_at_64(void **state)
{
    (void)state;
    int base = sessions()->live_count();
    assert_int_equal(base, 0);
    /* R: running, least recently used.  E: exits unobserved. */
    call_result r = run("exec_command", "{\"cmd\":\"exec sleep 60\",\"yield_time_ms\":250}");
    long long rid = sid(&r);
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"sleep 1\",\"yield_time_ms\":250}");
    long long eid = sid(&r);
    call_result_free(&r);
    assert_true(rid > 0 && eid > 0);

    enum { THREADS = 8 };
    filler fl[THREADS] = {0};
    pthread_t th[THREADS];
    int total = 0;
    for (int k = 0; k < THREADS; k++) {
        fl[k].count = k < 6 ? 8 : 7; /* 62 fillers: 64 live in all */
        total += fl[k].count;
        pthread_create(&th[k], NULL, fill, &fl[k]);
    }
    int warned = 0;
    for (int k = 0; k < THREADS; k++) {
        pthread_join(th[k], NULL);
        warned |= fl[k].warned;
        for (int j = 0; j < fl[k].count; j++)
            assert_true(fl[k].ids[j] > 0);
    }
    assert_int_equal(total, 62);
    assert_int_equal(sessions()->live_count(), 64);
    assert_true(warned);

    /* Full: the exited session goes first, though R is older. */
    r = run("exec_command", "{\"cmd\":\"exec sleep 60\",\"yield_time_ms\":250}");
    ASSERT_OK(r);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(r.response, "warnings"));
    long long newest = sid(&r);
    call_result_free(&r);
    assert_int_equal(sessions()->live_count(), 64);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\",\"yield_time_ms\":0}", eid);
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    call_result_free(&r);

    /* Then the least recently used running one: R. */
    r = run("exec_command", "{\"cmd\":\"echo $$; exec sleep 60\",\"yield_time_ms\":250}");
    ASSERT_OK(r);
    call_result_free(&r);
    assert_int_equal(sessions()->live_count(), 64);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\",\"yield_time_ms\":0}", rid);
    if (r.status != CALL_TOOL_FAILED) /* which session went instead of R, and why */
        for (int k = 0; k < THREADS; k++)
            for (int j = 0; j < fl[k].count; j++) {
                call_result q = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\","
                                                   "\"yield_time_ms\":0}", fl[k].ids[j]);
                if (q.status != CALL_OK || cJSON_IsTrue(field(&q, "is_exited"))) {
                    fprintf(stderr, "filler %lld: ", fl[k].ids[j]);
                    dump(&q);
                }
                call_result_free(&q);
            }
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    call_result_free(&r);
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\",\"yield_time_ms\":0}", newest);
    if (r.status != CALL_OK)
        dump(&r);
    ASSERT_OK(r);
    assert_false(cJSON_IsTrue(field(&r, "is_exited")));
    call_result_free(&r);

    /* End them all: Ctrl-C each one, as a client would. */
    for (int k = 0; k < THREADS; k++)
        for (int j = 0; j < fl[k].count; j++) {
            r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\","
                                   "\"yield_time_ms\":2000}", fl[k].ids[j]);
            call_result_free(&r);
        }
    r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\"}", newest);
    call_result_free(&r);
    /* the last one, whose id we did not keep */
    for (long long id = newest + 1; id < newest + 3; id++) {
        r = run("write_stdin", "{\"session_id\":%lld,\"chars\":\"\\u0003\"}", id);
        call_result_free(&r);
    }
    assert_int_equal(sessions()->live_count(), 0);
    assert_int_equal(settled_children(0), 0);
}

static void test_no_leaks_after_200(void **state)
{
    (void)state;
    /* warm up: the spool directory, lazily opened files */
    call_result r = run("exec_command", "{\"cmd\":\"true\"}");
    call_result_free(&r);
    r = run("exec_command", "{\"cmd\":\"true\",\"tty\":true}");
    call_result_free(&r);
    assert_int_equal(settled_children(0), 0);
    int fds = count_fds();
    for (int k = 0; k < 200; k++) {
        r = run("exec_command", "{\"cmd\":\"echo %d\",\"tty\":%s}", k, k % 4 ? "false" : "true");
        ASSERT_OK(r);
        if (exit_code(&r) != 0) {
            fprintf(stderr, "call %d: ", k);
            dump(&r);
        }
        assert_int_equal(exit_code(&r), 0);
        call_result_free(&r);
    }
    /* A leak grows with the calls (200 here); what is held for a moment
     * after a call (a session cgroup waiting for its leader's exit to be
     * removed at the next call, a leader being reaped) is one or two. */
    int now = settled_fds(fds);
    if (now < fds - 2 || now > fds + 2)
        fprintf(stderr, "descriptors: %d before, %d after 200 calls\n", fds, now);
    assert_true(now >= fds - 2 && now <= fds + 2);
    assert_int_equal(settled_children(1), 0);
    assert_int_equal(settled_children(0), 0);
    assert_int_equal(sessions()->live_count(), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(ws, sizeof ws, "/tmp/vthost-exec-test-XXXXXX");
    return test_host_open(ws, sizeof ws,
                          "[permissions]\nallow = [\"exec_command\", \"write_stdin\"]\n",
                          NULL, 1);
}

static int teardown(void **state)
{
    (void)state;
    return test_host_close(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_exit),
        cmocka_unit_test(test_nonzero_exit),
        cmocka_unit_test(test_environment_and_workdir),
        cmocka_unit_test(test_preflight),
        cmocka_unit_test(test_long_output_spooled),
        cmocka_unit_test(test_pty_prompt_answered),
        cmocka_unit_test(test_pty_size_and_term),
        cmocka_unit_test(test_splitter_service),
        cmocka_unit_test(test_pipe_stdin),
        cmocka_unit_test(test_outlives_yield_then_polled),
        cmocka_unit_test(test_ctrl_c_pipe),
        cmocka_unit_test(test_ctrl_c_pty),
        cmocka_unit_test(test_cancel_ends_group),
        cmocka_unit_test(test_session_outlives_its_thread),
        cmocka_unit_test(test_sessions_of_short_lived_threads),
        cmocka_unit_test(test_prune_at_64),
        cmocka_unit_test(test_no_leaks_after_200),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
