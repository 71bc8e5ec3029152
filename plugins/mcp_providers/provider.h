/* One configured MCP server (a provider): the JSON-RPC connection to it
 * (over the transport of transport.h) and its life cycle. */
#ifndef MCPP_PROVIDER_H
#define MCPP_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <vthost/plugin.h>
#include "transport.h"

typedef enum provider_state {
    PROV_IDLE = 0, /* configured, not started (lazy) */
    PROV_STARTING = 1,
    PROV_READY = 2,
    PROV_FAILED = 3,  /* exited or broke; restarted on the next use */
    PROV_DISABLED = 4 /* retry_attempts used up, or cannot run at all */
} provider_state;

typedef struct provider_limits {
    int request_timeout_ms; /* handshake, tools/list */
    int startup_timeout_ms;
    int tool_timeout_ms; /* tools/call */
    int retry_attempts;
    int max_concurrent;   /* calls in flight per provider */
    size_t max_message;   /* bytes in one message from the provider */
    int relay_per_call;   /* requests relayed to the client in one call */
    int relay_per_minute; /* ... by one provider (a token bucket) */
} provider_limits;

typedef struct rpc_wait rpc_wait;

/* A tool call running as an MCP task (task.c): between its requests
 * (tools/call, tasks/get, tasks/result) nothing of the call waits on the
 * provider, so the task's progress (under the tools/call's token) and
 * its notifications/tasks/status find the call here. */
typedef struct task_route {
    struct task_route *next;
    long token;        /* the progressToken of the task's tools/call */
    long result_token; /* ... of its tasks/result (0 before) */
    vt_call *call;     /* progress goes here */
    char task_id[128]; /* empty until the provider created the task */
    int kicked;        /* a status notification arrived: poll now */
    int own_progress;  /* the provider sent progress of its own */
    int ended;         /* the provider ended the task itself */
    double shown;      /* the last progress value given to the call */
    char *status_msg;  /* the last statusMessage given to the call */
} task_route;

struct provider {
    /* configuration (immutable after config load) */
    char *name;
    char *prefix;           /* mcp__<name>__ */
    char **argv;            /* stdio: command + args, NULL-terminated */
    char **envp;            /* stdio: configured env + PATH, HOME */
    size_t env_configured;  /* how many of envp the configuration names */
    char *cwd;              /* stdio: absolute, or NULL for the workspace */
    char *endpoint;         /* http: the MCP endpoint URL */
    char **headers;         /* http: "Name: value" lines, NULL-terminated */
    char **env_headers;     /* http: "Name: ENV_VAR" lines, values read at connect */
    char *api_key_env;      /* http: Authorization: Bearer $api_key_env */
    char *protocol_version; /* asked for in initialize; NULL: the newest known */
    int eager;
    int bad_config; /* its vtcode.toml entry is wrong: disabled, says why */
    provider_limits lim;
    const transport_ops *tp;
    void *tp_state; /* the transport's (tp->destroy frees it) */

    pthread_mutex_t start_mu; /* serialises start and restart */
    pthread_mutex_t mu;       /* everything below */
    pthread_cond_t cond;
    provider_state state;
    char *reason;             /* why FAILED / DISABLED (malloc'd) */
    int failures;             /* consecutive failed starts or crashes */
    struct timespec retry_at; /* CLOCK_MONOTONIC: no restart before */
    int connected;            /* the transport can carry requests */
    int resend_ok;            /* the connection ended before the provider processed
                                 what was in flight (an HTTP session it forgot) */
    int stopping;             /* vthost ends */
    unsigned generation;      /* bumps with every start */
    long next_id;
    rpc_wait *waits;
    task_route *routes;
    int list_dirty;                /* notifications/tools/list_changed seen */
    struct timespec roots_settled; /* CLOCK_MONOTONIC: calls wait until then after a
                                      roots/list answer (zero: never asked) */
    int active_calls;
    unsigned long calls, restarts;
    double relay_tokens;         /* what relay_per_minute still allows */
    struct timespec relay_clock; /* when relay_tokens was last refilled */
};

void provider_init(provider *p);
/* vthost ends: requests waiting for p fail at once, and nothing starts
 * it again (provider_stop then closes the connection). */
void provider_abandon(provider *p);
/* Close the connection for good (vthost ends) and wait for it. */
void provider_stop(provider *p);
void provider_free(provider *p);

/* Connect (state STARTING): start the child, or prepare the HTTP
 * session.  Returns 0, or a negative status with *err (malloc'd). */
int provider_open(provider *p, char **err);
/* Break the connection after a protocol failure or a hang; waits fail
 * with `why`.  Returns once the connection is down. */
void provider_fail(provider *p, const char *why);

/* Send a request and wait for its response: *reply receives the whole
 * response message (free with cJSON_Delete).  `params` is taken.
 * `call` (may be NULL) gets progress and is polled for cancellation,
 * which is forwarded as notifications/cancelled.  Returns 0 (the reply
 * may still carry "error"), VT_ERR_CANCELLED, or VT_ERR_IO with *err. */
int provider_request(provider *p, const char *method, cJSON *params, vt_call *call, int timeout_ms,
                     cJSON **reply, char **err);
int provider_notify(provider *p, const char *method, cJSON *params);

/* A progress token no request of p uses (a task keeps its tools/call's
 * token after the answer: provider_request keeps a progressToken that
 * `params._meta` already has; task.h routes it). */
long provider_new_token(provider *p);

/* Send one message (a response to the provider's own request); takes
 * msg.  Returns 0, or -1 when the provider is gone. */
int provider_send(provider *p, cJSON *msg);

const char *provider_state_name(provider_state s);
/* Before a tools/call: a provider that asked for the roots applies the
 * answer asynchronously (server-filesystem checks each directory first),
 * so a call right behind the answer would find no allowed directory.
 * Waits until PROVIDER_ROOTS_SETTLE_MS after the answer (no wait when it
 * never asked or the time has passed). */
#define PROVIDER_ROOTS_SETTLE_MS 300
void provider_roots_settle(provider *p);
/* *t = CLOCK_MONOTONIC now + ms; provider_past: 1 once *t has passed. */
void provider_deadline(struct timespec *t, int ms);
int provider_past(const struct timespec *t);
/* Called (from the reader thread, no lock held) when a provider says
 * its tools changed; set by the plugin. */
extern void (*mcpp_list_changed)(provider *p);
/* The plugin's host API (set by init). */
extern const vt_host_api *mcpp_api;

#endif
