/* Recognising denied programs by identity (see execwatch_ident.h). */
#include "execwatch_ident.h"
#include "sandbox.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define CACHE 64

typedef struct known {
    char *name; /* the denied name */
    char *path; /* one of its files */
    dev_t dev;
    ino_t ino;
    off_t size;
} known;

typedef struct seen {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int match; /* index in known, or -1 */
} seen;

struct ew_ident {
    known *k;
    size_t nk, capk;
    pthread_mutex_t mu;
    seen cache[CACHE];
    size_t ncache, next;
};

int ew_ident_new(const char *const *names, const char *path_env, ew_ident **out)
{
    *out = NULL;
    if (!names || !names[0])
        return VT_OK;
    ew_ident *id = calloc(1, sizeof *id);
    char(*dirs)[PATH_MAX] = calloc(64, PATH_MAX);
    if (!id || !dirs) {
        free(id);
        free(dirs);
        return VT_ERR_NOMEM;
    }
    pthread_mutex_init(&id->mu, NULL);
    size_t nd = sandbox_program_dirs(path_env, dirs, 64);
    int rc = VT_OK;
    for (const char *const *nm = names; rc == VT_OK && *nm; nm++)
        for (size_t d = 0; rc == VT_OK && d < nd; d++) {
            char f[PATH_MAX];
            struct stat sb;
            if ((size_t)snprintf(f, sizeof f, "%s/%s", dirs[d], *nm) >= sizeof f ||
                stat(f, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
                continue;
            /* A multi-call binary (busybox) is other programs too: its
             * applets are judged by the names they run as, not as it. */
            char real[PATH_MAX];
            const char *own = realpath(f, real) ? strrchr(real, '/') + 1 : *nm;
            if ((strcmp(own, *nm) || sb.st_nlink > 1) &&
                sandbox_other_programs(&sb, own, names, dirs, nd))
                continue;
            int dup = 0;
            for (size_t i = 0; i < id->nk && !dup; i++)
                dup = id->k[i].dev == sb.st_dev && id->k[i].ino == sb.st_ino;
            if (dup)
                continue;
            if (VT_GROW(&id->k, &id->capk, id->nk + 1) != 0) {
                rc = VT_ERR_NOMEM;
                break;
            }
            known *e = &id->k[id->nk];
            e->name = strdup(*nm);
            e->path = strdup(f);
            e->dev = sb.st_dev;
            e->ino = sb.st_ino;
            e->size = sb.st_size;
            id->nk++;
            if (!e->name || !e->path)
                rc = VT_ERR_NOMEM;
        }
    free(dirs);
    if (rc != VT_OK || !id->nk) {
        ew_ident_free(id);
        return rc;
    }
    *out = id;
    return VT_OK;
}

void ew_ident_free(ew_ident *id)
{
    if (!id)
        return;
    for (size_t i = 0; i < id->nk; i++) {
        free(id->k[i].name);
        free(id->k[i].path);
    }
    free(id->k);
    pthread_mutex_destroy(&id->mu);
    free(id);
}

/* The bytes of `fd` equal those of the file at `path` (both `size` long). */
static int same_bytes(int fd, const char *path, off_t size)
{
    FILE *a = fdopen(dup(fd), "rb"), *b = fopen(path, "rbe");
    int same = a && b;
    char x[65536], y[65536];
    off_t done = 0;
    if (same && fseeko(a, 0, SEEK_SET) != 0)
        same = 0;
    while (same && done < size) {
        size_t na = fread(x, 1, sizeof x, a), nb = fread(y, 1, sizeof y, b);
        same = na == nb && na > 0 && memcmp(x, y, na) == 0;
        done += (off_t)na;
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    return same && done == size;
}

const char *ew_ident_match(ew_ident *id, int fd)
{
    struct stat sb;
    if (!id || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return NULL;
    for (size_t i = 0; i < id->nk; i++)
        if (id->k[i].dev == sb.st_dev && id->k[i].ino == sb.st_ino)
            return id->k[i].name; /* a hard link, or the file itself */
    int match = -1, cached = 0;
    pthread_mutex_lock(&id->mu);
    for (size_t i = 0; i < id->ncache && !cached; i++) {
        seen *s = &id->cache[i];
        if (s->dev == sb.st_dev && s->ino == sb.st_ino && s->size == sb.st_size &&
            s->mtime.tv_sec == sb.st_mtim.tv_sec && s->mtime.tv_nsec == sb.st_mtim.tv_nsec) {
            match = s->match;
            cached = 1;
        }
    }
    pthread_mutex_unlock(&id->mu);
    if (cached)
        return match >= 0 ? id->k[match].name : NULL;
    /* a copy: same size, then the same bytes */
    for (size_t i = 0; i < id->nk && match < 0; i++)
        if (id->k[i].size == sb.st_size && same_bytes(fd, id->k[i].path, sb.st_size))
            match = (int)i;
    pthread_mutex_lock(&id->mu);
    seen *s = &id->cache[id->next];
    *s = (seen){sb.st_dev, sb.st_ino, sb.st_size, sb.st_mtim, match};
    id->next = (id->next + 1) % CACHE;
    if (id->ncache < CACHE)
        id->ncache++;
    pthread_mutex_unlock(&id->mu);
    return match >= 0 ? id->k[match].name : NULL;
}
