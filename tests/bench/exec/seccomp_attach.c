/* What a session leader pays the kernel for its seccomp filters: CPU per
 * leader of a process that forks leaders which attach
 *
 *   host's    the whole filter, then the run-time checks' listener (a
 *             leader the host clones: one-shot calls, the first command)
 *   maker's   nothing but the listener with the top part in it, under
 *             the base part the forking process attached once (a leader
 *             the leader maker clones)
 *   top       the top part alone, under the base (the maker's leader
 *             with the run-time checks off)
 *   none      nothing (the fork and exit alone)
 *
 * and exit at once.  Alternating rounds, each in a fresh process; CPU
 * from wait4's rusage (the round's process and its reaped leaders);
 * prints each mode's median per leader, and the median of the per-round
 * ratios of the filters' own cost ((mode - none) / (host's - none)).
 * Not a test: figures only.
 *
 *     build/tests/seccomp_attach [ROUNDS [LEADERS]] */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "execwatch.h"
#include "sandbox_int.h"

enum { NONE, HOST, MAKER, TOP, NMODES };
static const char *const names[] = {"none", "host's", "maker's", "top"};
static struct sock_fprog whole, base, top;

static int attach(const struct sock_fprog *f, int listener)
{
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, f);
    if (fd < 0)
        return -1;
    if (listener)
        close((int)fd);
    return 0;
}

/* One round's process: `n` leaders in `mode`. */
static _Noreturn void round_main(int mode, int n)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(1);
    if ((mode == MAKER || mode == TOP) && attach(&base, 0) != 0)
        _exit(1);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            int rc = 0;
            if (mode == HOST)
                rc = attach(&whole, 0) || attach(execwatch_filter(), 1);
            else if (mode == MAKER)
                rc = attach(sandbox_seccomp_watch_program(0), 1);
            else if (mode == TOP)
                rc = attach(&top, 0);
            _exit(rc ? 1 : 0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
            _exit(1);
    }
    _exit(0);
}

/* CPU microseconds per leader of one round, or -1. */
static double one_round(int mode, int n)
{
    pid_t pid = fork();
    if (pid == 0)
        round_main(mode, n);
    int st = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    double us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    return us / n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9, n = argc > 2 ? atoi(argv[2]) : 2000;
    if (rounds < 1 || rounds > 1000 || n < 1) {
        fprintf(stderr, "usage: seccomp_attach [ROUNDS (1-1000) [LEADERS]]\n");
        return 2;
    }
    if (execwatch_prepare() != VT_OK || sandbox_seccomp_watch_prepare() != VT_OK ||
        sandbox_seccomp_build(0, SANDBOX_SECCOMP_WHOLE, &whole) != VT_OK ||
        sandbox_seccomp_build(0, SANDBOX_SECCOMP_BASE, &base) != VT_OK ||
        sandbox_seccomp_build(0, SANDBOX_SECCOMP_TOP, &top) != VT_OK) {
        fprintf(stderr, "seccomp_attach: no libseccomp or no user notification here\n");
        return 1;
    }
    double *cpu[NMODES], *ratio[NMODES];
    for (int m = 0; m < NMODES; m++) {
        cpu[m] = calloc((size_t)rounds, sizeof(double));
        ratio[m] = calloc((size_t)rounds, sizeof(double));
    }
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NMODES; k++) {
            int m = r % 2 ? NMODES - 1 - k : k; /* the order alternates */
            if ((cpu[m][r] = one_round(m, n)) < 0) {
                fprintf(stderr, "seccomp_attach: a %s leader failed\n", names[m]);
                return 1;
            }
        }
        for (int m = 0; m < NMODES; m++)
            ratio[m][r] = (cpu[m][r] - cpu[NONE][r]) / (cpu[HOST][r] - cpu[NONE][r]);
    }
    printf("seccomp attach per leader: %d rounds of %d leaders, CPU (wait4)\n", rounds, n);
    for (int m = 0; m < NMODES; m++) {
        double r = median(ratio[m], rounds);
        printf("  %-8s %7.1f us per leader", names[m], median(cpu[m], rounds));
        if (m != NONE)
            printf("   filters' own cost %.2fx the host's leader's", r);
        putchar('\n');
        free(cpu[m]);
        free(ratio[m]);
    }
    free(whole.filter);
    free(base.filter);
    free(top.filter);
    sandbox_seccomp_watch_free();
    return 0;
}
