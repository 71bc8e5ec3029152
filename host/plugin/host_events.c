/* The host's event subscriptions (host_events.h).  A small fixed table
 * under a read-write lock: raising takes the read side for the
 * callbacks, so that unsubscribing (the write side) waits for a callback
 * in progress and a plugin's code is never called once its fini has
 * unsubscribed. */
#include "host_events.h"

#include <pthread.h>
#include <stddef.h>
#include <vthost/plugin.h>

#define SUBS_MAX 64

typedef struct sub {
    int id; /* 0: free */
    uint32_t kinds;
    vt_event_fn fn;
    void *user;
} sub;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static sub subs[SUBS_MAX];
static int next_id = 1;

int host_events_subscribe(uint32_t kinds, vt_event_fn fn, void *user)
{
    if (!fn || !kinds)
        return VT_ERR_INVALID;
    pthread_rwlock_wrlock(&lock);
    int id = VT_ERR_BUSY;
    for (size_t i = 0; i < SUBS_MAX; i++)
        if (!subs[i].id) {
            id = next_id++;
            subs[i] = (sub){id, kinds, fn, user};
            break;
        }
    pthread_rwlock_unlock(&lock);
    return id;
}

void host_events_unsubscribe(int id)
{
    if (id <= 0)
        return;
    pthread_rwlock_wrlock(&lock);
    for (size_t i = 0; i < SUBS_MAX; i++)
        if (subs[i].id == id)
            subs[i] = (sub){0};
    pthread_rwlock_unlock(&lock);
}

void host_events_raise(const vt_event *ev)
{
    if (!ev)
        return;
    pthread_rwlock_rdlock(&lock);
    for (size_t i = 0; i < SUBS_MAX; i++)
        if (subs[i].id && (subs[i].kinds & ev->kind))
            subs[i].fn(ev, subs[i].user);
    pthread_rwlock_unlock(&lock);
}

void host_events_clear(void)
{
    pthread_rwlock_wrlock(&lock);
    for (size_t i = 0; i < SUBS_MAX; i++)
        subs[i] = (sub){0};
    pthread_rwlock_unlock(&lock);
}
