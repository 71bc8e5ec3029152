/* `vthost call` is one-shot: the process ends with its call, so nothing
 * the call starts may outlive it.  Tools run to completion (the front end
 * says one_shot), and the only ways to stop one early are the user's
 * Ctrl-C / SIGTERM / SIGHUP and --timeout, all turned into the call's
 * cancel flag, which the tool polls and answers by ending its work (the
 * exec plugin ends the command's process group).  A call stopped that way
 * is reported as timed out or interrupted, never as success. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "cli.h"
#include "cli_call.h"
#include "strutil.h"

static atomic_int cancel_flag;
static volatile sig_atomic_t stop_signal; /* the first signal that stopped the call */

static void on_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
    atomic_store(&cancel_flag, 1);
}

atomic_int *cli_call_begin(double timeout_s)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (timeout_s > 0) {
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = {0};
        it.it_value.tv_sec = (time_t)timeout_s;
        it.it_value.tv_usec = (suseconds_t)((timeout_s - floor(timeout_s)) * 1e6);
        if (!it.it_value.tv_sec && !it.it_value.tv_usec)
            it.it_value.tv_usec = 1;
        setitimer(ITIMER_REAL, &it, NULL);
    }
    return &cancel_flag;
}

int cli_call_end(call_result *res, double timeout_s, int exit_code)
{
    struct itimerval off = {0};
    setitimer(ITIMER_REAL, &off, NULL);
    int sig = stop_signal;
    /* A call that finished before the tool noticed the signal stands;
     * any other end after a signal (cancelled, or a prompt cut short) is
     * the signal's doing. */
    if (!sig || res->status == CALL_OK)
        return exit_code;
    char *msg = sig == SIGALRM
                    ? str_printf("timed out after %g s (--timeout): the call was ended before "
                                 "it finished, with everything it started",
                                 timeout_s)
                    : str_printf("interrupted by %s: the call was ended before it finished, "
                                 "with everything it started",
                                 strsignal(sig));
    if (!msg)
        return sig == SIGALRM ? CLI_EXIT_TIMEOUT : 128 + sig;
    free(res->message);
    res->message = msg;
    cJSON *r = res->response;
    if (!cJSON_IsObject(r))
        r = res->response = cJSON_CreateObject();
    if (r) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "success");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "error");
        cJSON_AddBoolToObject(r, "success", 0);
        cJSON_AddStringToObject(r, "error", msg);
        cJSON_AddBoolToObject(r, sig == SIGALRM ? "timed_out" : "interrupted", 1);
    }
    return sig == SIGALRM ? CLI_EXIT_TIMEOUT : 128 + sig;
}
