/* PCRE2 for the host: the one place the host reaches the library, opened
 * by soname on the first pattern compiled (util/opened_lib.h) instead of
 * linked.  Most starts compile none (the default policy's rules are
 * literal words and prefixes), and mapping the library would cost each
 * of them its loader work and page faults.  The types are PCRE2's own:
 * a pattern compiled here is a pcre2_code like any other.
 *
 * Match data and match contexts exist only for compiled patterns, so
 * every function but rx_compile, rx_match_data_create and
 * rx_match_context_create may assume the library is open; those three
 * open it and return NULL when it cannot be opened. */
#ifndef VTHOST_RX_H
#define VTHOST_RX_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

/* rx_compile's *errcode when the library itself cannot be opened;
 * rx_error_message then says which library and why. */
#define RX_ERROR_NO_LIBRARY (-100000)

/* pcre2_compile, opening the library first.  On failure NULL with
 * *errcode (a PCRE2 error code or RX_ERROR_NO_LIBRARY) and *erroffset. */
pcre2_code *rx_compile(PCRE2_SPTR pattern, PCRE2_SIZE length, uint32_t options, int *errcode,
                       PCRE2_SIZE *erroffset);

/* pcre2_get_error_message, and the open failure for
 * RX_ERROR_NO_LIBRARY. */
int rx_error_message(int errcode, PCRE2_UCHAR *buffer, PCRE2_SIZE bufflen);

/* pcre2_jit_compile: best effort, the interpreter serves otherwise. */
int rx_jit_compile(pcre2_code *code, uint32_t options);

/* pcre2_code_free; NULL is fine (and never opens the library). */
void rx_code_free(pcre2_code *code);

/* pcre2_match_data_create(ovecsize, NULL), opening the library first. */
pcre2_match_data *rx_match_data_create(uint32_t ovecsize);
pcre2_match_data *rx_match_data_create_from_pattern(const pcre2_code *code);
/* pcre2_match_data_free; NULL is fine. */
void rx_match_data_free(pcre2_match_data *md);

/* A match context with the given match and depth limits (freed with the
 * process: callers keep one for good), opening the library first. */
pcre2_match_context *rx_match_context_create(uint32_t match_limit, uint32_t depth_limit);

/* pcre2_match. */
int rx_match(const pcre2_code *code, PCRE2_SPTR subject, PCRE2_SIZE length, PCRE2_SIZE start,
             uint32_t options, pcre2_match_data *md, pcre2_match_context *mc);

#endif
