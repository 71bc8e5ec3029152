/* libseccomp, opened by soname (api->open_library) when the first
 * command needs a filter, instead of linked: most starts of vthost run no
 * command.  Every seccomp_* function exec uses goes through `libseccomp`. */
#ifndef EXEC_SECCOMP_LIB_H
#define EXEC_SECCOMP_LIB_H

#include <seccomp.h>

typedef struct seccomp_lib {
    __typeof__(seccomp_api_get) *api_get;
    __typeof__(seccomp_init) *init;
    __typeof__(seccomp_release) *release;
    __typeof__(seccomp_arch_native) *arch_native;
    __typeof__(seccomp_arch_add) *arch_add;
    __typeof__(seccomp_attr_set) *attr_set;
    __typeof__(seccomp_syscall_resolve_name) *syscall_resolve_name;
    __typeof__(seccomp_rule_add) *rule_add;
    __typeof__(seccomp_rule_add_array) *rule_add_array;
    __typeof__(seccomp_export_bpf) *export_bpf;
    __typeof__(seccomp_notify_alloc) *notify_alloc;
    __typeof__(seccomp_notify_free) *notify_free;
    __typeof__(seccomp_notify_receive) *notify_receive;
    __typeof__(seccomp_notify_respond) *notify_respond;
    __typeof__(seccomp_notify_id_valid) *notify_id_valid;
} seccomp_lib;

extern seccomp_lib libseccomp;

/* Open the library once (thread-safe).  VT_OK with every member of `libseccomp`
 * set, or VT_ERR_UNSUPPORTED (and every member NULL) after logging why
 * once.  Call it in the process, never in a forked child. */
int seccomp_lib_bind(void);

#endif
