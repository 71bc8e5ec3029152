/* HTTP providers' transport as the plugin sees it: forwarders that open
 * the libcurl transport (http_transport.c, a module of its own next to
 * the plugin) on the first connect.  libcurl brings about thirty shared
 * libraries (TLS, Kerberos, LDAP, ...) whose loading and relocation cost
 * several times a whole vthost start; a session without an HTTP provider
 * never maps them.  Until the module is bound no HTTP provider has
 * connected, so the other operations have nothing to do. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "provider.h"

static const provider_calls calls_table = {
    .receive = provider_receive,
    .connected = provider_connected,
    .closed = provider_closed,
    .req_done = provider_req_done,
    .req_failed = provider_req_failed,
    .deadline = provider_deadline,
    .past = provider_past,
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static provider_calls calls;
static const transport_ops *real;
/* A buffer, not the heap: the plugin may be unloaded at exit (sanitizer
 * builds), and a leak checker would then see a heap copy as lost. */
static char bind_error[768];

/* The module is code run in vthost: refused, like a plugin, when others
 * than its owner may write it or its folder. */
static int writable_by_others(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH));
}

static void bind_module(void)
{
    Dl_info self;
    if (!dladdr((void *)&calls_table, &self) || !self.dli_fname) {
        snprintf(bind_error, sizeof bind_error, "cannot locate the mcp_providers plugin");
        return;
    }
    char *copy = strdup(self.dli_fname);
    char *path = copy ? mcpp_api->format("%s/%s", dirname(copy), MCPP_HTTP_MODULE_PATH) : NULL;
    free(copy);
    if (!path)
        return;
    char *folder = strdup(path);
    int unsafe = folder && (writable_by_others(path) || writable_by_others(dirname(folder)));
    free(folder);
    if (unsafe) {
        snprintf(bind_error, sizeof bind_error,
                 "%s or its folder is group- or world-writable; refusing to load it (chmod go-w)",
                 path);
        free(path);
        return;
    }
    /* Never closed: connections and their threads outlive any caller. */
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    mcpp_http_entry_fn entry = NULL;
    if (h)
        *(void **)&entry = dlsym(h, MCPP_HTTP_ENTRY_SYMBOL);
    calls = calls_table;
    calls.api = mcpp_api;
    if (entry)
        real = entry(&calls);
    if (!real) {
        const char *e = dlerror();
        snprintf(bind_error, sizeof bind_error,
                 "cannot load the HTTP transport %s: %s (it needs libcurl: reinstall "
                 "vthost-plugin-mcp-providers)",
                 path, e ? e : "no entry point");
    }
    free(path);
}

static int lazy_open(provider *p, char **err)
{
    pthread_once(&once, bind_module);
    if (!real) { /* retrying will not help: the provider is disabled */
        const char *why = bind_error[0] ? bind_error : "cannot load the HTTP transport";
        pthread_mutex_lock(&p->mu);
        p->state = PROV_DISABLED;
        free(p->reason);
        p->reason = strdup(why);
        pthread_mutex_unlock(&p->mu);
        *err = strdup(why);
        return VT_ERR_UNSUPPORTED;
    }
    return real->open(p, err);
}

static int lazy_send(provider *p, const char *text, const transport_req *req)
{
    return real ? real->send(p, text, req) : -1;
}

static void lazy_fail(provider *p)
{
    if (real)
        real->fail(p);
}

static void lazy_stop(provider *p)
{
    if (real)
        real->stop(p);
}

static void lazy_destroy(provider *p)
{
    if (real)
        real->destroy(p);
}

static void lazy_describe(const provider *p, cJSON *o)
{
    cJSON_AddStringToObject(o, "endpoint", p->endpoint ? p->endpoint : "");
}

const transport_ops http_transport = {
    .name = "http",
    .open = lazy_open,
    .send = lazy_send,
    .fail = lazy_fail,
    .stop = lazy_stop,
    .destroy = lazy_destroy,
    .describe = lazy_describe,
    .answers_on_send = 1,
};
