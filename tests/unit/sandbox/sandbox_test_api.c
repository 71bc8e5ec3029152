/* The host table the sandbox tests that reach libseccomp define as the
 * exec core's `api`: a log to stderr and the host's own library opener
 * (seccomp_lib.c binds libseccomp through it). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <vthost/plugin.h>
#include "opened_lib.h"

static void test_log(int level, const char *plugin, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void test_log(int level, const char *plugin, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%d %s] ", level, plugin);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const vt_host_api test_api = {
    .struct_size = sizeof(vt_host_api),
    .log = test_log,
    .free = free,
    .open_library = opened_lib_bind,
};
const vt_host_api *api = &test_api;
