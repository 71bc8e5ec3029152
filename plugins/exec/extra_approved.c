/* The additional write paths as the question showed them (see
 * extra_approved.h).  A small table: a record lives from a call's
 * subjects hook to its run, and one whose call never runs (denied,
 * explained) is pushed out by newer ones. */
#include "extra_approved.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "sandbox.h"

#define RECORDS 32

typedef struct record {
    uint64_t call;
    char **write;
    struct stat *ids;
    size_t n;
} record;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static record table[RECORDS];
static size_t next_slot;

static void record_clear(record *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->write[i]);
    free(r->write);
    free(r->ids);
    memset(r, 0, sizeof *r);
}

/* The copy of `x`'s paths with their identity now; st_ino 0 where a path
 * cannot be opened without a link (it then matches nothing at the run). */
static int record_fill(record *r, uint64_t call, const sandbox_extra *x)
{
    r->call = call;
    r->write = calloc(x->nwrite ? x->nwrite : 1, sizeof *r->write);
    r->ids = calloc(x->nwrite ? x->nwrite : 1, sizeof *r->ids);
    if (!r->write || !r->ids)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < x->nwrite; i++) {
        if (!(r->write[i] = strdup(x->write[i])))
            return VT_ERR_NOMEM;
        r->n++;
        int fd = sandbox_fd_open(x->write[i], &r->ids[i]);
        if (fd >= 0)
            close(fd);
        else
            memset(&r->ids[i], 0, sizeof r->ids[i]);
    }
    return VT_OK;
}

void extra_approved_remember(uint64_t call_id, const sandbox_extra *x)
{
    record fresh = {0};
    if (record_fill(&fresh, call_id, x) != VT_OK) {
        record_clear(&fresh);
        return; /* the run then finds none and refuses nothing it was not shown */
    }
    pthread_mutex_lock(&mu);
    record *slot = NULL;
    for (size_t i = 0; i < RECORDS && !slot; i++)
        if (table[i].write && table[i].call == call_id)
            slot = &table[i];
    if (!slot) {
        slot = &table[next_slot];
        next_slot = (next_slot + 1) % RECORDS;
    }
    record_clear(slot);
    *slot = fresh;
    pthread_mutex_unlock(&mu);
}

int extra_approved_take(uint64_t call_id, sandbox_extra *x)
{
    record r = {0};
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < RECORDS; i++)
        if (table[i].write && table[i].call == call_id) {
            r = table[i];
            memset(&table[i], 0, sizeof table[i]);
            break;
        }
    pthread_mutex_unlock(&mu);
    if (!r.write)
        return 0;
    for (size_t i = 0; i < x->nwrite; i++)
        free(x->write[i]);
    free(x->write);
    free(x->ids);
    x->write = r.write;
    x->ids = r.ids;
    x->nwrite = r.n;
    return 1;
}

void extra_approved_fini(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < RECORDS; i++)
        record_clear(&table[i]);
    next_slot = 0;
    pthread_mutex_unlock(&mu);
}
