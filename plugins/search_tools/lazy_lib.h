/* The libraries search_tools needs only once it searches a catalog that
 * holds something: libstemmer (stem.c) and the C math library (bm25.c's
 * scores).  Both are opened on first use through the host's
 * api->open_library instead of linked, so a start that never searches
 * (`vthost tools`, every MCP session until it does) maps neither. */
#ifndef VT_SEARCH_LAZY_LIB_H
#define VT_SEARCH_LAZY_LIB_H

#include <vthost/plugin.h>

typedef int (*lazy_lib_opener)(const char *soname, const vt_library_symbol *syms, char **err);

/* How libraries are opened: the host's api->open_library (the plugin
 * sets it at init; tests pass the host's own opener).  Until one is set
 * nothing opens: terms are not stemmed and scoring fails. */
void lazy_lib_set_opener(lazy_lib_opener open_library);

/* Open `soname` and fill every slot of `syms` (NULL-name ended), once per
 * `once` flag the caller keeps (0 at first): later calls return the first
 * result.  Returns 0, or VT_ERR_UNSUPPORTED with the slots left NULL.
 * Thread-safe. */
int lazy_lib_open(int *once, const char *soname, const vt_library_symbol *syms);

#endif
