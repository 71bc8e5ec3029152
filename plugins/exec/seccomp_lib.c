#include <pthread.h>
#include <vthost/plugin.h>
#include "seccomp_lib.h"
#include "session.h"

seccomp_lib libseccomp;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind(void)
{
    const vt_library_symbol syms[] = {
        {"seccomp_api_get", (void **)&libseccomp.api_get},
        {"seccomp_init", (void **)&libseccomp.init},
        {"seccomp_release", (void **)&libseccomp.release},
        {"seccomp_arch_native", (void **)&libseccomp.arch_native},
        {"seccomp_arch_add", (void **)&libseccomp.arch_add},
        {"seccomp_attr_set", (void **)&libseccomp.attr_set},
        {"seccomp_syscall_resolve_name", (void **)&libseccomp.syscall_resolve_name},
        {"seccomp_rule_add", (void **)&libseccomp.rule_add},
        {"seccomp_rule_add_array", (void **)&libseccomp.rule_add_array},
        {"seccomp_export_bpf", (void **)&libseccomp.export_bpf},
        {"seccomp_notify_alloc", (void **)&libseccomp.notify_alloc},
        {"seccomp_notify_free", (void **)&libseccomp.notify_free},
        {"seccomp_notify_receive", (void **)&libseccomp.notify_receive},
        {"seccomp_notify_respond", (void **)&libseccomp.notify_respond},
        {"seccomp_notify_id_valid", (void **)&libseccomp.notify_id_valid},
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
