/* inotify for the workspace index: one watch per directory, events
 * applied to the tree and written to the change log.  A queue overflow
 * marks the index lost (the next refresh rebuilds it); a watch that
 * cannot be added for want of watches degrades it (every refresh walks):
 * both are told once in the log and to every caller that fell back. */
#include "ws_index_int.h"

#include "fd_release.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define WSX_MASK                                                                                   \
    (IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO |                 \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

static const char WHY_OVERFLOW[] =
    "the inotify event queue overflowed (fs.inotify.max_queued_events), so changes may "
    "have been missed: this call walked the whole workspace";
static const char WHY_LIMIT[] =
    "the inotify watch limit is reached (fs.inotify.max_user_watches): the workspace "
    "index cannot follow changes by events, so each call walks the whole workspace; "
    "raise the limit (sysctl fs.inotify.max_user_watches=524288) to avoid it";
static const char WHY_NONE[] =
    "inotify is unavailable here, so each call walks the whole workspace";

static void degrade(ws_index *ix, const char *why)
{
    if (ix->degraded)
        return;
    ix->degraded = 1;
    ix->degraded_why = why;
    wsx_mark_lost(ix);
    /* give the watches back: other programs of the user share the limit */
    wsx_watch_close(ix);
    for (uint32_t s = 0; s < ix->n; s++)
        ix->d[s].wd = -1;
    ix->watches = 0;
}

int wsx_watch_init(ws_index *ix)
{
    if (ix->ifd >= 0)
        return 0;
    ix->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ix->ifd < 0) {
        degrade(ix, WHY_NONE);
        return -1;
    }
    return 0;
}

void wsx_watch_close(ws_index *ix)
{
    /* A one-shot index closes as its process ends: the kernel's wait on
     * the last close of watches is left to a detached process. */
    if (ix->ifd >= 0 && ix->mode == WS_INDEX_ONE_SHOT && ix->watches)
        fd_release_detached(ix->ifd);
    else if (ix->ifd >= 0)
        close(ix->ifd);
    ix->ifd = -1;
    if (ix->wd_map)
        memset(ix->wd_map, 0xff, ix->wd_cap * sizeof *ix->wd_map);
}

static int map_wd(ws_index *ix, int wd, uint32_t slot)
{
    if ((size_t)wd >= ix->wd_cap) {
        size_t was = ix->wd_cap;
        if (VT_GROW(&ix->wd_map, &ix->wd_cap, (size_t)wd + 1) != 0)
            return -1;
        /* -1: no slot for the new watch descriptors yet */
        memset(ix->wd_map + was, 0xff, (ix->wd_cap - was) * sizeof *ix->wd_map);
    }
    int32_t old = ix->wd_map[wd];
    if (old >= 0 && (uint32_t)old != slot && (uint32_t)old < ix->n && ix->d[old].wd == wd)
        ix->d[old].wd = -1; /* the same directory reached again */
    else if (old < 0)
        ix->watches++;
    ix->wd_map[wd] = (int32_t)slot;
    return 0;
}

int wsx_watch(ws_index *ix, uint32_t slot)
{
    char rel[4096];
    if (slot && !wsx_path(ix, slot, rel, sizeof rel))
        return 0;
    if (!slot)
        rel[0] = '\0';
    return wsx_watch_rel(ix, slot, rel);
}

int wsx_watch_rel(ws_index *ix, uint32_t slot, const char *rel)
{
    if (ix->ifd < 0 || ix->degraded)
        return -1;
    if (ix->max_watches && ix->watches >= ix->max_watches) {
        degrade(ix, WHY_LIMIT);
        return -1;
    }
    /* on the stack: a one-shot validation watches every directory */
    char abs[8192];
    size_t rl = strlen(rel);
    if (ix->rootlen + 1 + rl >= sizeof abs)
        return 0; /* deeper than a path can name: nothing to watch */
    memcpy(abs, ix->root, ix->rootlen);
    abs[ix->rootlen] = '/';
    memcpy(abs + ix->rootlen + 1, rel, rl + 1);
    int wd = inotify_add_watch(ix->ifd, abs, WSX_MASK);
    int e = errno;
    if (wd < 0) {
        if (e == ENOSPC || e == ENOMEM)
            degrade(ix, WHY_LIMIT);
        /* gone, or unreadable: nothing there to watch */
        return e == ENOSPC || e == ENOMEM ? -1 : 0;
    }
    ix->d[slot].wd = wd;
    return map_wd(ix, wd, slot);
}

static uint8_t git_kind(ws_index *ix, uint32_t slot, const char *name, int isdir)
{
    if (isdir)
        return wsx_name_flag(name, DT_DIR);
    char rel[4096], *abs = NULL;
    size_t n = slot ? wsx_path(ix, slot, rel, sizeof rel) : 0;
    if (slot && !n)
        return 0;
    rel[n] = '\0';
    if (asprintf(&abs, "%s/%s%s%s", ix->root, rel, n ? "/" : "", name) < 0)
        return 0;
    struct stat st;
    int ok = lstat(abs, &st) == 0;
    free(abs);
    if (!ok)
        return 0;
    return wsx_name_flag(name, S_ISLNK(st.st_mode)   ? DT_LNK
                               : S_ISDIR(st.st_mode) ? DT_DIR
                                                     : DT_REG);
}

/* A marker of a repository (.git, ...) made or gone in directory `slot`. */
static void note_git(ws_index *ix, uint32_t slot, const char *name, int isdir, int added)
{
    uint8_t f = wsx_name_flag(name, isdir ? DT_DIR : DT_REG);
    if (!f)
        return;
    if (!strcmp(name, ".git"))
        ix->d[slot].flags &= (uint8_t) ~(WSX_GITDIR | WSX_GITFILE | WSX_GITLINK);
    else
        ix->d[slot].flags &= (uint8_t)~f;
    if (added)
        ix->d[slot].flags |= git_kind(ix, slot, name, isdir);
    ix->dirty = 1;
}

/* The change to `name` in directory `slot`, into the change log; 0 when
 * its path cannot be named. */
static int log_event(ws_index *ix, const struct inotify_event *ev, uint32_t slot, int isdir)
{
    char rel[4096];
    size_t n = slot ? wsx_path(ix, slot, rel, sizeof rel) : 0;
    if ((slot && !n) || n + 1 + ev->len >= sizeof rel)
        return 0;
    int noise = ix->d[slot].noise || ws_index_noise(ev->name);
    snprintf(rel + n, sizeof rel - n, "%s%s", n ? "/" : "", ev->name);
    int kind = ev->mask & IN_CREATE                       ? WSX_K_CREATE
               : ev->mask & IN_DELETE                     ? WSX_K_DELETE
               : ev->mask & (IN_MOVED_FROM | IN_MOVED_TO) ? WSX_K_RENAME
               : ev->mask & IN_MODIFY                     ? WSX_K_WRITE
                                                          : WSX_K_ATTRIB;
    wsx_log_change(ix, rel, kind, isdir, noise);
    return 1;
}

/* Subdirectory `name` of `slot` made or gone: the tree follows. */
static void follow_dir(ws_index *ix, uint32_t slot, const char *name, int added, int removed)
{
    uint32_t c = wsx_find_child(ix, slot, name);
    if (removed && c != WSX_NONE)
        wsx_remove_dir(ix, c);
    if (!added)
        return;
    if (c != WSX_NONE)
        wsx_remove_dir(ix, c);
    if (ix->d[slot].depth + 1 > WSX_MAX_DEPTH) {
        ix->cut = 1;
        return;
    }
    c = wsx_add_dir(ix, slot, name, strlen(name));
    if (c != WSX_NONE) /* watched, then read: nothing made in between is missed */
        wsx_scan(ix, c, 1);
}

static void apply(ws_index *ix, const struct inotify_event *ev)
{
    if (ev->mask & IN_Q_OVERFLOW) {
        wsx_lose(ix, WHY_OVERFLOW);
        return;
    }
    if (ev->wd < 0 || (size_t)ev->wd >= ix->wd_cap || ix->wd_map[ev->wd] < 0)
        return;
    uint32_t slot = (uint32_t)ix->wd_map[ev->wd];
    if (ev->mask & IN_IGNORED) {
        ix->wd_map[ev->wd] = -1;
        if (ix->d[slot].wd == ev->wd)
            ix->d[slot].wd = -1;
        if (ix->watches)
            ix->watches--;
        return;
    }
    if (!ev->len) {
        /* the directory itself: its parent reports it by name; the root
         * moving or going away leaves nothing to trust */
        if (slot == 0 && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)))
            wsx_lose(ix, WHY_OVERFLOW);
        return;
    }
    int isdir = (ev->mask & IN_ISDIR) != 0;
    int added = (ev->mask & (IN_CREATE | IN_MOVED_TO)) != 0;
    int removed = (ev->mask & (IN_DELETE | IN_MOVED_FROM)) != 0;
    if (added || removed)
        note_git(ix, slot, ev->name, isdir, added);
    if (!log_event(ix, ev, slot, isdir))
        return;
    if (isdir && strcmp(ev->name, ".git") != 0)
        follow_dir(ix, slot, ev->name, added, removed);
}

/* Big enough for a burst of events in one read.  Kept with the index,
 * not on the stack: a 64 KiB stack array is touched page by page by the
 * stack-clash probes at every drain, and in serve each touched page is a
 * copy-on-write fault while a session leader shares the host's pages
 * (about 40 faults a call).  A read writes only the pages it fills. */
#define WSX_EVBUF 65536

/* Called with the index's lock held (or from ws_index_close, alone). */
void wsx_drain(ws_index *ix)
{
    if (ix->ifd < 0)
        return;
    /* Any buffer holding one event with the longest name will do: when
     * the kept one cannot be had, a small one on the stack. */
    char small[sizeof(struct inotify_event) + NAME_MAX + 1]
        __attribute__((aligned(__alignof__(struct inotify_event))));
    if (!ix->evbuf)
        ix->evbuf = malloc(WSX_EVBUF);
    char *buf = ix->evbuf ? ix->evbuf : small;
    size_t size = ix->evbuf ? WSX_EVBUF : sizeof small;
    size_t events = 0;
    int overflowed = 0;
    for (;;) {
        ssize_t r = read(ix->ifd, buf, size);
        if (r <= 0)
            break;
        for (char *p = buf; p < buf + r;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (overflowed || ix->ifd < 0)
                continue;
            if (ix->max_queued && ++events > ix->max_queued) {
                overflowed = 1; /* as the kernel would have, with this small a queue */
                wsx_lose(ix, WHY_OVERFLOW);
                continue;
            }
            apply(ix, ev);
            if (ix->lost)
                overflowed = 1;
        }
        if (ix->ifd < 0)
            break;
    }
}
