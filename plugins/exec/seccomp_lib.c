#include <pthread.h>
#include <vthost/plugin.h>
#include "seccomp_lib.h"
#include "session.h"

seccomp_lib libseccomp;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind(void)
{
#define SECCOMP_LIB_SYMBOL(member, fn) {#fn, (void **)&libseccomp.member},
    const vt_library_symbol syms[] = {
        SECCOMP_LIB_FUNCTIONS(SECCOMP_LIB_SYMBOL) /* then the end: */
        {NULL, NULL},
    };
    char *err = NULL;
    if (!VT_HAS(api, open_library)) {
        api->log(VT_LOG_ERROR, "exec", "this host cannot open libseccomp (plugin ABI 1.4 needed)");
        return;
    }
    if (api->open_library(VTHOST_SECCOMP_SONAME, syms, &err) != VT_OK)
        api->log(VT_LOG_ERROR, "exec", "%s", err ? err : "cannot open libseccomp");
    api->free(err);
}

int seccomp_lib_bind(void)
{
    pthread_once(&once, bind);
    return libseccomp.init ? VT_OK : VT_ERR_UNSUPPORTED;
}
