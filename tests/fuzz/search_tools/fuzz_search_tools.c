/* Fuzz target for search_tools' text reader: tok_split (words, camelCase
 * humps, joined identifiers, case folding and NFC with utf8proc) and
 * stem_split (the same, stemmed).  Checked besides memory safety: every
 * term is non-empty, NUL-terminated at its length, holds no ASCII
 * separator, and is valid UTF-8; a blank text yields no term. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "opened_lib.h"
#include "lazy_lib.h"
#include "stem.h"
#include "tokenize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_term(void *ctx, const char *term, size_t len)
{
    size_t *count = ctx;
    if (len == 0 || term[len] != '\0' || strlen(term) != len)
        abort();
    for (size_t i = 0; i < len; i++)
        if (term[i] == ' ' || term[i] == '\n' || term[i] == '\t')
            abort();
    utf8proc_int32_t cp;
    for (size_t i = 0; i < len;) {
        utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)term + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (n <= 0)
            abort();
        i += (size_t)n;
    }
    (*count)++;
    return 0;
}

static int stop_at_two(void *ctx, const char *term, size_t len)
{
    (void)term;
    (void)len;
    return ++*(size_t *)ctx >= 2 ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int opener_set;
    if (!opener_set) { /* libstemmer as the host opens it for the plugin */
        lazy_lib_set_opener(opened_lib_bind);
        opener_set = 1;
    }
    /* Not NUL-terminated: the reader must stay within len. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    size_t n1 = 0, n2 = 0, n3 = 0;
    if (tok_split(text, size, check_term, &n1) != 0)
        abort();
    if (stem_split(text, size, check_term, &n2) != 0 || n2 != n1)
        abort();
    if (tok_is_blank(text, size) && n1 != 0)
        abort();
    int rc = tok_split(text, size, stop_at_two, &n3);
    if ((n1 >= 2) != (rc == 7))
        abort();
    free(text);
    return 0;
}
