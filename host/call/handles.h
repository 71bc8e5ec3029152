/* Opaque handles for clients of the 2026-07-28 revision: the values a
 * tool names as handles (vt_tool.handles: a running command's session
 * id) are handed to such a client as 128 random bits in hex, bound to
 * its client id (one per principal), and turned back into the value when
 * a later call of the same client names them.  A handle nobody issued to
 * that client, a small integer guessed, another principal's handle: all
 * read "not found", the same as one whose thing has ended. */
#ifndef VTHOST_CALL_HANDLES_H
#define VTHOST_CALL_HANDLES_H

#include <cjson/cJSON.h>
#include <stdint.h>

#define HANDLE_HEX_LEN 32

/* The arguments with each handle member in `names` (NULL-terminated)
 * replaced by the value its handle stands for.  Returns 0 with *out (a
 * new object, or NULL when no member is present), or VT_ERR_NOT_FOUND
 * with *msg (malloc'd) when a member holds no handle of `client`. */
int handles_resolve(uint64_t client, const char *const *names, const cJSON *args, cJSON **out,
                    char **msg);

/* Replace each handle member of `result` by `client`'s handle for its
 * value: the one issued before for the same member and value, or a new
 * one.  0, or VT_ERR_NOMEM (the member is then removed: a value the
 * client must not see is never left in its place). */
int handles_issue(uint64_t client, const char *const *names, cJSON *result);

/* The call that named the handles in `args` (as the client sent them)
 * has ended them: forget each whose member `result` does not carry
 * (result NULL: every one). */
void handles_end(uint64_t client, const char *const *names, const cJSON *args, const cJSON *result);

/* The "not found" message of a handle member. */
char *handles_not_found(const char *member);
/* The first member of `names` that `args` has ("handle" when none). */
const char *handles_named(const char *const *names, const cJSON *args);

/* Forget every handle (the server stops). */
void handles_reset(void);

#endif
