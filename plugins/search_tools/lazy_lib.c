/* Opening search_tools' libraries on first use (see lazy_lib.h).  They
 * are never closed: a process that searched once will search again. */
#include <pthread.h>
#include <stdlib.h>
#include "lazy_lib.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static lazy_lib_opener opener;

void lazy_lib_set_opener(lazy_lib_opener open_library)
{
    pthread_mutex_lock(&mu);
    opener = open_library;
    pthread_mutex_unlock(&mu);
}

/* *once: 0 untried (or no opener yet), 1 opened, -1 failed.  Under mu,
 * so that two first uses open once. */
int lazy_lib_open(int *once, const char *soname, const vt_library_symbol *syms)
{
    pthread_mutex_lock(&mu);
    if (*once == 0 && opener) {
        char *err = NULL;
        *once = opener(soname, syms, &err) == 0 ? 1 : -1;
        free(err); /* api->free and the host's opener both use the C heap */
    }
    int rc = *once == 1 ? 0 : VT_ERR_UNSUPPORTED;
    pthread_mutex_unlock(&mu);
    return rc;
}
