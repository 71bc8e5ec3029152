/* libutf8proc, opened on the host's first call rather than linked (as
 * cJSON is, cjson_lazy.c): a start that never escapes or classifies
 * text (`vthost tools` from its cached listing) does not map it, and a
 * call shares the one copy its plugins link instead of carrying a second
 * one linked in.  The host calls three functions; one more here is one
 * more line, one missing links the library again, which
 * host_startup_path notices. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <utf8proc.h>
#include "opened_lib.h"

static utf8proc_ssize_t (*p_iterate)(const utf8proc_uint8_t *, utf8proc_ssize_t,
                                     utf8proc_int32_t *);
static utf8proc_category_t (*p_category)(utf8proc_int32_t);
static utf8proc_uint8_t *(*p_casefold)(const utf8proc_uint8_t *);

static const opened_sym syms[] = {{"utf8proc_iterate", (void **)&p_iterate},
                                  {"utf8proc_category", (void **)&p_category},
                                  {"utf8proc_NFKC_Casefold", (void **)&p_casefold},
                                  {NULL, NULL}};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind_utf8proc(void)
{
    char *err = NULL;
    if (opened_lib_bind(VTHOST_UTF8PROC_SONAME, syms, &err) == 0)
        return;
    /* text cannot be shown safely without it: said plainly, as the
     * start a missing linked library would have refused */
    fprintf(stderr, "vthost: %s\n", err ? err : "cannot open " VTHOST_UTF8PROC_SONAME);
    exit(EXIT_FAILURE);
}

utf8proc_ssize_t utf8proc_iterate(const utf8proc_uint8_t *str, utf8proc_ssize_t len,
                                  utf8proc_int32_t *codepoint)
{
    pthread_once(&once, bind_utf8proc);
    return p_iterate(str, len, codepoint);
}

utf8proc_category_t utf8proc_category(utf8proc_int32_t codepoint)
{
    pthread_once(&once, bind_utf8proc);
    return p_category(codepoint);
}

utf8proc_uint8_t *utf8proc_NFKC_Casefold(const utf8proc_uint8_t *str)
{
    pthread_once(&once, bind_utf8proc);
    return p_casefold(str);
}
