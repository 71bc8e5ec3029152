/* The call pipeline, the one way in for every front end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "call.h"
#include "call_ops.h"
#include "guard.h"
#include "log.h"
#include "legacy.h"
#include "permission.h"
#include "pipeline.h"
#include "registry.h"
#include "render.h"
#include "schema.h"
#include "spool.h"
#include "subjects.h"
#include "typed.h"
#include "strutil.h"

/* A failed call: {"success": false, "error": message}. */
static int fail(call_result *out, call_status status, char *message)
{
    out->status = status;
    out->message = message ? message : strdup("internal error");
    if (!out->response) {
        out->response = cJSON_CreateObject();
        cJSON_AddBoolToObject(out->response, "success", 0);
        cJSON_AddStringToObject(out->response, "error", out->message ? out->message : "");
    }
    return VT_OK;
}

static char *unknown_tool_message(const char *name)
{
    const char *repl = legacy_replacement(name);
    if (repl)
        return str_printf("Tool '%s' was removed: %s.", name, repl);
    const tool_entry *e = registry_find(name);
    if (e && registry_needs_search(e))
        return str_printf("Tool '%s' is deferred: it is not in the tool list yet. Find it with "
                          "search_tools first (a query describing what you need); the tools "
                          "it finds are listed and callable from then on.", name);
    if (e && !registry_callable(e))
        return str_printf("Tool '%s' is available only in a profile that lists it (for "
                   "code_search: --profile advanced, or [tools] profile = \"advanced\" "
                   "in vtcode.toml).", name);
    char *names = registry_listed_names();
    const char *hint = registry_suggest(name);
    char *m = hint ? str_printf("Unknown tool: %s. Available tools: %s. Did you mean '%s'?", name,
                         names ? names : "", hint)
                   : str_printf("Unknown tool: %s. Available tools: %s.", name, names ? names : "");
    free(names);
    return m;
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

int pipeline_call(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    if (!req || !req->tool)
        return fail(out, CALL_INVALID, strdup("no tool name given"));
    const tool_entry *e = registry_find(req->tool);
    if (!e || !registry_callable(e) || legacy_replacement(req->tool))
        return fail(out, CALL_UNKNOWN, unknown_tool_message(req->tool));

    cJSON *empty = NULL;
    const cJSON *args = req->args;
    if (!args)
        args = empty = cJSON_CreateObject();
    if (!cJSON_IsObject(args)) {
        cJSON_Delete(empty);
        return fail(out, CALL_INVALID,
                    str_printf("Invalid arguments for tool '%s': root: must be a JSON object",
                        e->t.name));
    }
    char *err = NULL;
    if (schema_validate(e->schema, args, e->t.name, &err) != VT_OK) {
        cJSON_Delete(empty);
        return fail(out, CALL_INVALID, err);
    }

    vt_call call;
    call_init(&call, e, args, req->fe, req->cancel);
    call.max_output_tokens = schema_max_output_tokens(args);
    call.agent = req->agent;
    uint64_t epoch_before = registry_epoch();
    cJSON *resp = NULL;
    vt_subjects subjects;
    subjects_init(&subjects);

    if (e->t.preflight && e->t.preflight(&call, args) != VT_OK) {
        fail(out, CALL_INVALID,
             str_printf("Invalid arguments for tool '%s': %s", e->t.name,
                 call.error ? call.error : "rejected by the tool's preflight check"));
        goto done;
    }
    if (e->t.subjects && e->t.subjects(&call, args, &subjects) != VT_OK) {
        fail(out, CALL_INVALID, call.error ? strdup(call.error)
                                           : str_printf("tool '%s' could not describe what the "
                                                 "call touches", e->t.name));
        goto done;
    }
    perm_request preq = {e, args, req->agent, &subjects, req->fe};
    char *why = NULL;
    if (permission_check(&preq, &why) != VT_OK) {
        fail(out, CALL_DENIED, why ? why : str_printf("Permission denied for tool '%s'.", e->t.name));
        goto done;
    }
    cJSON *blocked = NULL;
    if (guard_check(e, args, &blocked)) {
        out->response = blocked;
        cJSON *h = cJSON_GetObjectItemCaseSensitive(blocked, "hint");
        fail(out, CALL_DENIED,
             strdup(cJSON_IsString(h) ? h->valuestring
                                      : "blocked until a verification command succeeds"));
        goto done;
    }

    int rc = run_tool(&call, e, args, &resp);
    if (rc == VT_ERR_CANCELLED || (rc != VT_OK && call_cancelled(&call))) {
        fail(out, CALL_CANCELLED, strdup("cancelled"));
        goto done;
    }
    if (rc != VT_OK) {
        cJSON_Delete(resp);
        resp = NULL;
        fail(out, CALL_TOOL_FAILED,
             call.error ? strdup(call.error) : str_printf("tool '%s' failed (%d)", e->t.name, rc));
        goto done;
    }
    if (!cJSON_IsObject(resp)) {
        cJSON *wrapped = cJSON_CreateObject();
        if (resp)
            cJSON_AddItemToObject(wrapped, "result", resp);
        resp = wrapped;
    }
    if (call.spool)
        rc = spool_finish(call.spool, resp, &call.warnings);
    else
        rc = budget_plain_output(&call, resp);
    if (rc != VT_OK)
        host_log(VT_LOG_WARNING, NULL, "output budget for %s failed (%d)", e->t.name, rc);
    render_normalize_diff(resp);
    if (call.warnings) {
        cJSON_AddItemToObject(resp, "warnings", call.warnings);
        call.warnings = NULL;
    }
    out->status = CALL_OK;
    out->response = resp;
    resp = NULL;
done:
    cJSON_Delete(resp);
    out->list_changed = registry_epoch() != epoch_before;
    subjects_free(&subjects);
    call_release(&call);
    cJSON_Delete(empty);
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

int pipeline_explain(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    const tool_entry *e = req && req->tool ? registry_find(req->tool) : NULL;
    if (!e || !registry_callable(e) || legacy_replacement(req->tool))
        return fail(out, CALL_UNKNOWN, unknown_tool_message(req && req->tool ? req->tool : ""));
    cJSON *empty = NULL;
    const cJSON *args = req->args ? req->args : (empty = cJSON_CreateObject());
    char *err = NULL;
    if (!cJSON_IsObject(args) || schema_validate(e->schema, args, e->t.name, &err) != VT_OK) {
        cJSON_Delete(empty);
        return fail(out, CALL_INVALID,
                    err ? err : str_printf("Invalid arguments for tool '%s': root: must be a JSON "
                                    "object", e->t.name));
    }
    vt_call call;
    call_init(&call, e, args, req->fe, req->cancel);
    vt_subjects subjects;
    subjects_init(&subjects);
    if (e->t.preflight && e->t.preflight(&call, args) != VT_OK) {
        fail(out, CALL_INVALID, str_printf("Invalid arguments for tool '%s': %s", e->t.name,
                                    call.error ? call.error : "rejected by preflight"));
    } else if (e->t.subjects && e->t.subjects(&call, args, &subjects) != VT_OK) {
        fail(out, CALL_INVALID, call.error ? strdup(call.error) : strdup("subjects failed"));
    } else {
        perm_request preq = {e, args, req->agent, &subjects, req->fe};
        cJSON *ex = NULL;
        permission_explain(&preq, &ex);
        if (!ex)
            ex = cJSON_CreateObject();
        cJSON *subj = cJSON_CreateArray();
        for (size_t i = 0; i < subjects.count; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "kind", subject_kind_name(subjects.items[i].kind));
            cJSON_AddStringToObject(o, "value", subjects.items[i].value);
            cJSON_AddItemToArray(subj, o);
        }
        if (!cJSON_GetObjectItemCaseSensitive(ex, "tool"))
            cJSON_AddStringToObject(ex, "tool", e->t.name);
        if (!cJSON_GetObjectItemCaseSensitive(ex, "subjects"))
            cJSON_AddItemToObject(ex, "subjects", subj);
        else
            cJSON_Delete(subj);
        out->status = CALL_OK;
        out->response = ex;
    }
    subjects_free(&subjects);
    call_release(&call);
    cJSON_Delete(empty);
    return VT_OK;
}
