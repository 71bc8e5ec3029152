/* The walk of the scope, on a few threads.  Every directory's .gitignore
 * and .ignore (from the workspace root down) form a chain of rule sets;
 * the deepest set with a matching rule decides, .ignore before
 * .gitignore.  .git, .env files and symlinks are skipped; other hidden
 * files are not.
 *
 * Directories wait on one shared stack; each thread takes one, lists it,
 * keeps its files and pushes its subdirectories.  A directory's rule set
 * is made once by the thread that lists it and is then only read (by the
 * threads walking below it), so the chain needs no lock; every set lives
 * until the walk ends.  Each thread keeps its own entries; they are put
 * together and sorted at the end, so the result does not depend on which
 * thread saw what. */
#include "cs_ignore.h"
#include "cs_types.h"
#include "cs_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* Bytes of directory entries fetched per getdents64 call. */
#define DENTS_BUF 32768

typedef struct frame {
    const struct frame *up; /* the rules of the directories above */
    size_t prefix;          /* length of the directory's rel path incl. '/' */
    cs_ignore rules[2];     /* .ignore, .gitignore */
} frame;

typedef struct task {
    char *rel; /* the directory, workspace-relative ("" for the root) */
    const frame *fr;
} task;

typedef struct shared {
    int rootfd; /* the root: directories open relative to it */
    uint64_t mask;
    int want_dirs;
    int (*skip)(void *ud, const char *rel, int is_dir);
    void *skip_ud;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    task *q; /* directories to list (a stack) */
    size_t nq, capq;
    size_t busy;    /* threads listing a directory */
    int rc;         /* first error */
    frame **frames; /* every rule set, freed at the end */
    size_t nframes, capframes;
} shared;

typedef struct walker {
    shared *sh;
    cs_walk out; /* this thread's entries */
    pcre2_match_data *md;
    char path[8192]; /* the workspace-relative path of the entry */
    char *dbuf;      /* DENTS_BUF bytes for getdents64 */
} walker;

static int push_entry(cs_walk *w, const char *rel, int is_dir, int lang, int lexer)
{
    if (VT_GROW(&w->v, &w->cap, w->n + 1) != 0)
        return VT_ERR_NOMEM;
    char *r = strdup(rel);
    if (!r)
        return VT_ERR_NOMEM;
    w->v[w->n++] = (cs_entry){r, (unsigned char)is_dir, (signed char)lang, (unsigned char)lexer};
    return 0;
}

/* The rule set of the directory open at `dirfd` (workspace-relative
 * path of length n, 0 for the root) below `up`: bit 0 of `which` loads
 * .ignore, bit 1 .gitignore.  NULL without either (nothing to match: `up`
 * serves); the set is kept in sh->frames. */
static int make_frame(shared *sh, int dirfd, size_t n, unsigned which, const frame *up,
                      const frame **out)
{
    *out = up;
    if (!which)
        return 0;
    frame *f = calloc(1, sizeof *f);
    if (!f)
        return VT_ERR_NOMEM;
    f->up = up;
    f->prefix = n ? n + 1 : 0;
    static const char *const names[2] = {".ignore", ".gitignore"};
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        if (which & (1u << i))
            rc = cs_ignore_load(&f->rules[i], dirfd, names[i]);
    }
    if (rc == 0) {
        pthread_mutex_lock(&sh->mu);
        rc = VT_GROW(&sh->frames, &sh->capframes, sh->nframes + 1) != 0 ? VT_ERR_NOMEM : 0;
        if (rc == 0)
            sh->frames[sh->nframes++] = f;
        pthread_mutex_unlock(&sh->mu);
    }
    if (rc < 0) {
        cs_ignore_free(&f->rules[0]);
        cs_ignore_free(&f->rules[1]);
        free(f);
        return rc;
    }
    *out = f;
    return 0;
}

static int ignored(walker *k, const frame *fr, const char *rel, size_t n, int is_dir)
{
    for (const frame *f = fr; f; f = f->up) {
        if (f->prefix > n)
            continue;
        for (int j = 0; j < 2; j++) {
            int m = cs_ignore_match(&f->rules[j], rel + f->prefix, n - f->prefix, is_dir, k->md);
            if (m >= 0)
                return m;
        }
    }
    return 0;
}

static int is_env(const char *name)
{
    return strcmp(name, ".env") == 0 || strncmp(name, ".env.", 5) == 0;
}

static int add_file(cs_walk *out, uint64_t mask, const char *rel, const char *base)
{
    int lexer;
    int lang = cs_lang_of_file(base, &lexer);
    if (mask && (lang < 0 || !(mask & ((uint64_t)1 << lang))))
        return 0;
    return push_entry(out, rel, 0, lang, lexer);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const cs_entry *)a)->rel, ((const cs_entry *)b)->rel);
}

typedef struct dent {
    char *name;
    int type;
} dent;

/* The entries of the directory open at `fd` (without ".", "..", .git and
 * .env files), and which ignore files it has.  Listed with getdents64 on
 * a plain descriptor: opendir would also fstat the directory and allocate
 * a buffer, once per directory of the tree, for nothing the walk uses. */
static int list_dir(int fd, char *dbuf, dent **out, size_t *count, unsigned *which)
{
    *out = NULL;
    *count = 0;
    *which = 0;
    size_t cap = 0;
    int rc = 0;
    ssize_t got;
    while (rc == 0 && (got = getdents64(fd, dbuf, DENTS_BUF)) > 0) {
        for (ssize_t off = 0; off < got && rc == 0;) {
            const struct dirent64 *de = (const struct dirent64 *)(const void *)(dbuf + off);
            off += de->d_reclen;
            const char *name = de->d_name;
            if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
                continue;
            if (strcmp(name, ".git") == 0 || is_env(name))
                continue;
            if (strcmp(name, ".ignore") == 0)
                *which |= 1;
            else if (strcmp(name, ".gitignore") == 0)
                *which |= 2;
            char *nm = VT_GROW(out, &cap, *count + 1) == 0 ? strdup(name) : NULL;
            if (!nm)
                rc = VT_ERR_NOMEM;
            else
                (*out)[(*count)++] = (dent){nm, de->d_type};
        }
    }
    return rc;
}

/* Queue directory `rel` (taken over) with the rules `fr` above it. */
static int push_task(shared *sh, char *rel, const frame *fr)
{
    pthread_mutex_lock(&sh->mu);
    int rc = VT_GROW(&sh->q, &sh->capq, sh->nq + 1) != 0 ? VT_ERR_NOMEM : 0;
    if (rc == 0) {
        sh->q[sh->nq++] = (task){rel, fr};
        pthread_cond_signal(&sh->cv);
    }
    pthread_mutex_unlock(&sh->mu);
    if (rc < 0)
        free(rel);
    return rc;
}

/* One entry `name` of the directory open at `dirfd`, whose relative path
 * is in k->path up to `base` (where the name goes), under the rules
 * `fr`. */
static int walk_entry(walker *k, const frame *fr, int dirfd, size_t base, const char *name,
                      int type)
{
    shared *sh = k->sh;
    char *path = k->path;
    size_t nl = strlen(name);
    if (base + nl + 2 >= sizeof k->path)
        return 0;
    if (base)
        path[base - 1] = '/';
    memcpy(path + base, name, nl + 1);
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return 0;
        type = S_ISDIR(st.st_mode)   ? DT_DIR
               : S_ISREG(st.st_mode) ? DT_REG
               : S_ISLNK(st.st_mode) ? DT_LNK
                                     : DT_UNKNOWN;
    }
    if (type != DT_DIR && type != DT_REG)
        return 0; /* symlinks are not followed; devices are skipped */
    const char *rel = path;
    size_t rlen = base + nl;
    if (ignored(k, fr, rel, rlen, type == DT_DIR))
        return 0;
    if (sh->skip && sh->skip(sh->skip_ud, rel, type == DT_DIR))
        return 0;
    if (type == DT_REG)
        return add_file(&k->out, sh->mask, rel, name);
    int rc = sh->want_dirs ? push_entry(&k->out, rel, 1, -1, 0) : 0;
    char *sub = rc == 0 ? strndup(rel, rlen) : NULL;
    if (rc == 0 && !sub)
        rc = VT_ERR_NOMEM;
    return rc == 0 ? push_task(sh, sub, fr) : rc;
}

/* List directory t->rel: its own rules, then its entries.  Everything in
 * it (ignore files, entries of unknown type) is reached relative to its
 * descriptor, never by a path walked again from the root. */
static int walk_dir(walker *k, const task *t)
{
    shared *sh = k->sh;
    size_t n = strlen(t->rel);
    if (n + 2 >= sizeof k->path)
        return 0;
    memcpy(k->path, t->rel, n + 1);
    /* Relative to the root: the kernel walks the directory's own path,
     * not the root's components again for every directory. */
    int fd = openat(sh->rootfd, n ? t->rel : ".",
                    O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0; /* unreadable directories are skipped, like rg */
    dent *ents;
    size_t count;
    unsigned which;
    const frame *fr = t->fr;
    int rc = list_dir(fd, k->dbuf, &ents, &count, &which);
    if (rc == 0)
        rc = make_frame(sh, fd, n, which, t->fr, &fr);
    size_t base = n + (n ? 1 : 0);
    for (size_t e = 0; rc == 0 && e < count; e++)
        rc = walk_entry(k, fr, fd, base, ents[e].name, ents[e].type);
    for (size_t e = 0; e < count; e++)
        free(ents[e].name);
    free(ents);
    close(fd);
    return rc;
}

/* A walking thread: directories from the stack until it is empty and no
 * thread can add more, or an error. */
static void *walk_main(void *arg)
{
    walker *k = arg;
    shared *sh = k->sh;
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        while (sh->nq == 0 && sh->busy > 0 && sh->rc == 0)
            pthread_cond_wait(&sh->cv, &sh->mu);
        if (sh->nq == 0 || sh->rc != 0)
            break;
        task t = sh->q[--sh->nq];
        sh->busy++;
        pthread_mutex_unlock(&sh->mu);
        int rc = walk_dir(k, &t);
        free(t.rel);
        pthread_mutex_lock(&sh->mu);
        sh->busy--;
        if (rc < 0 && sh->rc == 0)
            sh->rc = rc;
        if (sh->rc != 0 || (sh->nq == 0 && sh->busy == 0))
            pthread_cond_broadcast(&sh->cv);
    }
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
    return NULL;
}

/* The rule set of the directory srel[0, n) above the scope, below `*fr`. */
static int ancestor_frame(shared *sh, const char *srel, size_t n, const frame **fr)
{
    char *dir = strndup(srel, n);
    if (!dir)
        return VT_ERR_NOMEM;
    int fd = openat(sh->rootfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    free(dir);
    int rc = make_frame(sh, fd, n, fd >= 0 ? 3 : 0, *fr, fr);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The rule sets of the root and of every directory above the scope
 * `srel` (walk_dir adds the scope's own), then the walk on `threads`
 * threads; every thread's entries are moved to `out`. */
static int walk_tree(shared *sh, const char *srel, int threads, cs_walk *out)
{
    size_t srlen = strlen(srel);
    const frame *fr = NULL;
    int rc = 0;
    if (srlen)
        rc = make_frame(sh, sh->rootfd, 0, 3, NULL, &fr);
    for (size_t i = 0; rc == 0 && i < srlen; i++)
        if (srel[i] == '/')
            rc = ancestor_frame(sh, srel, i, &fr);
    char *top = rc == 0 ? strdup(srel) : NULL;
    if (rc == 0)
        rc = top ? push_task(sh, top, fr) : VT_ERR_NOMEM;
    if (threads < 1)
        threads = 1;
    walker *ks = calloc((size_t)threads, sizeof *ks);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    int started = 0;
    if (rc == 0 && (!ks || !th))
        rc = VT_ERR_NOMEM;
    for (int i = 0; rc == 0 && i < threads; i++) {
        ks[i].sh = sh;
        if (!(ks[i].md = cs_ignore_md()) || !(ks[i].dbuf = malloc(DENTS_BUF)))
            rc = VT_ERR_NOMEM;
        else if (i > 0 && pthread_create(&th[i], NULL, walk_main, &ks[i]) == 0)
            started = i;
        else if (i > 0)
            break; /* fewer threads */
    }
    if (rc < 0) {
        pthread_mutex_lock(&sh->mu);
        sh->rc = rc;
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
    }
    if (ks)
        walk_main(&ks[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    rc = sh->rc;
    for (int i = 0; ks && i < threads; i++) {
        cs_walk *w = &ks[i].out;
        if (rc == 0 && VT_GROW(&out->v, &out->cap, out->n + w->n) != 0)
            rc = VT_ERR_NOMEM;
        if (rc == 0) {
            if (w->n)
                memcpy(out->v + out->n, w->v, w->n * sizeof *w->v);
            out->n += w->n;
            free(w->v);
        } else {
            cs_walk_free(w);
        }
        pcre2_match_data_free(ks[i].md);
        free(ks[i].dbuf);
    }
    free(ks);
    free(th);
    return rc;
}

int cs_walk_run(const char *root, const char *scope, uint64_t lang_mask, int want_dirs,
                cs_walk *out)
{
    memset(out, 0, sizeof *out);
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return VT_ERR_NOT_FOUND;
    int rc = cs_walk_run_filtered(root, rootfd, scope, lang_mask, want_dirs, NULL, NULL, 1, out);
    close(rootfd);
    return rc;
}

int cs_walk_run_filtered(const char *root, int rootfd, const char *scope, uint64_t lang_mask,
                         int want_dirs, int (*skip)(void *, const char *, int), void *ud,
                         int threads, cs_walk *out)
{
    memset(out, 0, sizeof *out);
    shared sh = {
        .rootfd = rootfd, .mask = lang_mask, .want_dirs = want_dirs, .skip = skip, .skip_ud = ud};
    size_t rootlen = strlen(root);
    while (rootlen > 1 && root[rootlen - 1] == '/')
        rootlen--;
    size_t slen = strlen(scope);
    if (slen < rootlen || strncmp(scope, root, rootlen) != 0 ||
        (slen > rootlen && scope[rootlen] != '/') || slen + 2 >= 8192)
        return VT_ERR_OUTSIDE;
    const char *srel = slen > rootlen ? scope + rootlen + 1 : "";
    struct stat st;
    int rc = 0;
    if (lstat(scope, &st) < 0) {
        rc = VT_ERR_NOT_FOUND;
    } else if (!S_ISDIR(st.st_mode)) {
        /* One file named explicitly: ignore rules do not hide it. */
        const char *slash = strrchr(scope, '/');
        if (S_ISREG(st.st_mode) && !is_env(slash + 1))
            rc = add_file(out, lang_mask, srel, slash + 1);
    } else {
        pthread_mutex_init(&sh.mu, NULL);
        pthread_cond_init(&sh.cv, NULL);
        rc = walk_tree(&sh, srel, threads, out);
        for (size_t i = 0; i < sh.nq; i++)
            free(sh.q[i].rel);
        free(sh.q);
        for (size_t i = 0; i < sh.nframes; i++) {
            cs_ignore_free(&sh.frames[i]->rules[0]);
            cs_ignore_free(&sh.frames[i]->rules[1]);
            free(sh.frames[i]);
        }
        free(sh.frames);
        pthread_cond_destroy(&sh.cv);
        pthread_mutex_destroy(&sh.mu);
    }
    if (rc < 0) {
        cs_walk_free(out);
        return rc;
    }
    if (out->n > 1) /* an empty scope has no array: qsort(NULL, 0) is undefined */
        qsort(out->v, out->n, sizeof *out->v, entry_cmp);
    return 0;
}

void cs_walk_free(cs_walk *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i].rel);
    free(w->v);
    memset(w, 0, sizeof *w);
}
