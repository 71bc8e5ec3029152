/* Which directory `vthost serve` works in.  Clients start servers in
 * surprising places (Claude Desktop in /, others in $HOME), and with / as
 * the workspace the sandbox would let a command write anywhere; the
 * client's roots name the project instead. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file_uri.h"
#include "mcp_roots.h"
#include "paths.h"
#include "serve_workspace.h"
#include "strutil.h"
#include "text_escape.h"

/* A client that declared roots but does not answer: go on without them. */
#define ROOTS_WAIT_MS 5000

static const host_options *opts;
static int explicit_ws, told;
static atomic_int settled; /* read by serve_workspace_label without the gate */
/* Moves after each change of what serve_workspace_label or the reopened
 * host says (read without the gate). */
static atomic_uint_fast64_t generation = 1;
static char *refusal;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t host_lock = PTHREAD_RWLOCK_INITIALIZER;

static const char *why_refused(const char *dir)
{
    const char *home = getenv("HOME");
    char *h = home && *home ? realpath(home, NULL) : NULL;
    const char *why = paths_unsafe_workspace(dir, h);
    free(h);
    return why;
}

int serve_workspace_refused(const char *dir) { return why_refused(dir) != NULL; }

/* The refusal goes to the client and to standard error: a directory's
 * name is shown escaped (a name holding "\nvthost: ..." stays on its
 * line). */
static void refuse(const char *dir, const char *what)
{
    const char *why = why_refused(dir);
    char *shown = text_escape(dir, 0);
    free(refusal);
    refusal = str_printf(
        "vthost will not use %s (%s) as the workspace: it is %s. Name the project directory "
        "with --workspace DIR in the client's server configuration (e.g. \"args\": [\"serve\", "
        "\"--workspace\", \"/path/to/project\"]), start vthost from the project directory, or "
        "use a client that sends its roots; --workspace %s allows this directory explicitly.",
        shown ? shown : "", what, why ? why : "refused", shown ? shown : "");
    free(shown);
}

void serve_workspace_prepare(const host_options *o)
{
    opts = o;
    explicit_ws = o->workspace != NULL;
    mcp_roots_enable(!explicit_ws);
    if (explicit_ws)
        return;
    char *cwd = realpath(".", NULL);
    if (cwd && serve_workspace_refused(cwd))
        refuse(cwd, "the working directory");
    free(cwd);
}

/* The host, reopened on `dir`; on failure the refusal says why and the
 * host is back on its first workspace. */
static int reopen_on(const char *dir)
{
    host_options o = *opts;
    o.workspace = dir;
    char *err = NULL;
    pthread_rwlock_wrlock(&host_lock);
    host_close();
    int rc = host_open(&o, &err);
    if (rc != 0) {
        char *shown = text_escape(dir, 0), *why = text_escape(err ? err : "host start failed", 0);
        free(refusal);
        refusal = str_printf("cannot use the client's root %s as the workspace: %s",
                             shown ? shown : "", why ? why : "");
        free(shown);
        free(why);
        free(err);
        err = NULL;
        if (host_open(opts, &err) != 0)
            host_log(VT_LOG_ERROR, "serve", "cannot reopen the host: %s", err ? err : "");
        free(err);
    }
    atomic_fetch_add(&generation, 1); /* after the host it names is open */
    pthread_rwlock_unlock(&host_lock);
    return rc == 0;
}

/* The first file:// root of the client's list decides. */
static int settle_roots(const cJSON *roots)
{
    int n = cJSON_GetArraySize(roots);
    char *path = NULL;
    const cJSON *r;
    cJSON_ArrayForEach(r, roots)
    {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(r, "uri");
        if (cJSON_IsString(uri) && (path = file_uri_path(uri->valuestring)))
            break;
    }
    if (!path) {
        host_log(VT_LOG_WARNING, "serve",
                 "the client sent %d root(s), none a file:// "
                 "directory; the workspace stays %s",
                 n, host_workspace());
        return 0;
    }
    if (n > 1)
        host_log(VT_LOG_WARNING, "serve",
                 "the client sent %d roots; the workspace is the first "
                 "file:// one, %s",
                 n, path);
    char *dir = realpath(path, NULL);
    int reopened = 0;
    if (!dir) {
        char *shown = text_escape(path, 0);
        free(refusal);
        refusal = str_printf("the client's root %s is not an existing directory; pass "
                             "--workspace DIR",
                             shown ? shown : "");
        free(shown);
    } else if (serve_workspace_refused(dir)) {
        refuse(dir, "the client's root");
    } else {
        free(refusal);
        refusal = NULL;
        reopened = reopen_on(dir);
        if (reopened)
            host_log(VT_LOG_INFO, "serve", "workspace: %s (the client's root)", dir);
    }
    free(dir);
    free(path);
    return reopened;
}

const char *serve_workspace_gate(int *reopened)
{
    *reopened = 0;
    if (explicit_ws || !opts)
        return NULL;
    pthread_mutex_lock(&gate_mu);
    if (!settled) {
        cJSON *roots = NULL;
        if (mcp_roots_wait(ROOTS_WAIT_MS, &roots)) {
            if (roots)
                *reopened = settle_roots(roots);
            else
                host_log(VT_LOG_WARNING, "serve",
                         "the client did not answer roots/list; "
                         "the workspace stays %s",
                         host_workspace());
        }
        cJSON_Delete(roots);
        settled = 1;
        atomic_fetch_add(&generation, 1);
        mcp_roots_settled();
    }
    if (refusal && !told) {
        fprintf(stderr, "vthost serve: %s\n", refusal);
        told = 1;
    }
    pthread_mutex_unlock(&gate_mu);
    return refusal;
}

const char *serve_workspace_label(void)
{
    if (!settled && !explicit_ws && mcp_roots_expected())
        return "given by the client's first root";
    return host_workspace() ? host_workspace() : ".";
}

uint64_t serve_workspace_generation(void) { return atomic_load(&generation); }

void serve_workspace_read_lock(void) { pthread_rwlock_rdlock(&host_lock); }
void serve_workspace_read_unlock(void) { pthread_rwlock_unlock(&host_lock); }
