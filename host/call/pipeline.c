/* The call pipeline, the one way in for every front end: a call is a list
 * of stages run in order until one stops it.  pipeline_call runs them
 * all; pipeline_explain runs the same ones up to the permission decision
 * and reports the decision instead of acting on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "call.h"
#include "call_messages.h"
#include "call_ops.h"
#include "guard.h"
#include "handles.h"
#include "host_events.h"
#include "legacy.h"
#include "log.h"
#include "permission.h"
#include "pipeline.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "render.h"
#include "schema.h"
#include "spool.h"
#include "subjects.h"
#include "typed.h"
#include "warn_once.h"
#include "ws_after.h"
#include "ws_check.h"
#include "ws_owed.h"

/* One call on its way through the stages. */
typedef struct call_ctx {
    const call_request *req;
    call_result *out;
    const tool_entry *e;
    const cJSON *args; /* req->args, or `empty` */
    cJSON *empty;
    cJSON *resolved; /* the arguments with their handles resolved, or NULL */
    int prepared;    /* call and subjects initialised (release them) */
    vt_call call;
    vt_subjects subjects;
    uint64_t epoch_before;
    cJSON *resp;    /* the tool's response while it is being finished */
    int explaining; /* pipeline_explain: the call will not run */
} call_ctx;

/* A stage returns 0 to go on, 1 when it settled the call in c->out. */
typedef int (*stage_fn)(call_ctx *c);

/* A refused or failed call: {"success": false, "error": message}. */
static int stop(call_ctx *c, call_status status, char *message)
{
    call_result *out = c->out;
    out->status = status;
    out->message = message ? message : strdup("internal error");
    if (!out->response) {
        out->response = cJSON_CreateObject();
        cJSON_AddBoolToObject(out->response, "success", 0);
        cJSON_AddStringToObject(out->response, "error", out->message ? out->message : "");
    }
    return 1;
}

/* ---- the stages up to the decision (call and explain) ---- */

static int stage_lookup(call_ctx *c)
{
    if (!c->req || !c->req->tool)
        return stop(c, CALL_INVALID, strdup("no tool name given"));
    c->e = registry_find(c->req->tool);
    if (!c->e && !legacy_replacement(c->req->tool)) {
        /* a lazy tool source (an MCP provider) may own the name */
        registry_dynamic_demand(c->req->tool);
        c->e = registry_find(c->req->tool);
    }
    if (!c->e || !registry_callable(c->e) || legacy_replacement(c->req->tool))
        return stop(c, CALL_UNKNOWN, msg_unknown_tool(c->req->tool));
    return 0;
}

static int stage_arguments(call_ctx *c)
{
    c->args = c->req->args;
    if (!c->args)
        c->args = c->empty = cJSON_CreateObject();
    if (!cJSON_IsObject(c->args))
        return stop(c, CALL_INVALID, msg_args_not_object(c->e->t.name));
    const frontend *fe = c->req->fe;
    if (fe && fe->opaque_handles && c->e->t.handles) {
        char *msg = NULL;
        int rc = handles_resolve(fe->client_id, c->e->t.handles, c->args, &c->resolved, &msg);
        if (rc != VT_OK)
            return stop(c, rc == VT_ERR_NOT_FOUND ? CALL_TOOL_FAILED : CALL_INVALID, msg);
        if (c->resolved)
            c->args = c->resolved;
    }
    char *err = NULL;
    if (schema_validate(c->e->schema, c->args, c->e->t.name, &err) != VT_OK)
        return stop(c, CALL_INVALID, err);
    return 0;
}

static int stage_prepare(call_ctx *c)
{
    call_init(&c->call, c->e, c->args, c->req->fe, c->req->cancel);
    c->call.explaining = c->explaining;
    c->call.max_output_tokens = schema_max_output_tokens(c->args);
    c->call.agent = c->req->agent;
    c->epoch_before = registry_epoch();
    subjects_init(&c->subjects);
    c->prepared = 1;
    return 0;
}

static int stage_preflight(call_ctx *c)
{
    const tool_entry *e = c->e;
    if (e->t.preflight && e->t.preflight(&c->call, c->args) != VT_OK)
        return stop(c, CALL_INVALID, msg_preflight(e->t.name, c->call.error));
    return 0;
}

static int stage_subjects(call_ctx *c)
{
    const tool_entry *e = c->e;
    if (e->t.subjects && e->t.subjects(&c->call, c->args, &c->subjects) != VT_OK)
        return stop(c, CALL_INVALID, msg_subjects(e->t.name, c->call.error));
    return 0;
}

/* ---- the stages after it (call only) ---- */

static int stage_permission(call_ctx *c)
{
    perm_request preq = {c->e, c->args, c->req->agent, &c->subjects, c->req->fe};
    char *why = NULL;
    if (permission_check(&preq, &why) != VT_OK)
        return stop(c, CALL_DENIED, why ? why : msg_denied(c->e->t.name));
    return 0;
}

static int stage_guard(call_ctx *c)
{
    cJSON *blocked = NULL;
    if (!guard_begin(&c->call, &c->subjects, &blocked))
        return 0;
    c->out->response = blocked;
    cJSON *h = cJSON_GetObjectItemCaseSensitive(blocked, "hint");
    return stop(c, CALL_DENIED, cJSON_IsString(h) ? strdup(h->valuestring) : msg_blocked());
}

static int run_tool(vt_call *call, const tool_entry *e, const cJSON *args, cJSON **resp)
{
    if (e->typed) {
        char *err = NULL;
        int rc = typed_tool_call(e->typed, args, resp, &err);
        if (rc != VT_OK) {
            call_error(call, rc, "%s", err ? err : "typed tool failed");
            free(err);
        }
        return rc;
    }
    return e->t.run(call, args, resp);
}

/* The host's one check of what a writer (a tool that writes the
 * workspace or runs commands) leaves behind, around its run: the
 * baselines before (ws_check.h: what command sessions may leave below
 * the writable roots; ws_after.h: what the call's subjects name and the
 * workspace's configuration table, links and hook directories), and,
 * for a tool that runs commands, the record of a check owed should
 * vthost be killed while a session outlives its call (ws_owed.h). */
typedef struct write_check {
    unsigned effects;
    int writer;
    ws_after *wa;
} write_check;

static void write_check_begin(call_ctx *c, write_check *w)
{
    w->effects = c->e->t.effects;
    w->writer = !!(w->effects & (VT_EFFECT_MUTATES_WORKSPACE | VT_EFFECT_EXECUTES));
    w->wa = NULL;
    if (!w->writer)
        return;
    if (ws_owed_call_begin(w->effects) != VT_OK)
        call_warn_once(&c->call, "a check owed after a crash could not be recorded under "
                                 "$XDG_STATE_HOME/vthost/owed/: if vthost is killed while a "
                                 "command session runs, what it leaves is not judged at the next "
                                 "start");
    char *report = NULL;
    /* what sessions left between calls, then this call's baseline */
    ws_check_call_start(!!(w->effects & VT_EFFECT_MUTATES_WORKSPACE), &report);
    call_warn_take(&c->call, report);
    ws_after_begin(&c->subjects, w->effects, &w->wa);
}

/* The judgement after the run: repositories made are neutralised,
 * configuration and links set aside, all named in the warnings; then
 * the owed record goes when no session can still write.  1 when
 * something could not be made inert: the call fails and names it. */
static int write_check_end(call_ctx *c, write_check *w, int rc)
{
    char *owed = ws_owed_take_report(); /* what the start's owed check did */
    if (owed)
        call_warn_take(&c->call, owed);
    if (!w->writer)
        return 0;
    char *report = NULL, *sessions = NULL;
    int live = ws_after_end(w->wa, &report);
    ws_check_call_end(!!(w->effects & VT_EFFECT_MUTATES_WORKSPACE), &sessions);
    call_warn_take(&c->call, sessions);
    ws_owed_call_end(w->effects, rc == VT_OK ? c->resp : NULL);
    if (!live) {
        call_warn_take(&c->call, report);
        return 0;
    }
    cJSON_Delete(c->resp);
    c->resp = NULL;
    char *m = msg_left_live(c->e->t.name, report);
    free(report);
    return stop(c, CALL_TOOL_FAILED, m);
}

/* The call ended and was judged: the subscribers hear of it. */
static void call_ended(call_ctx *c, int writer)
{
    vt_event ev = {.struct_size = sizeof ev,
                   .kind = VT_EVENT_CALL_ENDED,
                   .tool = c->e->t.name,
                   .call_id = c->call.id,
                   .writer = writer};
    host_events_raise(&ev);
}

/* A client that takes opaque handles: a handle the call named has ended
 * when the tool no longer returns it, or could not find what it named
 * (said as for any unknown handle); the result's handles are issued. */
static void handles_settle(call_ctx *c, int rc)
{
    const frontend *fe = c->req->fe;
    if (!fe || !fe->opaque_handles || !c->e->t.handles)
        return;
    if (rc == VT_ERR_NOT_FOUND && c->resolved) {
        handles_end(fe->client_id, c->e->t.handles, c->req->args, NULL);
        free(c->call.error);
        c->call.error = handles_not_found(handles_named(c->e->t.handles, c->req->args));
    } else if (rc == VT_OK && cJSON_IsObject(c->resp)) {
        if (c->resolved)
            handles_end(fe->client_id, c->e->t.handles, c->req->args, c->resp);
        handles_issue(fe->client_id, c->e->t.handles, c->resp);
    }
}

static int stage_run(call_ctx *c)
{
    write_check w;
    write_check_begin(c, &w);
    int rc = run_tool(&c->call, c->e, c->args, &c->resp);
    guard_end(&c->call);
    int left_live = write_check_end(c, &w, rc);
    call_ended(c, w.writer);
    handles_settle(c, rc);
    if (left_live)
        return 1;
    if (rc == VT_ERR_CANCELLED || (rc != VT_OK && call_cancelled(&c->call)))
        return stop(c, CALL_CANCELLED, strdup("cancelled"));
    if (rc != VT_OK) {
        cJSON_Delete(c->resp);
        c->resp = NULL;
        return stop(c, CALL_TOOL_FAILED, msg_tool_failed(c->e->t.name, c->call.error, rc));
    }
    if (!cJSON_IsObject(c->resp)) {
        cJSON *wrapped = cJSON_CreateObject();
        if (c->resp)
            cJSON_AddItemToObject(wrapped, "result", c->resp);
        c->resp = wrapped;
    }
    return 0;
}

/* Apply the output budget to a plain "output" string the tool returned. */
static int budget_plain_output(vt_call *call, cJSON *response)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(response, "output");
    if (!cJSON_IsString(o))
        return VT_OK;
    size_t len = strlen(o->valuestring);
    vt_spool *s = call_spool_open(call);
    if (!s)
        return VT_ERR_NOMEM;
    int rc = spool_append(s, o->valuestring, len);
    return rc != VT_OK ? rc : spool_finish(s, response, &call->warnings);
}

/* The budget of a structured response (vt_tool.budget_keep): over the
 * budget, its JSON text goes whole to the spool and only the kept members
 * stay, for spool_finish to add the preview to; within it, the plain
 * budget as for any tool. */
static int budget_whole_response(vt_call *call, const char *const *keep, cJSON *response)
{
    char *text = cJSON_Print(response);
    if (!text)
        return VT_ERR_NOMEM;
    size_t len = strlen(text);
    if (len <= (size_t)call->max_output_tokens * 4) {
        free(text);
        return budget_plain_output(call, response);
    }
    vt_spool *s = call_spool_open(call);
    int rc = s ? spool_append(s, text, len) : VT_ERR_NOMEM;
    free(text);
    if (rc != VT_OK)
        return rc;
    for (cJSON *f = response->child, *next; f; f = next) {
        next = f->next;
        int kept = 0;
        for (const char *const *k = keep; *k && !kept; k++)
            kept = strcmp(f->string, *k) == 0;
        if (!kept)
            cJSON_Delete(cJSON_DetachItemViaPointer(response, f));
    }
    return spool_finish(s, response, &call->warnings);
}

/* Is `name` in the "required" list of the tool's output schema? */
static int required_member(const cJSON *schema, const char *name)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              schema, "required")) if (cJSON_IsString(r) &&
                                                       strcmp(r->valuestring, name) == 0) return 1;
    return 0;
}

/* Keep only small members of an over-budget response: numbers, booleans,
 * short strings (within half the budget); a long member the output
 * schema requires stays, emptied, so the response keeps its shape.
 * "output" and the spool's own members are left to spool_finish. */
#define KEEP_STRING_MAX 200
static void keep_small_members(const tool_entry *e, cJSON *response, size_t budget)
{
    const char *os = e->output_text ? e->output_text : e->t.output_schema;
    cJSON *schema = os ? cJSON_Parse(os) : NULL;
    size_t kept = 0;
    for (cJSON *f = response->child, *next; f; f = next) {
        next = f->next;
        size_t n = 0;
        int keep = 0;
        if (strcmp(f->string, "output") == 0) {
            continue;
        } else if (cJSON_IsNumber(f) || cJSON_IsBool(f) || cJSON_IsNull(f)) {
            keep = 1;
            n = 24;
        } else if (cJSON_IsString(f) && (n = strlen(f->valuestring)) <= KEEP_STRING_MAX) {
            keep = kept + n <= budget / 2;
        }
        if (keep) {
            kept += n + strlen(f->string);
            continue;
        }
        if (required_member(schema, f->string)) {
            cJSON *empty = cJSON_IsArray(f)    ? cJSON_CreateArray()
                           : cJSON_IsObject(f) ? cJSON_CreateObject()
                                               : cJSON_CreateString("");
            if (empty)
                cJSON_ReplaceItemInObjectCaseSensitive(response, f->string, empty);
            continue;
        }
        cJSON_Delete(cJSON_DetachItemViaPointer(response, f));
    }
    cJSON_Delete(schema);
}

/* Structured members up to this size always stay (a command's exit code,
 * working directory, sandbox facts), whatever the budget. */
#define STRUCTURED_FLOOR 1024

/* Bytes of the response's JSON text besides its "output" string. */
static size_t rest_size(const cJSON *response, size_t *total)
{
    char *text = cJSON_PrintUnformatted(response);
    size_t len = text ? strlen(text) : 0;
    free(text);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(response, "output");
    *total = len;
    return len - (cJSON_IsString(o) ? strlen(o->valuestring) : 0);
}

/* Any other tool: within the budget, or when only its "output" text is
 * long, the plain budget.  When the structured rest is over the budget
 * and over STRUCTURED_FLOOR too, the whole JSON text goes to the spool and only small members
 * stay (keep_small_members). */
static int budget_any(vt_call *call, const tool_entry *e, cJSON *response)
{
    size_t budget = (size_t)call->max_output_tokens * 4, len;
    size_t rest = rest_size(response, &len);
    if (rest <= budget || rest <= STRUCTURED_FLOOR || len <= budget)
        return budget_plain_output(call, response);
    char *text = cJSON_PrintUnformatted(response);
    vt_spool *s = text ? call_spool_open(call) : NULL;
    int rc = s ? spool_append(s, text, strlen(text)) : VT_ERR_NOMEM;
    free(text);
    if (rc != VT_OK)
        return rc;
    cJSON_DeleteItemFromObjectCaseSensitive(response, "output");
    keep_small_members(e, response, budget);
    return spool_finish(s, response, &call->warnings);
}

/* A tool that wrote its output to the call's spool: structured members
 * over the budget follow that output into the spool (after a marker
 * line), and only small ones stay. */
static int budget_spooled(vt_call *call, const tool_entry *e, cJSON *response)
{
    size_t budget = (size_t)call->max_output_tokens * 4, len;
    size_t rest = rest_size(response, &len);
    if (rest > budget && rest > STRUCTURED_FLOOR) {
        cJSON *rest = cJSON_Duplicate(response, 1);
        if (rest)
            cJSON_DeleteItemFromObjectCaseSensitive(rest, "output");
        char *text = rest ? cJSON_PrintUnformatted(rest) : NULL;
        cJSON_Delete(rest);
        static const char mark[] = "\n[structured result]\n";
        if (!text || spool_append(call->spool, mark, sizeof mark - 1) != VT_OK ||
            spool_append(call->spool, text, strlen(text)) != VT_OK) {
            free(text);
            spool_finish(call->spool, response, &call->warnings);
            return VT_ERR_IO;
        }
        free(text);
        keep_small_members(e, response, budget);
    }
    return spool_finish(call->spool, response, &call->warnings);
}

/* Output budget, response shape and warnings.  A budget that cannot be
 * applied does not fail a call that ran: the response stays whole. */
static int stage_respond(call_ctx *c)
{
    vt_call *call = &c->call;
    int rc = call->spool           ? budget_spooled(call, c->e, c->resp)
             : c->e->t.budget_keep ? budget_whole_response(call, c->e->t.budget_keep, c->resp)
                                   : budget_any(call, c->e, c->resp);
    if (rc != VT_OK)
        host_log(VT_LOG_WARNING, NULL, "output budget for %s failed (%d)", c->e->t.name, rc);
    /* only the machine's and the setup's warnings are given once: what
     * a call did or left behind is named in every result that has it */
    warn_once_filter(call->fe ? call->fe->client_id : 0, &call->warnings_once);
    for (cJSON *w; call->warnings_once && (w = call->warnings_once->child);) {
        if (!call->warnings)
            call->warnings = cJSON_CreateArray();
        cJSON_AddItemToArray(call->warnings, cJSON_DetachItemViaPointer(call->warnings_once, w));
    }
    if (call->warnings) {
        cJSON_AddItemToObject(c->resp, "warnings", call->warnings);
        call->warnings = NULL;
    }
    c->out->status = CALL_OK;
    c->out->response = c->resp;
    c->resp = NULL;
    return 1;
}

/* ---- the stage lists ---- */

static const stage_fn decide_stages[] = {
    stage_lookup, stage_arguments, stage_prepare, stage_preflight, stage_subjects, NULL,
};

static const stage_fn act_stages[] = {
    stage_permission, stage_guard, stage_run, stage_respond, NULL,
};

/* Run `stages` in order; 1 when one of them settled the call. */
static int run_stages(call_ctx *c, const stage_fn *stages)
{
    for (; *stages; stages++)
        if ((*stages)(c))
            return 1;
    return 0;
}

static void ctx_release(call_ctx *c)
{
    cJSON_Delete(c->resp);
    if (c->prepared) {
        subjects_free(&c->subjects);
        call_release(&c->call);
    }
    cJSON_Delete(c->empty);
    cJSON_Delete(c->resolved);
}

int pipeline_call(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    call_ctx c = {.req = req, .out = out};
    if (!run_stages(&c, decide_stages))
        run_stages(&c, act_stages);
    if (c.prepared)
        out->list_changed = registry_epoch() != c.epoch_before;
    ctx_release(&c);
    return VT_OK;
}

void call_result_free(call_result *r)
{
    if (!r)
        return;
    cJSON_Delete(r->response);
    free(r->message);
    memset(r, 0, sizeof *r);
}

/* The decision with its trace and the subjects it was made on. */
static void explain_decision(call_ctx *c)
{
    perm_request preq = {c->e, c->args, c->req->agent, &c->subjects, c->req->fe};
    cJSON *ex = NULL;
    permission_explain(&preq, &ex);
    if (!ex)
        ex = cJSON_CreateObject();
    cJSON *subj = cJSON_CreateArray();
    for (size_t i = 0; i < c->subjects.count; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", subject_kind_name(c->subjects.items[i].kind));
        cJSON_AddStringToObject(o, "value", c->subjects.items[i].value);
        cJSON_AddItemToArray(subj, o);
    }
    if (!cJSON_GetObjectItemCaseSensitive(ex, "tool"))
        cJSON_AddStringToObject(ex, "tool", c->e->t.name);
    if (!cJSON_GetObjectItemCaseSensitive(ex, "subjects"))
        cJSON_AddItemToObject(ex, "subjects", subj);
    else
        cJSON_Delete(subj);
    c->out->status = CALL_OK;
    c->out->response = ex;
}

int pipeline_explain(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    call_ctx c = {.req = req, .out = out, .explaining = 1};
    if (!run_stages(&c, decide_stages))
        explain_decision(&c);
    ctx_release(&c);
    return VT_OK;
}
