/* The workspace index's tree of directories and its change log: the
 * bottom of the index's files, which the scan, the watch, the cache and
 * the queries (ws_index.c) all build on, so that none of them calls back
 * up into another. */
#include "ws_index_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "log.h"

/* Not the project's files: tools' own state, dependencies, build output. */
static const char *const noise_names[] = {".git",         ".hg",           ".svn",        ".vtcode",
                                          "node_modules", "target",        "build",       "dist",
                                          "__pycache__",  ".venv",         "venv",        ".tox",
                                          ".mypy_cache",  ".pytest_cache", ".ruff_cache", ".gradle",
                                          ".cache",       ".next",         "CMakeFiles",  NULL};

int ws_index_noise(const char *name)
{
    /* asked for every directory a cached index loads: the first byte
     * settles it for nearly every name without a call */
    for (size_t i = 0; noise_names[i]; i++)
        if (noise_names[i][0] == name[0] && !strcmp(name, noise_names[i]))
            return 1;
    return 0;
}

uint8_t wsx_name_flag(const char *name, unsigned char type)
{
    if (!strcmp(name, ".git"))
        return type == DT_DIR ? WSX_GITDIR : type == DT_LNK ? WSX_GITLINK : WSX_GITFILE;
    if (!strcmp(name, "vtcode.toml"))
        return WSX_TOML;
    if (!strcmp(name, ".vtcode") && type == DT_DIR)
        return WSX_VTCODE;
    if (!strcmp(name, "HEAD") && (type == DT_REG || type == DT_LNK))
        return WSX_HEAD;
    return 0;
}

/* ---- the tree ------------------------------------------------------------ */

static uint32_t name_add(ws_index *ix, const char *name, size_t nl)
{
    if (VT_GROW(&ix->names, &ix->ncap, ix->nlen + nl + 1) != 0)
        return WSX_NONE;
    memcpy(ix->names + ix->nlen, name, nl);
    ix->names[ix->nlen + nl] = '\0';
    uint32_t off = (uint32_t)ix->nlen;
    ix->nlen += nl + 1;
    return off;
}

uint32_t wsx_add_dir(ws_index *ix, uint32_t parent, const char *name, size_t nl)
{
    uint32_t off = name_add(ix, name, nl);
    if (off == WSX_NONE)
        return WSX_NONE;
    uint32_t s;
    if (ix->free_head != WSX_NONE && !ix->loading) {
        s = ix->free_head;
        ix->free_head = ix->d[s].next;
    } else {
        if (VT_GROW(&ix->d, &ix->cap, (size_t)ix->n + 1) != 0)
            return WSX_NONE;
        s = ix->n++;
    }
    wsx_dir *p = parent == WSX_NONE ? NULL : &ix->d[parent];
    ix->d[s] = (wsx_dir){.parent = parent,
                         .child = WSX_NONE,
                         .next = p ? p->child : WSX_NONE,
                         .name = off,
                         .wd = -1,
                         .noise = p && (p->noise || ws_index_noise(name)),
                         .depth = p ? (uint16_t)(p->depth + 1) : 0};
    if (p)
        p->child = s;
    ix->live_dirs++;
    ix->dirty = 1;
    return s;
}

static void unlink_child(ws_index *ix, uint32_t slot)
{
    uint32_t parent = ix->d[slot].parent;
    if (parent == WSX_NONE)
        return;
    uint32_t *at = &ix->d[parent].child;
    while (*at != WSX_NONE && *at != slot)
        at = &ix->d[*at].next;
    if (*at == slot)
        *at = ix->d[slot].next;
}

/* `slot` and everything below it, back to the free list. */
void wsx_remove_dir(ws_index *ix, uint32_t slot)
{
    if (slot == 0 || slot >= ix->n || (ix->d[slot].flags & WSX_FREE))
        return;
    unlink_child(ix, slot);
    ix->dirty = 1;
    /* iterative: the subtree's nodes are pushed through `next` */
    uint32_t stack = slot;
    ix->d[slot].next = WSX_NONE;
    while (stack != WSX_NONE) {
        uint32_t s = stack;
        stack = ix->d[s].next;
        for (uint32_t c = ix->d[s].child; c != WSX_NONE;) {
            uint32_t nx = ix->d[c].next;
            ix->d[c].next = stack;
            stack = c;
            c = nx;
        }
        wsx_unwatch(ix, s);
        ix->d[s].flags = WSX_FREE;
        ix->d[s].child = WSX_NONE;
        ix->d[s].next = ix->free_head;
        ix->free_head = s;
        ix->live_dirs--;
    }
}

uint32_t wsx_find_child(ws_index *ix, uint32_t parent, const char *name)
{
    for (uint32_t c = ix->d[parent].child; c != WSX_NONE; c = ix->d[c].next)
        if (!strcmp(ix->names + ix->d[c].name, name))
            return c;
    return WSX_NONE;
}

size_t wsx_path(ws_index *ix, uint32_t slot, char *buf, size_t cap)
{
    uint32_t chain[WSX_MAX_DEPTH + 2];
    size_t k = 0;
    for (uint32_t s = slot; s != 0 && s != WSX_NONE && k < WSX_MAX_DEPTH + 2; s = ix->d[s].parent)
        chain[k++] = s;
    size_t len = 0;
    buf[0] = '\0';
    while (k--) {
        /* memcpy, not snprintf: validation builds one path per directory */
        const char *nm = ix->names + ix->d[chain[k]].name;
        size_t nl = strlen(nm), sep = len ? 1 : 0;
        if (len + sep + nl >= cap)
            return 0;
        if (sep)
            buf[len] = '/';
        memcpy(buf + len + sep, nm, nl + 1);
        len += sep + nl;
    }
    return len;
}

void wsx_reset_tree(ws_index *ix)
{
    for (uint32_t s = 0; s < ix->n; s++)
        if (!(ix->d[s].flags & WSX_FREE))
            wsx_unwatch(ix, s);
    ix->n = 0;
    ix->live_dirs = 0;
    ix->free_head = WSX_NONE;
    ix->nlen = 0;
    ix->cut = 0;
    wsx_add_dir(ix, WSX_NONE, "", 0);
}

/* ---- the change log ------------------------------------------------------ */

static const char WHY_NOLOG[] =
    "the workspace index's change log could not be allocated (out of memory), so changes "
    "may have been missed: this call walked the whole workspace";
static const char WHY_NOPATH[] =
    "a change in the workspace could not be logged (out of memory), so changes may have "
    "been missed: this call walked the whole workspace";

/* Doubles the ring (up to WSX_LOG_CAP) when the slot the next change
 * takes still holds a change: the live entries are the last log_cap
 * sequence numbers, which land in distinct slots of the bigger ring too.
 * When it cannot grow, the old entry is overwritten and counted dropped,
 * as a full ring's is. */
static void log_grow(ws_index *ix)
{
    size_t cap = ix->log_cap * 2;
    wsx_change *n = calloc(cap, sizeof *n);
    if (!n)
        return;
    for (size_t i = 0; i < ix->log_cap; i++)
        if (ix->log[i].path)
            n[ix->log[i].seq & (cap - 1)] = ix->log[i];
    free(ix->log);
    ix->log = n;
    ix->log_cap = cap;
}

void wsx_log_change(ws_index *ix, const char *rel, int kind, int dir, int noise)
{
    if (!ix->log) {
        if (!(ix->log = calloc(WSX_LOG_MIN, sizeof *ix->log))) {
            /* a change that cannot be logged is a change lost: the
             * sequence moves past a gap, so no reader takes "nothing
             * logged" for "nothing changed", and the next refresh walks */
            wsx_lose(ix, WHY_NOLOG);
            return;
        }
        ix->log_cap = WSX_LOG_MIN;
    }
    char *path = strdup(rel);
    if (!path) {
        wsx_lose(ix, WHY_NOPATH); /* lost, not "nothing changed": as above */
        return;
    }
    if (wsx_log_at(ix, ix->seq + 1)->path && ix->log_cap < WSX_LOG_CAP)
        log_grow(ix);
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    ix->seq++;
    if (!noise)
        ix->project++;
    wsx_change *c = wsx_log_at(ix, ix->seq);
    if (c->path && c->seq > ix->dropped_seq)
        ix->dropped_seq = c->seq;
    free(c->path);
    *c = (wsx_change){.seq = ix->seq,
                      .project = ix->project,
                      .path = path,
                      .kind = (uint8_t)kind,
                      .dir = (uint8_t)dir,
                      .repo = !strcmp(base, ".git") || strstr(rel, ".git/") == rel ||
                              strstr(rel, "/.git/") != NULL,
                      .policy = !strcmp(base, "vtcode.toml") || !strcmp(base, ".vtcode") ||
                                strstr(rel, ".vtcode/") == rel || strstr(rel, "/.vtcode/"),
                      .noise = (uint8_t)noise};
}

void wsx_mark_lost(ws_index *ix)
{
    ix->seq++;
    ix->project++;
    ix->dropped_seq = ix->seq;
}

void wsx_lose(ws_index *ix, const char *why)
{
    ix->lost = 1;
    ix->lost_why = why;
    wsx_mark_lost(ix);
}

void wsx_note_fallback(ws_index *ix, const char *why)
{
    if (ix->logged)
        return;
    ix->logged = 1;
    host_log(VT_LOG_WARNING, NULL, "workspace index of %s: %s", ix->root, why);
}

void wsx_unwatch(ws_index *ix, uint32_t slot)
{
    int wd = ix->d[slot].wd;
    if (wd < 0)
        return;
    ix->d[slot].wd = -1;
    if ((size_t)wd < ix->wd_cap && ix->wd_map[wd] == (int32_t)slot) {
        ix->wd_map[wd] = -1;
        if (ix->watches)
            ix->watches--;
        if (ix->ifd >= 0)
            inotify_rm_watch(ix->ifd, wd);
    }
}
