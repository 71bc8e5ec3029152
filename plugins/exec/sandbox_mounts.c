/* The host's mount table for the sandbox's plan (sandbox_int.h), read
 * again only when it changed.
 *
 * Every plan looks for other mounts that reach what it protects (a bind
 * mount of a parent of the workspace): reading and parsing mountinfo for
 * every command cost more than the lookups.  So the table is kept with a
 * <vthost/mount_watch.h> watch, polled without waiting before each use,
 * and read again when it reports a change.
 */
#include "sandbox_int.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/mount_watch.h>

static struct {
    pthread_mutex_t mu;
    vt_mount_watch watch;
    sandbox_mnt *m;
    size_t n;
    int fresh; /* m was read after the watch's last report */
} mt = {.mu = PTHREAD_MUTEX_INITIALIZER, .watch = {.fd = -1}};

static void unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

static void mounts_free(sandbox_mnt *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].root);
        free(m[i].point);
    }
    free(m);
}

/* The table as it is now; 0, or -1 when it cannot be read. */
static int mounts_read(sandbox_mnt **out, size_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    sandbox_mnt *m = NULL;
    size_t n = 0, cap_m = 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (getline(&line, &cap, f) > 0) {
        char dev[32], root[PATH_MAX], point[PATH_MAX];
        if (sscanf(line, "%*s %*s %31s %4095s %4095s", dev, root, point) != 3)
            continue;
        if (VT_GROW(&m, &cap_m, n + 1) != 0) {
            rc = -1;
            break;
        }
        unescape(root);
        unescape(point);
        snprintf(m[n].dev, sizeof m[n].dev, "%s", dev);
        m[n].root = strdup(root);
        m[n].point = strdup(point);
        if (!m[n].root || !m[n].point) {
            free(m[n].root);
            free(m[n].point);
            rc = -1;
            break;
        }
        n++;
    }
    free(line);
    fclose(f);
    *out = m;
    *out_n = n;
    return rc;
}

/* 1 when the table kept is the current one (mt.mu held). */
static int unchanged(void)
{
    if (vt_mount_watch_changed(&mt.watch))
        mt.fresh = 0;
    return mt.fresh;
}

const sandbox_mnt *sandbox_mounts_hold(size_t *n)
{
    pthread_mutex_lock(&mt.mu);
    if (!unchanged()) {
        mounts_free(mt.m, mt.n);
        /* kept only when read whole and a descriptor reports changes; a
         * partial table serves this plan and is read again next time */
        mt.fresh = mounts_read(&mt.m, &mt.n) == 0 && vt_mount_watch_active(&mt.watch);
    }
    *n = mt.n;
    return mt.m;
}

void sandbox_mounts_release(void) { pthread_mutex_unlock(&mt.mu); }

void sandbox_mounts_fini(void)
{
    pthread_mutex_lock(&mt.mu);
    mounts_free(mt.m, mt.n);
    mt.m = NULL;
    mt.n = 0;
    mt.fresh = 0;
    vt_mount_watch_close(&mt.watch);
    pthread_mutex_unlock(&mt.mu);
}
