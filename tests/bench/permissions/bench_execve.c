/* Per-execve decision cost of run-time enforcement (host side): the
 * exec_policy's decide() for a program the shell runs, with 2,000 rules
 * (1,000 global + 1,000 agent-sized set in the global lists), then the
 * whole per-execve work of the watcher short of the trap itself: the
 * reads about a live process (its parent chain in /proc, the program
 * resolved through /proc/PID/root, its header for an interpreter) plus
 * the decision.  Prints microseconds per execve against the 50 us goal.
 * Usage: bench_execve [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "execwatch_file.h"
#include "execwatch_proc.h"

#include "call.h"
#include "call_ops.h"
#include "perm_exec.h"
#include "permission.h"
#include "../../support/perm_tools.h"

static double now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(cJSON *arr, const char *kind, int from, int to)
{
    for (int i = from; i < to; i++) {
        char r[96];
        snprintf(r, sizeof r, i % 2 ? "exec_command(tool%d %s *)" : "exec_command(tool%d)", i,
                 kind);
        cJSON_AddItemToArray(arr, cJSON_CreateString(r));
    }
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    char ws[] = "/tmp/bench_execve_XXXXXX";
    if (!mkdtemp(ws))
        return 1;
    cJSON *cfg = cJSON_CreateObject();
    cJSON *perms = cJSON_AddObjectToObject(cfg, "permissions");
    cJSON *deny = cJSON_AddArrayToObject(perms, "deny");
    cJSON *ask = cJSON_AddArrayToObject(perms, "ask");
    cJSON *allow = cJSON_AddArrayToObject(perms, "allow");
    fill(deny, "deny", 0, 600);
    fill(ask, "ask", 600, 1200);
    fill(allow, "allow", 1200, 1998);
    cJSON_AddItemToArray(deny, cJSON_CreateString("exec_command(rm *)"));
    cJSON_AddItemToArray(allow, cJSON_CreateString("exec_command(cc *)"));
    char *err = NULL;
    permission_declare_tools(test_tool_decl, sizeof test_tool_decl / sizeof *test_tool_decl);
    permission_set_embedded_policy(test_embedded_policy);
    if (permission_init_with(cfg, NULL, NULL, ws, &err) != 0) {
        fprintf(stderr, "init: %s\n", err);
        return 1;
    }
    tool_entry exec;
    memset(&exec, 0, sizeof exec);
    exec.t.name = "exec_command";
    exec.t.effects = VT_EFFECT_EXECUTES;
    vt_call call;
    call_init(&call, &exec, NULL, NULL, NULL);
    vt_exec_policy *pol = NULL;
    if (perm_exec_policy(&call, &pol) != 0)
        return 1;
    const char *args[] = {"-O2", "-c", "src/main.c", "-o", "src/main.o", NULL};
    const char *rargs[] = {"-f", "victim", NULL};
    vt_exec_program by_shell = {sizeof by_shell, "cc", "/usr/bin/cc", args, 1};
    vt_exec_program child = {sizeof child, "cc", "/usr/bin/cc", args, 0};
    vt_exec_program denied = {sizeof denied, "rm", "/usr/bin/rm", rargs, 0};
    struct { const char *label; vt_exec_program *p; int want; } cases[] = {
        {"allowed, run by the shell", &by_shell, 0},
        {"deny check, run by a program", &child, 0},
        {"denied (rm), anywhere", &denied, VT_ERR_DENIED}};
    int bad = 0;
    for (size_t c = 0; c < 3; c++) {
        char *why = NULL;
        if (pol->decide(pol, NULL, cases[c].p, &why) != cases[c].want) {
            fprintf(stderr, "%s: unexpected decision (%s)\n", cases[c].label, why ? why : "");
            bad = 1;
        }
        free(why);
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < iters; i++) {
            pol->decide(pol, NULL, cases[c].p, &why);
            free(why);
        }
        double us = (now(CLOCK_MONOTONIC) - w0) * 1e6 / iters;
        double cpu = (now(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6 / iters;
        printf("%-30s %7.2f us/execve wall (%6.2f us CPU) with 2,000 rules; goal 50 us: %s\n",
               cases[c].label, us, cpu, us < 50 ? "met" : "missed");
    }
    /* The watcher's reads for one execve by a process two levels below
     * the shell, against a live process: /usr/bin/true (one symlink: /usr
     * merged) and /usr/bin/cc (a chain of four through /etc/alternatives). */
    pid_t kid = fork();
    if (kid == 0) {
        pause();
        _exit(0);
    }
    const char *progs[] = {"/bin/true", "/usr/bin/cc"};
    for (size_t k = 0; k < 2; k++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        int reads_ok = 1;
        for (int i = 0; i < iters; i++) {
            pid_t pp;
            unsigned long long st;
            int threads;
            char *real = NULL, *interp = NULL, *arg = NULL, *why = NULL;
            reads_ok &= ew_proc_stat(kid, &pp, &st, &threads) == 0;
            reads_ok &= ew_proc_stat(getpid(), &pp, &st, NULL) == 0;
            reads_ok &= ew_proc_stat(getppid(), &pp, &st, NULL) == 0;
            int root = ew_root_open(kid);
            reads_ok &= root >= 0 && ew_resolve(kid, root, progs[k], &real) == 0;
            if (real)
                ew_interpreter(root, real, &interp, &arg);
            if (root >= 0)
                close(root);
            pol->decide(pol, NULL, &by_shell, &why);
            free(why);
            free(real);
            free(interp);
            free(arg);
        }
        double us = (now(CLOCK_MONOTONIC) - w0) * 1e6 / iters;
        double cpu = (now(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6 / iters;
        if (!reads_ok) {
            fprintf(stderr, "the /proc reads failed\n");
            bad = 1;
        }
        char label[64];
        snprintf(label, sizeof label, "whole watcher work, %s", progs[k]);
        printf("%-30s %7.2f us/execve wall (%6.2f us CPU) with 2,000 rules; goal 50 us: %s\n",
               label, us, cpu, us < 50 ? "met" : "missed");
    }
    kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    pol->release(pol);
    call_release(&call);
    permission_fini();
    cJSON_Delete(cfg);
    rmdir(ws);
    return bad;
}
