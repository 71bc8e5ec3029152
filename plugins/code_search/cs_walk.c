/* Depth-first walk of the scope.  Every directory's .gitignore and
 * .ignore (from the workspace root down) form a stack of rule sets; the
 * deepest set with a matching rule decides, .ignore before .gitignore.
 * .git, .env files and symlinks are skipped; other hidden files are not. */
#include "cs_ignore.h"
#include "cs_types.h"
#include "cs_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

typedef struct frame {
    size_t prefix;      /* length of the directory's rel path incl. '/' */
    cs_ignore rules[2]; /* .ignore, .gitignore */
} frame;

typedef struct walker {
    const char *root;
    size_t rootlen;
    uint64_t mask;
    int want_dirs;
    cs_walk *out;
    frame *fr;
    size_t nfr, capfr;
    pcre2_match_data *md;
    int (*skip)(void *ud, const char *rel, int is_dir);
    void *skip_ud;
    char path[8192]; /* root + "/" + rel */
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

/* Load the rules of directory `rel` (length n, "" for the root): bit 0 of
 * `which` loads .ignore, bit 1 .gitignore. */
static int push_frame(walker *k, const char *rel, size_t n, unsigned which)
{
    if (VT_GROW(&k->fr, &k->capfr, k->nfr + 1) != 0)
        return VT_ERR_NOMEM;
    frame *f = &k->fr[k->nfr++];
    memset(f, 0, sizeof *f);
    f->prefix = n ? n + 1 : 0;
    static const char *const names[2] = {".ignore", ".gitignore"};
    for (int i = 0; i < 2; i++) {
        if (!(which & (1u << i)))
            continue;
        size_t len = k->rootlen + 1 + n + 1 + strlen(names[i]) + 1;
        char *p = malloc(len);
        if (!p)
            return VT_ERR_NOMEM;
        if (n)
            snprintf(p, len, "%s/%.*s/%s", k->root, (int)n, rel, names[i]);
        else
            snprintf(p, len, "%s/%s", k->root, names[i]);
        int rc = cs_ignore_load(&f->rules[i], p);
        free(p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void pop_frame(walker *k)
{
    frame *f = &k->fr[--k->nfr];
    cs_ignore_free(&f->rules[0]);
    cs_ignore_free(&f->rules[1]);
}

static int ignored(walker *k, const char *rel, size_t n, int is_dir)
{
    for (size_t i = k->nfr; i-- > 0;) {
        frame *f = &k->fr[i];
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

static int add_file(walker *k, const char *rel, const char *base)
{
    int lexer;
    int lang = cs_lang_of_file(base, &lexer);
    if (k->mask && (lang < 0 || !(k->mask & ((uint64_t)1 << lang))))
        return 0;
    return push_entry(k->out, rel, 0, lang, lexer);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const cs_entry *)a)->rel, ((const cs_entry *)b)->rel);
}

typedef struct dent {
    char *name;
    int type;
} dent;

/* The directory's entries (without ".", "..", .git and .env files), and
 * which ignore files it has. */
static int list_dir(const char *path, dent **out, size_t *count, unsigned *which)
{
    *out = NULL;
    *count = 0;
    *which = 0;
    DIR *d = opendir(path);
    if (!d)
        return 0; /* unreadable directories are skipped, like rg */
    size_t cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
            continue;
        if (strcmp(name, ".git") == 0 || is_env(name))
            continue;
        if (strcmp(name, ".ignore") == 0)
            *which |= 1;
        else if (strcmp(name, ".gitignore") == 0)
            *which |= 2;
        if (*count == cap) {
            size_t nc = cap ? cap * 2 : 32;
            dent *nv = realloc(*out, nc * sizeof *nv);
            if (!nv) {
                rc = VT_ERR_NOMEM;
                break;
            }
            *out = nv;
            cap = nc;
        }
        char *nm = strdup(name);
        if (!nm) {
            rc = VT_ERR_NOMEM;
            break;
        }
        (*out)[(*count)++] = (dent){nm, de->d_type};
    }
    closedir(d);
    return rc;
}

/* Walk directory rel (length n; "" = root): its own rules, then entries. */
static int walk_dir(walker *k, size_t n)
{
    char *path = k->path;
    dent *ents;
    size_t count;
    unsigned which;
    size_t frames = k->nfr;
    int rc = list_dir(path, &ents, &count, &which);
    if (rc == 0)
        rc = push_frame(k, path + k->rootlen + 1, n, which);
    size_t base = k->rootlen + 1 + n + (n ? 1 : 0);
    for (size_t e = 0; rc == 0 && e < count; e++) {
        const char *name = ents[e].name;
        size_t nl = strlen(name);
        if (base + nl + 2 >= sizeof k->path)
            continue;
        path[base - 1] = '/';
        memcpy(path + base, name, nl + 1);
        int type = ents[e].type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (lstat(path, &st) < 0)
                continue;
            type = S_ISDIR(st.st_mode)   ? DT_DIR
                   : S_ISREG(st.st_mode) ? DT_REG
                   : S_ISLNK(st.st_mode) ? DT_LNK
                                         : DT_UNKNOWN;
        }
        if (type != DT_DIR && type != DT_REG)
            continue; /* symlinks are not followed; devices are skipped */
        const char *rel = path + k->rootlen + 1;
        size_t rlen = base + nl - (k->rootlen + 1);
        if (ignored(k, rel, rlen, type == DT_DIR))
            continue;
        if (k->skip && k->skip(k->skip_ud, rel, type == DT_DIR))
            continue;
        if (type == DT_REG) {
            rc = add_file(k, rel, name);
            continue;
        }
        if (k->want_dirs)
            rc = push_entry(k->out, rel, 1, -1, 0);
        if (rc == 0)
            rc = walk_dir(k, rlen);
        path[base + nl] = '\0';
    }
    while (k->nfr > frames)
        pop_frame(k);
    for (size_t e = 0; e < count; e++)
        free(ents[e].name);
    free(ents);
    path[k->rootlen + n + (n ? 1 : 0)] = '\0';
    return rc;
}

int cs_walk_run(const char *root, const char *scope, uint64_t lang_mask, int want_dirs,
                cs_walk *out)
{
    return cs_walk_run_filtered(root, scope, lang_mask, want_dirs, NULL, NULL, out);
}

int cs_walk_run_filtered(const char *root, const char *scope, uint64_t lang_mask, int want_dirs,
                         int (*skip)(void *, const char *, int), void *ud, cs_walk *out)
{
    memset(out, 0, sizeof *out);
    walker k = {.root = root,
                .rootlen = strlen(root),
                .mask = lang_mask,
                .want_dirs = want_dirs,
                .out = out,
                .skip = skip,
                .skip_ud = ud};
    while (k.rootlen > 1 && root[k.rootlen - 1] == '/')
        k.rootlen--;
    size_t slen = strlen(scope);
    if (slen < k.rootlen || strncmp(scope, root, k.rootlen) != 0 ||
        (slen > k.rootlen && scope[k.rootlen] != '/') || slen + 2 >= sizeof k.path)
        return VT_ERR_OUTSIDE;
    if (!(k.md = cs_ignore_md()))
        return VT_ERR_NOMEM;
    const char *srel = slen > k.rootlen ? scope + k.rootlen + 1 : "";
    size_t srlen = strlen(srel);
    struct stat st;
    int rc = 0;
    if (lstat(scope, &st) < 0) {
        rc = VT_ERR_NOT_FOUND;
    } else if (!S_ISDIR(st.st_mode)) {
        /* One file named explicitly: ignore rules do not hide it. */
        const char *slash = strrchr(scope, '/');
        if (S_ISREG(st.st_mode) && !is_env(slash + 1))
            rc = add_file(&k, srel, slash + 1);
    } else {
        /* Rule sets of the root and of every directory above the scope;
         * walk_dir adds the scope's own. */
        if (srlen)
            rc = push_frame(&k, "", 0, 3);
        for (size_t i = 0; rc == 0 && i < srlen; i++)
            if (srel[i] == '/')
                rc = push_frame(&k, srel, i, 3);
        memcpy(k.path, root, k.rootlen);
        k.path[k.rootlen] = '/';
        memcpy(k.path + k.rootlen + 1, srel, srlen + 1);
        if (!srlen)
            k.path[k.rootlen] = '\0';
        if (rc == 0)
            rc = walk_dir(&k, srlen);
        while (k.nfr)
            pop_frame(&k);
    }
    free(k.fr);
    pcre2_match_data_free(k.md);
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
