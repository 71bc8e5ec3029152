/* Which of the protected names at the workspace root are there
 * (sandbox_int.h), kept between plans while the workspace index says
 * nothing changed.
 *
 * Every plan looked each of the ~80 names up (the policy files, the IDE
 * and agent configuration), almost all absent.  A name at the root comes
 * or goes, or changes kind, only by an entry made, removed or renamed in
 * the root, which the index logs.  So the answer is kept with the
 * index's mark taken before the lookups, and reused while the changes
 * since that mark are none and complete (the index kept by events, no
 * event lost: the service says so); anything else looks again. */
#include "sandbox_int.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/services.h>

static struct {
    pthread_mutex_t mu;
    const vt_wsindex_v1 *x;
    const char *const *names; /* the service's list (borrowed while it lives) */
    char *root;
    unsigned char *present;
    size_t n;
    uint64_t mark;
    int valid;
} nc = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int has_mark(const vt_wsindex_v1 *x)
{
    return x &&
           x->struct_size >= offsetof(vt_wsindex_v1, changes_since) + sizeof x->changes_since &&
           x->mark && x->changes_since;
}

/* 1 when the index logged no change since nc.mark and lost none; the
 * mark moves to now (nc.mu held). */
static int quiet_since(void)
{
    cJSON *o = NULL;
    if (nc.x->changes_since(NULL, nc.mark, &o) != VT_OK || !o)
        return 0;
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(o, "changes");
    const cJSON *mark = cJSON_GetObjectItemCaseSensitive(o, "mark");
    int quiet = cJSON_IsArray(ch) && cJSON_GetArraySize(ch) == 0 &&
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "complete")) &&
                cJSON_IsNumber(mark);
    if (quiet)
        nc.mark = (uint64_t)mark->valuedouble;
    cJSON_Delete(o);
    return quiet;
}

static int same_key(const vt_wsindex_v1 *x, const char *root, const char *const *names, size_t n)
{
    return nc.valid && nc.x == x && nc.names == names && nc.n == n && nc.root &&
           !strcmp(nc.root, root);
}

/* Keep `present` for the next plan (nc.mu held); without memory, nothing
 * is kept. */
static void keep(const vt_wsindex_v1 *x, const char *root, const char *const *names, size_t n,
                 const unsigned char *present, uint64_t mark)
{
    nc.valid = 0;
    if (nc.n != n || !nc.present) {
        free(nc.present);
        nc.present = malloc(n ? n : 1);
        nc.n = nc.present ? n : 0;
    }
    if (!nc.root || strcmp(nc.root, root)) {
        free(nc.root);
        nc.root = strdup(root);
    }
    if (!nc.present || !nc.root)
        return;
    memcpy(nc.present, present, n);
    nc.x = x;
    nc.names = names;
    nc.mark = mark;
    nc.valid = 1;
}

void sandbox_names_present(const sandbox *sb, const char *root, const char *const *names,
                           unsigned char *present)
{
    size_t n = 0;
    while (names[n])
        n++;
    const vt_wsindex_v1 *x = has_mark(sb->index) ? sb->index : NULL;
    pthread_mutex_lock(&nc.mu);
    if (x && same_key(x, root, names, n) && quiet_since()) {
        memcpy(present, nc.present, n);
        pthread_mutex_unlock(&nc.mu);
        return;
    }
    /* the mark before the lookups: a change after it shows next time */
    uint64_t mark = x ? x->mark(NULL) : 0;
    for (size_t i = 0; i < n; i++) {
        char f[PATH_MAX + 16];
        struct stat st;
        present[i] = snprintf(f, sizeof f, "%s/%s", root, names[i]) < (int)sizeof f &&
                     lstat(f, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
    }
    if (x)
        keep(x, root, names, n, present, mark);
    else
        nc.valid = 0;
    pthread_mutex_unlock(&nc.mu);
}

void sandbox_names_fini(void)
{
    pthread_mutex_lock(&nc.mu);
    free(nc.present);
    free(nc.root);
    nc.present = NULL;
    nc.root = NULL;
    nc.n = 0;
    nc.valid = 0;
    pthread_mutex_unlock(&nc.mu);
}
