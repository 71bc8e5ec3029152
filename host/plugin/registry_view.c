/* Per-client catalog expansions: see registry_view.h.  A short list of
 * clients, each with the entries its searches found (entries live until
 * registry_clear, so borrowed pointers are safe to keep).  Its own mutex,
 * taken inside the registry's lock and never around it. */
#include <pthread.h>
#include <stdlib.h>
#include <vthost/grow.h>
#include "registry_view.h"

typedef struct view {
    struct view *next;
    uint64_t client;
    const tool_entry **found;
    size_t n, cap;
} view;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static view *views;
static _Thread_local uint64_t viewer;

void registry_view_as(uint64_t client) { viewer = client; }

uint64_t registry_viewer(void) { return viewer; }

/* Caller holds mu. */
static view *find_locked(uint64_t client)
{
    view *v = views;
    while (v && v->client != client)
        v = v->next;
    return v;
}

int registry_view_has(const tool_entry *e)
{
    if (!viewer)
        return 0;
    int has = 0;
    pthread_mutex_lock(&mu);
    view *v = find_locked(viewer);
    for (size_t i = 0; v && i < v->n && !has; i++)
        has = v->found[i] == e;
    pthread_mutex_unlock(&mu);
    return has;
}

int registry_view_add(const tool_entry *e)
{
    int added = 0;
    pthread_mutex_lock(&mu);
    view *v = find_locked(viewer);
    if (!v && (v = calloc(1, sizeof *v))) {
        v->client = viewer;
        v->next = views;
        views = v;
    }
    if (v && VT_GROW(&v->found, &v->cap, v->n + 1) == 0) {
        v->found[v->n++] = e;
        added = 1;
    }
    pthread_mutex_unlock(&mu);
    return added;
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t registry_view_epoch(uint64_t base)
{
    if (!viewer)
        return base;
    pthread_mutex_lock(&mu);
    view *v = find_locked(viewer);
    uint64_t n = v ? v->n : 0;
    pthread_mutex_unlock(&mu);
    /* 53 bits: the epoch reaches clients as a JSON number (a double),
     * which holds an integer exactly only up to 2^53 */
    return mix(mix(base) ^ mix(viewer + 0x9e3779b97f4a7c15ULL * (n + 1))) & ((1ULL << 53) - 1);
}

void registry_view_forget(uint64_t client)
{
    pthread_mutex_lock(&mu);
    view *gone = NULL;
    for (view **p = &views; *p; p = &(*p)->next) {
        if ((*p)->client == client) {
            gone = *p;
            *p = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    if (gone) {
        free(gone->found);
        free(gone);
    }
}

void registry_view_clear(void)
{
    pthread_mutex_lock(&mu);
    view *v = views;
    views = NULL;
    pthread_mutex_unlock(&mu);
    while (v) {
        view *n = v->next;
        free(v->found);
        free(v);
        v = n;
    }
}
