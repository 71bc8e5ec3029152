/* The host API stubs both mcp_providers fuzz harnesses hand the plugin's
 * files (fuzz_mcp_providers.c, ../mcp_providers_http/): logging that
 * formats and drops, progress that checks what it is given, a call never
 * cancelled, a workspace that does not exist. */
#ifndef VTHOST_FUZZ_PROVIDER_STUBS_H
#define VTHOST_FUZZ_PROVIDER_STUBS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>

static void stub_log(int level, const char *plugin, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stub_log(int level, const char *plugin, const char *fmt, ...)
{
    (void)level;
    (void)plugin;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
}

static void stub_progress(vt_call *call, double progress, double total, const char *message)
{
    (void)call;
    if (progress != progress || total != total)
        abort(); /* NaN never comes out of JSON */
    if (message)
        (void)strlen(message);
}

static int stub_cancelled(const vt_call *call)
{
    (void)call;
    return 0;
}

static const char *stub_root(void) { return "/nonexistent/fuzz-workspace"; }

#endif
