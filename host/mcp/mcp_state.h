/* requestState of the 2026-07-28 revision (multi round-trip requests):
 * what a call has asked its client and been answered so far, handed to
 * the client with an input_required result and back with the retry.
 * The state is signed (HMAC-SHA256 with a key drawn at start, so only
 * this process accepts it) and bound to the principal, the tool, a hash
 * of the arguments and a deadline; each state is accepted once: its
 * nonce is remembered until its deadline.  Nothing of a call waits in
 * memory between the rounds.  A state from another process (this server
 * before a restart) is refused with a message saying so: see
 * mcp_state.c for why states do not outlive their process. */
#ifndef VTHOST_MCP_STATE_H
#define VTHOST_MCP_STATE_H

#include <cjson/cJSON.h>
#include <stdint.h>

/* The hash binding a state to one call: SHA-256 over the tool name, the
 * per-call agent and the arguments as sent, in hex. */
#define MCP_STATE_HASH_LEN 65
int mcp_state_call_hash(const char *tool, const char *agent, const cJSON *args,
                        char out[MCP_STATE_HASH_LEN]);

/* A new requestState (malloc'd): `asked` (array of the input request
 * keys, borrowed) and `answers` (object, key -> answer, borrowed), good
 * for ttl_ms.  NULL when it cannot be made (libcrypto missing, out of
 * memory). */
char *mcp_state_issue(const char *principal, const char *tool, const char *hash, const cJSON *asked,
                      const cJSON *answers, int ttl_ms);

/* Check `text` against the call it comes back with and accept it once.
 * Returns 0 with *asked and *answers (new, the caller's), or -1 with
 * *why: a message for the client saying what was wrong. */
int mcp_state_accept(const char *text, const char *principal, const char *tool, const char *hash,
                     cJSON **asked, cJSON **answers, const char **why);

#endif
