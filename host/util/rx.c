/* PCRE2 opened on first use (see rx.h).  Bound once under pthread_once:
 * every member or none. */
#include <pthread.h>
#include <stdio.h>
#include "opened_lib.h"
#include "rx.h"

static struct pcre_fns {
    __typeof__(pcre2_compile) *compile;
    __typeof__(pcre2_get_error_message) *get_error_message;
    __typeof__(pcre2_jit_compile) *jit_compile;
    __typeof__(pcre2_code_free) *code_free;
    __typeof__(pcre2_match_data_create) *match_data_create;
    __typeof__(pcre2_match_data_create_from_pattern) *match_data_create_from_pattern;
    __typeof__(pcre2_match_data_free) *match_data_free;
    __typeof__(pcre2_match_context_create) *match_context_create;
    __typeof__(pcre2_set_match_limit) *set_match_limit;
    __typeof__(pcre2_set_depth_limit) *set_depth_limit;
    __typeof__(pcre2_match) *match;
} pcre;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char *open_error; /* kept for the process, as the library is */

static void bind_pcre2(void)
{
    /* PCRE2's 8-bit entry points: pcre2.h maps pcre2_compile to
     * pcre2_compile_8 for PCRE2_CODE_UNIT_WIDTH 8. */
    const opened_sym syms[] = {
        {"pcre2_compile_8", (void **)&pcre.compile},
        {"pcre2_get_error_message_8", (void **)&pcre.get_error_message},
        {"pcre2_jit_compile_8", (void **)&pcre.jit_compile},
        {"pcre2_code_free_8", (void **)&pcre.code_free},
        {"pcre2_match_data_create_8", (void **)&pcre.match_data_create},
        {"pcre2_match_data_create_from_pattern_8", (void **)&pcre.match_data_create_from_pattern},
        {"pcre2_match_data_free_8", (void **)&pcre.match_data_free},
        {"pcre2_match_context_create_8", (void **)&pcre.match_context_create},
        {"pcre2_set_match_limit_8", (void **)&pcre.set_match_limit},
        {"pcre2_set_depth_limit_8", (void **)&pcre.set_depth_limit},
        {"pcre2_match_8", (void **)&pcre.match},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_PCRE2_SONAME, syms, &open_error);
}

static int opened(void)
{
    pthread_once(&once, bind_pcre2);
    return pcre.compile != NULL;
}

pcre2_code *rx_compile(PCRE2_SPTR pattern, PCRE2_SIZE length, uint32_t options, int *errcode,
                       PCRE2_SIZE *erroffset)
{
    if (!opened()) {
        *errcode = RX_ERROR_NO_LIBRARY;
        *erroffset = 0;
        return NULL;
    }
    return pcre.compile(pattern, length, options, errcode, erroffset, NULL);
}

int rx_error_message(int errcode, PCRE2_UCHAR *buffer, PCRE2_SIZE bufflen)
{
    if (errcode == RX_ERROR_NO_LIBRARY || !opened())
        return snprintf((char *)buffer, bufflen, "%s",
                        open_error ? open_error : "the PCRE2 library is not open");
    return pcre.get_error_message(errcode, buffer, bufflen);
}

int rx_jit_compile(pcre2_code *code, uint32_t options) { return pcre.jit_compile(code, options); }

void rx_code_free(pcre2_code *code)
{
    if (code)
        pcre.code_free(code);
}

pcre2_match_data *rx_match_data_create(uint32_t ovecsize)
{
    return opened() ? pcre.match_data_create(ovecsize, NULL) : NULL;
}

pcre2_match_data *rx_match_data_create_from_pattern(const pcre2_code *code)
{
    return pcre.match_data_create_from_pattern(code, NULL);
}

void rx_match_data_free(pcre2_match_data *md)
{
    if (md)
        pcre.match_data_free(md);
}

pcre2_match_context *rx_match_context_create(uint32_t match_limit, uint32_t depth_limit)
{
    pcre2_match_context *mc = opened() ? pcre.match_context_create(NULL) : NULL;
    if (mc) {
        pcre.set_match_limit(mc, match_limit);
        pcre.set_depth_limit(mc, depth_limit);
    }
    return mc;
}

int rx_match(const pcre2_code *code, PCRE2_SPTR subject, PCRE2_SIZE length, PCRE2_SIZE start,
             uint32_t options, pcre2_match_data *md, pcre2_match_context *mc)
{
    return pcre.match(code, subject, length, start, options, md, mc);
}
