/* The client ids of stateless requests, one per principal: see
 * http_stateless.h.  A short list: principals are the static token's
 * one owner or the OAuth subjects that called since the server started. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "host.h"
#include "http_stateless.h"
#include "spool_dir.h"

typedef struct principal {
    struct principal *next;
    uint64_t client_id;
    char name[];
} principal;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static principal *list;

/* A random id, never 0 or UINT64_MAX (the host's "no client" values);
 * 64 random bits do not meet a session's. */
static uint64_t random_id(void)
{
    uint64_t id = 0;
    while (id == 0 || id == UINT64_MAX)
        if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
            return 0;
    return id;
}

uint64_t http_stateless_client(const char *name)
{
    pthread_mutex_lock(&mu);
    principal *p = list;
    while (p && strcmp(p->name, name) != 0)
        p = p->next;
    if (!p) {
        size_t n = strlen(name) + 1;
        uint64_t id = random_id();
        p = id ? malloc(sizeof *p + n) : NULL;
        if (p) {
            memcpy(p->name, name, n);
            p->client_id = id;
            p->next = list;
            list = p;
        }
    }
    uint64_t id = p ? p->client_id : 0;
    pthread_mutex_unlock(&mu);
    return id;
}

void http_stateless_reset(void)
{
    pthread_mutex_lock(&mu);
    principal *p = list;
    list = NULL;
    pthread_mutex_unlock(&mu);
    while (p) {
        principal *n = p->next;
        /* Its spool view goes unless it holds output (the user's to read). */
        spool_view_remove(host_workspace(), p->client_id);
        free(p);
        p = n;
    }
}
