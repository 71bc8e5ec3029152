/* libseccomp, opened by soname (api->open_library) when the first
 * command needs a filter, instead of linked: most starts of vthost run no
 * command.  Every seccomp_* function exec uses goes through `libseccomp`. */
#ifndef EXEC_SECCOMP_LIB_H
#define EXEC_SECCOMP_LIB_H

#include <seccomp.h>

/* Every function of the table, named once: the struct, the run-time
 * binding (seccomp_lib.c) and the build-time generator's table linked
 * to the library (seccomp_gen.c) are all made from this list, so a
 * function added here is set everywhere. */
#define SECCOMP_LIB_FUNCTIONS(X)                                                                   \
    X(api_get, seccomp_api_get)                                                                    \
    X(init, seccomp_init)                                                                          \
    X(release, seccomp_release)                                                                    \
    X(arch_native, seccomp_arch_native)                                                            \
    X(arch_add, seccomp_arch_add)                                                                  \
    X(attr_set, seccomp_attr_set)                                                                  \
    X(syscall_resolve_name, seccomp_syscall_resolve_name)                                          \
    X(rule_add, seccomp_rule_add)                                                                  \
    X(rule_add_array, seccomp_rule_add_array)                                                      \
    X(export_bpf, seccomp_export_bpf)                                                              \
    X(notify_alloc, seccomp_notify_alloc)                                                          \
    X(notify_free, seccomp_notify_free)                                                            \
    X(notify_receive, seccomp_notify_receive)                                                      \
    X(notify_respond, seccomp_notify_respond)                                                      \
    X(notify_id_valid, seccomp_notify_id_valid)

#define SECCOMP_LIB_MEMBER(member, fn) __typeof__(fn) *member;

typedef struct seccomp_lib {
    SECCOMP_LIB_FUNCTIONS(SECCOMP_LIB_MEMBER)
} seccomp_lib;

extern seccomp_lib libseccomp;

/* Open the library once (thread-safe).  VT_OK with every member of `libseccomp`
 * set, or VT_ERR_UNSUPPORTED (and every member NULL) after logging why
 * once.  Call it in the process, never in a forked child. */
int seccomp_lib_bind(void);

#endif
