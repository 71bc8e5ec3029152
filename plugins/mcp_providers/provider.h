/* One configured MCP server (a provider): its child process, the
 * JSON-RPC connection to it, and its life cycle. */
#ifndef MCPP_PROVIDER_H
#define MCPP_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <vthost/plugin.h>

typedef enum provider_state {
    PROV_IDLE = 0,      /* configured, not started (lazy) */
    PROV_STARTING = 1,
    PROV_READY = 2,
    PROV_FAILED = 3,    /* exited or broke; restarted on the next use */
    PROV_DISABLED = 4   /* retry_attempts used up, or cannot run at all */
} provider_state;

typedef struct provider_limits {
    int request_timeout_ms;   /* handshake, tools/list */
    int startup_timeout_ms;
    int tool_timeout_ms;      /* tools/call */
    int retry_attempts;
    int max_concurrent;       /* calls in flight per provider */
    size_t max_message;       /* bytes in one message from the provider */
} provider_limits;

typedef struct rpc_wait rpc_wait;

typedef struct provider {
    /* configuration (immutable after config load) */
    char *name;
    char *prefix;             /* mcp__<name>__ */
    char **argv;              /* command + args, NULL-terminated */
    char **envp;              /* configured env + PATH, HOME */
    char *cwd;                /* absolute, or NULL for the workspace */
    int eager;
    provider_limits lim;

    pthread_mutex_t start_mu; /* serialises start and restart */
    pthread_mutex_t mu;       /* everything below */
    pthread_cond_t cond;
    provider_state state;
    char *reason;             /* why FAILED / DISABLED (malloc'd) */
    int failures;             /* consecutive failed starts or crashes */
    struct timespec retry_at; /* CLOCK_MONOTONIC: no restart before */
    pid_t pid;
    int fd;                   /* our end of the child's stdin/stdout socket */
    int io_running, io_joinable, stopping;
    pthread_t io;
    unsigned generation;      /* bumps with every start */
    long next_id;
    rpc_wait *waits;
    int list_dirty;           /* notifications/tools/list_changed seen */
    int active_calls;
    unsigned long calls, restarts;
    pthread_mutex_t wmu;      /* one writer at a time */
} provider;

void provider_init(provider *p);
/* Stop the child (its process group: SIGTERM, then SIGKILL) and join. */
void provider_stop(provider *p);
void provider_free(provider *p);

/* Start the child and its reader thread (state STARTING).  Returns 0, or
 * a negative status with *err (malloc'd) saying why. */
int provider_spawn(provider *p, char **err);
/* Kill the child after a protocol failure; waits fail with `why`. */
void provider_fail(provider *p, const char *why);

/* Send a request and wait for its response: *reply receives the whole
 * response message (free with cJSON_Delete).  `params` is taken.
 * `call` (may be NULL) gets progress and is polled for cancellation,
 * which is forwarded as notifications/cancelled.  Returns 0 (the reply
 * may still carry "error"), VT_ERR_CANCELLED, or VT_ERR_IO with *err. */
int provider_request(provider *p, const char *method, cJSON *params, vt_call *call,
                     int timeout_ms, cJSON **reply, char **err);
int provider_notify(provider *p, const char *method, cJSON *params);
/* Send one message (a response to the provider's own request); takes
 * msg.  Returns 0, or -1 when the provider is gone. */
int provider_send(provider *p, cJSON *msg);

const char *provider_state_name(provider_state s);
/* Called (from the reader thread, no lock held) when a provider says
 * its tools changed; set by the plugin. */
extern void (*mcpp_list_changed)(provider *p);
/* The plugin's host API (set by init). */
extern const vt_host_api *mcpp_api;

#endif
