/* The warnings each client session has been given: a bounded ring of
 * (session, hash of the text).  When it is full the oldest is forgotten,
 * so at worst a warning is said again, never lost the first time. */
#include "warn_once.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#define WARN_ONCE_MAX 1024

typedef struct given {
    uint64_t client, hash;
} given;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static given ring[WARN_ONCE_MAX];
static size_t used, next;

static uint64_t hash_text(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* 1 the first time `client` is given the text hashing to h. */
static int first_time_locked(uint64_t client, uint64_t h)
{
    for (size_t i = 0; i < used; i++)
        if (ring[i].client == client && ring[i].hash == h)
            return 0;
    ring[next] = (given){client, h};
    next = (next + 1) % WARN_ONCE_MAX;
    if (used < WARN_ONCE_MAX)
        used++;
    return 1;
}

void warn_once_filter(uint64_t client, cJSON **warnings)
{
    if (!*warnings)
        return;
    pthread_mutex_lock(&mu);
    cJSON *w = (*warnings)->child;
    while (w) {
        cJSON *following = w->next;
        const char *text = cJSON_GetStringValue(w);
        if (text && !first_time_locked(client, hash_text(text)))
            cJSON_Delete(cJSON_DetachItemViaPointer(*warnings, w));
        w = following;
    }
    pthread_mutex_unlock(&mu);
    if (!(*warnings)->child) {
        cJSON_Delete(*warnings);
        *warnings = NULL;
    }
}
