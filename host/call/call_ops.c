/* One vt_call's life and its per-call operations. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "call_ops.h"
#include "spool.h"
#include "spool_dir.h"
#include "strutil.h"
#include "text_escape.h"

static const char *call_root;
static atomic_uint_fast64_t next_call_id = 1;

void call_set_workspace(const char *root) { call_root = root; }

void call_init(vt_call *call, const tool_entry *tool, const cJSON *args, const frontend *fe,
               atomic_int *cancel)
{
    memset(call, 0, sizeof *call);
    call->id = atomic_fetch_add(&next_call_id, 1);
    call->tool = tool;
    call->args = args;
    call->fe = fe;
    call->cancel = cancel;
    call->max_output_tokens = 10000;
}

void call_release(vt_call *call)
{
    free(call->error);
    cJSON_Delete(call->warnings);
    cJSON_Delete(call->warnings_once);
    spool_free(call->spool);
    memset(call, 0, sizeof *call);
}

int call_error(vt_call *call, int status, const char *f, ...)
{
    if (status >= 0)
        status = VT_ERR_INTERNAL;
    if (!call)
        return status;
    if (!call->error) {
        va_list ap;
        va_start(ap, f);
        call->error = str_vprintf(f, ap);
        va_end(ap);
        call->error_status = status;
    }
    return status;
}

static void warn_into(cJSON **list, char *msg)
{
    char *shown = msg ? text_escape(msg, 0) : NULL;
    if (shown) {
        if (!*list)
            *list = cJSON_CreateArray();
        cJSON_AddItemToArray(*list, cJSON_CreateString(shown));
    }
    free(shown);
    free(msg);
}

void call_warn_take(vt_call *call, char *msg)
{
    /* a warning names files and repositories a command made: each is one
     * line, every byte visible (the plugins' warnings are escaped here) */
    if (!call) {
        free(msg);
        return;
    }
    warn_into(&call->warnings, msg);
}

void call_warn_once(vt_call *call, const char *fmt, ...)
{
    if (!call)
        return;
    va_list ap;
    va_start(ap, fmt);
    warn_into(&call->warnings_once, str_vprintf(fmt, ap));
    va_end(ap);
}

void call_warn(vt_call *call, const char *fmt, ...)
{
    if (!call)
        return;
    va_list ap;
    va_start(ap, fmt);
    call_warn_take(call, str_vprintf(fmt, ap));
    va_end(ap);
}

int call_cancelled(const vt_call *call)
{
    return call && call->cancel && atomic_load(call->cancel);
}

vt_spool *call_spool_open(vt_call *call)
{
    if (!call)
        return NULL;
    if (!call->spool) {
        char id[64];
        snprintf(id, sizeof id, "%ld-%llu", (long)getpid(), (unsigned long long)call->id);
        /* An HTTP client session's output goes to its own view. */
        char view[32] = "";
        uint64_t client = call->fe ? call->fe->client_id : 0;
        if (client)
            snprintf(view, sizeof view, SPOOL_VIEW_FMT, (unsigned long long)client);
        call->spool = spool_new_in(call_root, view[0] ? view : NULL, call->tool->t.name, id,
                                   call->max_output_tokens);
    }
    return call->spool;
}
