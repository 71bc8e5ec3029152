/* Closing replaced files on a thread (see patch_release.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "patch_release.h"

typedef struct batch {
    int *fds;
    size_t n;
} batch;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t closer;
static int running;

static void close_batch(batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->fds[i] >= 0)
            close(b->fds[i]);
    free(b->fds);
    free(b);
}

static void *close_main(void *arg)
{
    close_batch(arg);
    return NULL;
}

/* With `lock` held. */
static void join_locked(void)
{
    if (running) {
        pthread_join(closer, NULL);
        running = 0;
    }
}

void release_later(int *fds, size_t n)
{
    size_t held = 0;
    for (size_t i = 0; i < n; i++)
        held += fds[i] >= 0;
    if (!held) { /* a patch that only added files: no thread for nothing */
        free(fds);
        return;
    }
    batch *b = malloc(sizeof *b);
    if (!b) {
        for (size_t i = 0; i < n; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        free(fds);
        return;
    }
    *b = (batch){fds, n};
    pthread_mutex_lock(&lock);
    join_locked();
    int started = pthread_create(&closer, NULL, close_main, b) == 0;
    running = started;
    pthread_mutex_unlock(&lock);
    if (!started)
        close_batch(b);
}

void release_wait(void)
{
    pthread_mutex_lock(&lock);
    join_locked();
    pthread_mutex_unlock(&lock);
}
