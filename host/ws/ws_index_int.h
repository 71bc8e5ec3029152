/* The workspace index's insides, shared by ws_index_tree.c (the tree of
 * directories and the change log, which the others build on), ws_index.c
 * (the queries, an index's life, the draining thread), ws_index_scan.c
 * (reading directories), ws_index_watch.c (inotify), ws_index_cache.c
 * (the one-shot file, the host's cache and state directories) and
 * ws_index_sweep.c (old files of that cache removed). */
#ifndef VTHOST_WS_INDEX_INT_H
#define VTHOST_WS_INDEX_INT_H

#include <pthread.h>
#include <stdint.h>
#include "ws_index.h"

#define WSX_NONE UINT32_MAX
#define WSX_MAX_DEPTH 128
/* The change log's most entries; it starts small and doubles up to this
 * as changes come (a one-shot call logs a handful, and a 2 MiB ring
 * zeroed up front was most of its page faults). */
#define WSX_LOG_CAP 65536u
#define WSX_LOG_MIN 64u

/* What a directory holds, as far as the index cares. */
enum {
    WSX_GITDIR = 1,  /* a .git directory */
    WSX_GITFILE = 2, /* a .git file (gitdir: ...) */
    WSX_GITLINK = 4, /* a .git symbolic link */
    WSX_TOML = 8,    /* vtcode.toml */
    WSX_VTCODE = 16, /* .vtcode/ */
    WSX_HEAD = 32,   /* a HEAD file or link: perhaps a bare repository */
    WSX_FREE = 128,  /* slot unused */
};

typedef struct wsx_dir {
    uint32_t parent, child, next; /* tree links (WSX_NONE ends) */
    uint32_t name;                /* offset in the name arena */
    int32_t wd;                   /* inotify watch, or -1 */
    uint8_t flags;
    uint8_t noise; /* it or a parent is a noise name */
    uint16_t depth;
    uint64_t ino;
    int64_t mtime_ns;
} wsx_dir;

typedef struct wsx_change {
    uint64_t seq, project;
    char *path;   /* workspace-relative */
    uint8_t kind; /* WSX_K_* */
    uint8_t dir, repo, policy, noise;
} wsx_change;

enum { WSX_K_CREATE, WSX_K_WRITE, WSX_K_DELETE, WSX_K_RENAME, WSX_K_ATTRIB };

struct ws_index {
    pthread_mutex_t mu;
    char *root;
    size_t rootlen;
    int mode;
    /* the tree; slot 0 is the root */
    wsx_dir *d;
    uint32_t n, free_head, live_dirs;
    size_t cap; /* of d */
    char *names;
    size_t nlen, ncap;
    int cut; /* deeper than WSX_MAX_DEPTH somewhere */
    /* inotify */
    int ifd;         /* -1: none */
    int32_t *wd_map; /* wd -> dir slot */
    char *evbuf;     /* wsx_drain's read buffer (WSX_EVBUF bytes), kept: see there */
    size_t wd_cap;
    size_t watches, max_watches;
    size_t max_queued;    /* test knob: a drain reading more overflows */
    int lost;             /* events lost: rebuild at the next refresh */
    const char *lost_why; /* static sentence */
    int degraded;         /* cannot be kept by events */
    const char *degraded_why;
    int logged; /* the one log line was written */
    int built, loaded, watching;
    int dirty;   /* differs from the cache file */
    int loading; /* no slot reuse: the cache's numbering holds */
    /* the change log: a ring of log_cap entries (a power of two) */
    wsx_change *log;
    size_t log_cap;
    uint64_t seq, project, dropped_seq;
    /* live: the draining thread */
    pthread_t thread;
    int thread_on, stop_pipe[2];
    double build_ms;
    uint64_t builds; /* full builds so far: a rebuild breaks an epoch */
    uint64_t id;     /* which index of this process (epochs of two never match) */
    /* the workspace keeper (ws_keeper.h) */
    int remote;          /* one-shot: kept current by the keeper's journal */
    uint64_t keeper_id;  /* the keeper vouching, and its change count */
    uint64_t keeper_seq; /* as of this process's last sync */
    uint64_t stamp_id;   /* written into the cache file's header ... */
    uint64_t stamp_seq;  /* ... (a keeper's own saves; 0 for a call's) */
    uint64_t file_id;    /* read from the header of the last file read */
    uint64_t file_seq;
    const char *cache_path; /* the file read and written instead of the
                               default (the keeper's own; not owned) */
    /* one-shot: the connection this process's asks of the keeper share
     * (NULL: none; ws_keeper_client.c) */
    struct wsk_conn *keeper_conn;
};

/* ws_index.c */
uint32_t wsx_add_dir(ws_index *ix, uint32_t parent, const char *name, size_t nl);
void wsx_remove_dir(ws_index *ix, uint32_t slot);
uint32_t wsx_find_child(ws_index *ix, uint32_t parent, const char *name);
/* The workspace-relative path of `slot` ("" for the root) into buf. */
size_t wsx_path(ws_index *ix, uint32_t slot, char *buf, size_t cap);
void wsx_log_change(ws_index *ix, const char *rel, int kind, int dir, int noise);

/* The ring's slot for sequence number `s` (ix->log is set). */
static inline wsx_change *wsx_log_at(const ws_index *ix, uint64_t s)
{
    return &ix->log[s & (ix->log_cap - 1)];
}
void wsx_reset_tree(ws_index *ix);
uint8_t wsx_name_flag(const char *name, unsigned char type);
void wsx_note_fallback(ws_index *ix, const char *why);
/* Events were lost: every mark before now sees an incomplete log with
 * at least one project change. */
void wsx_mark_lost(ws_index *ix);
/* Events were lost for the reason `why` (static): wsx_mark_lost, and the
 * next refresh rebuilds and says why. */
void wsx_lose(ws_index *ix, const char *why);

/* ws_index_scan.c: read the directory `slot` (its entries' flags, its
 * subdirectories added and read in turn).  `log_new`: every entry found
 * is logged as created (a directory that appeared). */
int wsx_scan(ws_index *ix, uint32_t slot, int log_new);
/* Re-read one known directory: flags, and new subdirectories scanned. */
int wsx_reread(ws_index *ix, uint32_t slot);
/* A full build from the root. */
int wsx_build(ws_index *ix);

/* ws_index_watch.c */
int wsx_watch_init(ws_index *ix);
/* Watch directory `slot` (before it is read).  0, or -1 when watching
 * failed (the index is then degraded). */
int wsx_watch(ws_index *ix, uint32_t slot);
/* The same with its workspace-relative path known ("" for the root). */
int wsx_watch_rel(ws_index *ix, uint32_t slot, const char *rel);
void wsx_unwatch(ws_index *ix, uint32_t slot);
/* Read and apply what is queued (non-blocking).  Caller holds mu. */
void wsx_drain(ws_index *ix);
void wsx_watch_close(ws_index *ix);

/* ws_index_cache.c */
int wsx_cache_load(ws_index *ix, int watch);
/* The cache file's tree into ix with nothing checked (its header's
 * keeper stamp into file_id, file_seq), or -1. */
int wsx_cache_read(ws_index *ix);
/* Check every directory against its recorded inode and mtime (watching
 * each first when `watch`): gone ones dropped, changed ones re-read. */
int wsx_validate(ws_index *ix, int watch);
void wsx_cache_save(ws_index *ix);

/* ws_index_sweep.c: the files of the cache directory `dir` (wsindex/)
 * neither written nor read for 30 days removed, and a save's leftover
 * temporary files after an hour; `keep` (a file name) stays whatever its
 * age.  At most once a day per directory (a stamp file there). */
void wsx_cache_sweep(const char *dir, const char *keep);

#endif
