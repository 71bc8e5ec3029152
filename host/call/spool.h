/* Output spool and budget: the complete output goes to a file once it
 * outgrows the budget; the model sees a head and a tail. */
#ifndef VTHOST_SPOOL_H
#define VTHOST_SPOOL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <vthost/plugin.h>

/* A spool for `tool`'s call `id` budgeted at max_tokens (4 bytes each). */
vt_spool *spool_new(const char *workspace, const char *tool, const char *id, int max_tokens);
/* The same in the spool view `view` (a directory name under SPOOL_DIR,
 * SPOOL_VIEW_FMT for an HTTP client session; NULL: none). */
vt_spool *spool_new_in(const char *workspace, const char *view, const char *tool, const char *id,
                       int max_tokens);
int spool_append(vt_spool *s, const void *buf, size_t len);
/* Set "output" (and, when cut, "truncated", "original_token_count",
 * "spool_path", and "spool_truncated" past the per-call cap or
 * "spool_incomplete" when the file could not be written whole) on
 * `result`; closes the file.  Why the file is missing or incomplete is
 * appended to *warnings (an array, created when NULL; may be NULL). */
int spool_finish(vt_spool *s, cJSON *result, cJSON **warnings);
void spool_free(vt_spool *s);

/* Tokens as the host estimates them: ceil(bytes / 4). */
size_t budget_tokens(size_t bytes);

/* Cut `text` to the budget: head and tail on character boundaries with a
 * marker between.  Returns a malloc'd preview; *omitted gets the tokens
 * left out (0 when nothing was cut, and then the text is returned
 * whole, with invalid UTF-8 replaced by U+FFFD). */
char *budget_preview(const char *head, size_t head_len, const char *tail, size_t tail_len,
                     size_t total, int max_tokens, size_t *omitted);

#endif
