/* Multi round-trip requests for a 2026-07-28 tools/call.  An input
 * request's key is a hash of what it asks, so the same question in the
 * next round finds its answer, and a different question (other
 * arguments, another rule) is asked anew. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "digest.h"
#include "mcp_client.h"
#include "mcp_era.h"
#include "mcp_input.h"
#include "mcp_roots.h"
#include "mcp_state.h"

/* The roots question: one per server, whatever the call. */
#define ROOTS_KEY "vthost-roots"

/* A sampled answer kept in requestState; the reviewer's verdict is one
 * line, so longer text is cut. */
#define ANSWER_MAX 8192

static const char *const decision_names[] = {"deny", "approve", "decline", "cancel"};

/* "vthost-<what>-<16 hex of SHA-256(method, params)>" */
static int key_of(const char *what, const char *method, const cJSON *params, char *out, size_t n)
{
    char *text = cJSON_PrintUnformatted(params);
    char *both = text ? malloc(strlen(method) + strlen(text) + 2) : NULL;
    unsigned char md[DIGEST_SHA256_LEN];
    int rc = -1;
    if (both) {
        sprintf(both, "%s\n%s", method, text);
        rc = digest_sha256(both, strlen(both), md, NULL);
    }
    free(both);
    free(text);
    if (rc != 0)
        return -1;
    char hex[2 * DIGEST_SHA256_LEN + 1];
    digest_hex(md, sizeof md, hex);
    snprintf(out, n, "vthost-%s-%.16s", what, hex);
    return 0;
}

/* Record an unanswered question (params taken). */
static void ask(mcp_input *in, const char *key, const char *method, cJSON *params)
{
    if (cJSON_GetObjectItemCaseSensitive(in->asked, key)) {
        cJSON_Delete(params);
        return;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "method", method);
    if (params)
        cJSON_AddItemToObject(r, "params", params);
    cJSON_AddItemToObject(in->asked, key, r);
}

static int prompt(void *ctx, const cJSON *request)
{
    mcp_call *c = ctx;
    mcp_input *in = c->in;
    if (in->sampling_open)
        return PROMPT_CANCELLED; /* the model's answer may settle it: ask that first */
    cJSON *params = mcp_client_approval_params(request, 1);
    char key[64];
    if (!params || key_of("approval", "elicitation/create", params, key, sizeof key) < 0) {
        cJSON_Delete(params);
        return -1;
    }
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in->answers, key));
    for (int i = 0; d && i < 4; i++) {
        if (strcmp(d, decision_names[i]) == 0) {
            cJSON_Delete(params);
            return i; /* PROMPT_* in decision_names' order */
        }
    }
    ask(in, key, "elicitation/create", params);
    return PROMPT_CANCELLED; /* refused this round, before the tool runs */
}

static int sample(void *ctx, const char *system_prompt, const char *user_text,
                  const char *model_hint, char **answer)
{
    mcp_call *c = ctx;
    mcp_input *in = c->in;
    *answer = NULL;
    cJSON *params = mcp_client_sampling_params(system_prompt, user_text, model_hint);
    char key[64];
    if (!params || key_of("review", "sampling/createMessage", params, key, sizeof key) < 0) {
        cJSON_Delete(params);
        return -1;
    }
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in->answers, key));
    if (text) {
        cJSON_Delete(params);
        *answer = strdup(text);
        return *answer ? 0 : -1;
    }
    ask(in, key, "sampling/createMessage", params);
    in->sampling_open = 1;
    return -1;
}

/* This retry's inputResponses for the keys the state asked, as answers. */
static void take_responses(mcp_input *in, const cJSON *asked, const cJSON *responses)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, asked)
    {
        const char *key = cJSON_GetStringValue(k);
        const cJSON *res = key ? cJSON_GetObjectItemCaseSensitive(responses, key) : NULL;
        if (!cJSON_IsObject(res) || cJSON_GetObjectItemCaseSensitive(in->answers, key))
            continue;
        if (strncmp(key, "vthost-approval-", 16) == 0) {
            int d = mcp_era_decision(res);
            cJSON_AddStringToObject(in->answers, key, decision_names[d]);
        } else if (strcmp(key, ROOTS_KEY) == 0) {
            const cJSON *roots = cJSON_GetObjectItemCaseSensitive(res, "roots");
            char *text = cJSON_IsArray(roots) ? cJSON_PrintUnformatted(roots) : NULL;
            if (text && strlen(text) <= ANSWER_MAX) {
                cJSON *keep = cJSON_CreateObject();
                cJSON_AddItemToObject(keep, "roots", cJSON_Duplicate(roots, 1));
                cJSON_AddItemToObject(in->answers, key, keep);
            }
            free(text);
        } else if (strncmp(key, "vthost-review-", 14) == 0) {
            char *text = mcp_client_sampled_text(cJSON_GetObjectItemCaseSensitive(res, "content"));
            if (text && strlen(text) > ANSWER_MAX)
                text[ANSWER_MAX] = '\0';
            if (text)
                cJSON_AddStringToObject(in->answers, key, text);
            free(text);
        }
    }
}

static int declared(const cJSON *caps, const char *name)
{
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, name));
}

/* Form-mode elicitation: {} or one naming "form". */
static int declares_form(const cJSON *caps)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(caps, "elicitation");
    return cJSON_IsObject(e) && (!e->child || cJSON_GetObjectItemCaseSensitive(e, "form"));
}

/* Answer the call with its unanswered questions and a requestState. */
static void send_input_required(struct mcp_server *s, mcp_call *c)
{
    mcp_input *in = c->in;
    cJSON *keys = cJSON_CreateArray();
    for (const cJSON *k = in->asked->child; k; k = k->next)
        cJSON_AddItemToArray(keys, cJSON_CreateString(k->string));
    char *state =
        mcp_state_issue(c->principal, c->tool, in->hash, keys, in->answers, s->input_ttl_ms);
    cJSON_Delete(keys);
    if (!state) {
        mcp_send_error(s, c->id, RPC_INTERNAL_ERROR,
                       "Internal error: cannot sign a requestState (libcrypto is missing)");
        return;
    }
    cJSON *res = cJSON_CreateObject();
    cJSON_AddItemToObject(res, "inputRequests", in->asked);
    in->asked = NULL;
    cJSON_AddStringToObject(res, "requestState", state);
    free(state);
    mcp_send_result(s, c->id, mcp_era_result(res, "input_required"));
}

static int refuse(struct mcp_server *s, mcp_call *c, const char *why)
{
    mcp_send_error(s, c->id, RPC_INVALID_PARAMS, why);
    return -1;
}

int mcp_input_begin(struct mcp_server *s, mcp_call *c, const cJSON *params, const mcp_meta *m)
{
    mcp_input *in = calloc(1, sizeof *in);
    if (!in)
        return refuse(s, c, "Internal error: out of memory");
    c->in = in;
    in->can_elicit = declares_form(m->caps);
    in->can_sample = declared(m->caps, "sampling");
    in->asked = cJSON_CreateObject();
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(params, "requestState");
    const cJSON *responses = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    if (state && !cJSON_IsString(state))
        return refuse(s, c, "Invalid params: requestState must be the string the server sent");
    if (responses && !cJSON_IsObject(responses))
        return refuse(s, c, "Invalid params: inputResponses must be an object");
    if (mcp_state_call_hash(c->tool, c->agent, c->args, in->hash) < 0)
        return refuse(s, c, "Internal error: cannot hash the call (libcrypto is missing)");
    if (state) {
        cJSON *asked = NULL;
        const char *why = NULL;
        if (mcp_state_accept(state->valuestring, c->principal, c->tool, in->hash, &asked,
                             &in->answers, &why) < 0)
            return refuse(s, c, why);
        take_responses(in, asked, responses);
        cJSON_Delete(asked);
    } else {
        in->answers = cJSON_CreateObject();
    }
    /* The workspace from the client's roots, before the first call runs
     * (serve_workspace.c), when vthost was not given one. */
    if (declared(m->caps, "roots") && mcp_roots_open()) {
        const cJSON *roots = cJSON_GetObjectItemCaseSensitive(in->answers, ROOTS_KEY);
        if (!roots) {
            ask(in, ROOTS_KEY, "roots/list", NULL);
            send_input_required(s, c);
            return -1;
        }
        mcp_roots_supply(roots);
    }
    /* No server-to-client requests in this era: prompts and sampling go
     * through input_required, and a plugin's own requests are refused. */
    if (in->can_elicit)
        c->fe.prompt = prompt;
    if (in->can_sample)
        c->fe.sample = sample;
    c->fe.client_caps = 0;
    c->fe.client_request = NULL;
    return 0;
}

int mcp_input_finish(struct mcp_server *s, mcp_call *c, const call_result *r)
{
    mcp_input *in = c->in;
    /* A question asked while the tool already ran (a program a command
     * started) was refused like an unanswerable prompt: the result
     * stands, the call is not run again. */
    if (!in || !in->asked->child || r->status != CALL_DENIED)
        return 0;
    send_input_required(s, c);
    return 1;
}

void mcp_input_free(mcp_input *in)
{
    if (!in)
        return;
    cJSON_Delete(in->answers);
    cJSON_Delete(in->asked);
    free(in);
}
