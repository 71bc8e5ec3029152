/* Questions a 2026-07-28 call asks its client: the permission prompt
 * (elicitation) and the auto reviewer's question to the client's model
 * (sampling), as input_required results (multi round-trip requests).
 * A round runs the call with the answers known so far; a question
 * without an answer refuses the call before it runs, and the client is
 * handed the question and a requestState (mcp_state.h) to retry with. */
#ifndef VTHOST_MCP_INPUT_H
#define VTHOST_MCP_INPUT_H

#include <cjson/cJSON.h>
#include "mcp_internal.h"

typedef struct mcp_input {
    int can_elicit, can_sample; /* what this request's capabilities declare */
    char hash[65];              /* mcp_state_call_hash of the call */
    cJSON *answers;             /* key -> answer: the state's and this retry's */
    cJSON *asked;               /* key -> input request, unanswered this round */
    int sampling_open;          /* a sampling question is unanswered */
} mcp_input;

/* Set up c->fe (prompt, sample, progress kept) for a 2026-07-28 call from
 * its params (requestState and inputResponses, checked here).  Returns
 * 0, or -1 after answering the request itself: with the error, or with
 * input_required asking for the client's roots (a request that declares
 * roots, while vthost still waits for them to pick the workspace). */
int mcp_input_begin(struct mcp_server *s, mcp_call *c, const cJSON *params, const mcp_meta *m);

/* After the pipeline ran the call: when a question went unanswered and
 * refused the call before it ran, answer it with input_required and
 * return 1; else 0 (answer the call as usual). */
int mcp_input_finish(struct mcp_server *s, mcp_call *c, const call_result *r);

void mcp_input_free(mcp_input *in);

#endif
