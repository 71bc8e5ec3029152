/* Benchmarks of exec_command through one running host (host_open +
 * pipeline_call in this process, as every front end calls it).
 *
 *   exec_bench overhead [N]     N exec_command "true" calls against N
 *                               fork/exec of `sh -c true`; prints the ratio
 *   exec_bench throughput [MiB [ROUNDS]]  `head -c SIZE /dev/zero` through
 *                               exec_command against a plain pipe read by
 *                               this process; prints MiB/s and peak RSS
 *   exec_bench forkexec N SHELL N fork/exec of `SHELL -c true` alone;
 *                               prints the seconds (for serve_overhead.sh) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "pipeline.h"

static char ws[256];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int open_host(void)
{
    snprintf(ws, sizeof ws, "/tmp/vthost-exec-bench-XXXXXX");
    if (!mkdtemp(ws))
        return -1;
    char path[300];
    snprintf(path, sizeof path, "%s/vtcode.toml", ws);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("[permissions]\nallow = [\"exec_command\", \"write_stdin\"]\n", f);
    fclose(f);
    host_options o = {.workspace = ws, .profile = getenv("VTHOST_TEST_PROFILE"),
                      .exe_path = "/proc/self/exe", .log_level = VT_LOG_WARNING};
    char *err = NULL;
    if (host_open(&o, &err) != 0) {
        fprintf(stderr, "host_open: %s\n", err ? err : "?");
        free(err);
        return -1;
    }
    return 0;
}

static void close_host(void)
{
    host_close();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", ws);
}

static int call_exec(const char *json)
{
    cJSON *args = cJSON_Parse(json);
    call_request req = {.tool = "exec_command", .args = args};
    call_result res;
    pipeline_call(&req, &res);
    int ok = res.status == CALL_OK &&
             cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(res.response, "exit_code"));
    if (!ok) {
        char *s = cJSON_PrintUnformatted(res.response);
        fprintf(stderr, "call failed: %s %s\n", res.message ? res.message : "", s ? s : "");
        free(s);
    }
    call_result_free(&res);
    cJSON_Delete(args);
    return ok ? 0 : -1;
}

/* CPU seconds of this process and its reaped children: steadier than
 * wall time on a shared machine. */
static double cpu_s(void)
{
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
                    b.ru_stime.tv_usec) / 1e6;
}

static double run_fork_exec(const char *shell, int n)
{
    double t0 = now_s();
    for (int k = 0; k < n; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl(shell, shell, "-c", "true", (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
    }
    return now_s() - t0;
}

static int overhead(int n)
{
    if (open_host())
        return 1;
    /* warm-up: page in the plugins, the spool directory */
    call_exec("{\"cmd\":\"true\",\"shell\":\"/bin/sh\"}");
    run_fork_exec("/bin/sh", 5);

    static const char *const shells[] = {"/bin/sh", "/bin/bash"};
    for (int s = 0; s < 2; s++) {
        char json[128];
        snprintf(json, sizeof json, "{\"cmd\":\"true\",\"shell\":\"%s\"}", shells[s]);
        double c0 = cpu_s(), t0 = now_s();
        for (int k = 0; k < n; k++)
            if (call_exec(json))
                return 1;
        double host = now_s() - t0, host_cpu = cpu_s() - c0;
        c0 = cpu_s();
        double base = run_fork_exec(shells[s], n), base_cpu = cpu_s() - c0;
        printf("overhead %-9s: %d exec_command calls %.3f s (%.2f ms each); %d fork/exec "
               "%.3f s (%.2f ms each); ratio %.2fx wall, %.2fx CPU (%.3f s vs %.3f s)\n",
               shells[s], n, host, host * 1000 / n, n, base, base * 1000 / n, host / base,
               host_cpu / base_cpu, host_cpu, base_cpu);
    }
    close_host();
    return 0;
}

static double plain_pipe(long mib)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    char count[64];
    snprintf(count, sizeof count, "%ldM", mib);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        execlp("head", "head", "-c", count, "/dev/zero", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    static char buf[65536];
    long long total = 0;
    for (;;) {
        ssize_t r = read(p[0], buf, sizeof buf);
        if (r > 0)
            total += r;
        else if (r == 0 || errno != EINTR)
            break;
    }
    close(p[0]);
    waitpid(pid, NULL, 0);
    double t = now_s() - t0;
    return total == mib * 1048576LL ? t : -1;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Rounds alternate the two ways and the best of each is kept: on a shared
 * machine the best run is the one least disturbed by others. */
static int throughput(long mib, int rounds)
{
    if (open_host())
        return 1;
    long rss0 = peak_rss_kib();
    char json[256];
    snprintf(json, sizeof json,
             "{\"cmd\":\"head -c %ldM /dev/zero\",\"yield_time_ms\":30000,\"shell\":\"/bin/sh\"}",
             mib);
    double best_host = 1e9, best_base = 1e9;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_s();
        if (call_exec(json))
            return 1;
        double host = now_s() - t0;
        double base = plain_pipe(mib);
        if (base < 0)
            return 1;
        printf("round %d: exec_command %.0f MiB/s, plain pipe %.0f MiB/s\n", r + 1,
               mib / host, mib / base);
        if (host < best_host)
            best_host = host;
        if (base < best_base)
            best_base = base;
    }
    long rss1 = peak_rss_kib();
    close_host();
    printf("throughput: %ld MiB through exec_command %.0f MiB/s; plain pipe %.0f MiB/s "
           "(best of %d); ratio %.2f of the pipe's rate\n",
           mib, mib / best_host, mib / best_base, rounds, best_base / best_host);
    printf("peak RSS of the host process: %.1f MiB (%.1f MiB before the calls)\n",
           rss1 / 1024.0, rss0 / 1024.0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "overhead"))
        return overhead(argc >= 3 ? atoi(argv[2]) : 200);
    if (argc >= 4 && !strcmp(argv[1], "forkexec")) {
        printf("%.6f\n", run_fork_exec(argv[3], atoi(argv[2])));
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "throughput"))
        return throughput(argc >= 3 ? atol(argv[2]) : 1024, argc >= 4 ? atoi(argv[3]) : 3);
    fprintf(stderr, "usage: exec_bench overhead [N] | throughput [MiB [ROUNDS]] | forkexec N SHELL\n");
    return 2;
}
