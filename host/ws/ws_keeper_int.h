/* Shared by the keeper (ws_keeper.c) and its callers
 * (ws_keeper_client.c): where its files are, what it says. */
#ifndef VTHOST_WS_KEEPER_INT_H
#define VTHOST_WS_KEEPER_INT_H

#include <stddef.h>
#include <stdint.h>
#include "ws_index_int.h"

/* A new version makes new file names: an older keeper is left to end at
 * its idle time, never asked. */
#define WSK_PROTO "VTKEEP1"
/* The generation in the files' names: a new one for each change of the
 * protocol or of the index file's format (2: its checksum by words). */
#define WSK_GEN "2"
#define WSK_TIMEOUT_MS 3000

/* The keeper's files for `root`, "<cache>/vthost/keeper/<key>-2.sock",
 * "...-2.lock" and "...-2.idx" (WSK_GEN) (its index, apart from the one calls
 * write, so that no call's save replaces what it vouches for), the
 * directory made 0700 when `make`, and checked to be the user's own,
 * not a link, closed to others.  -1 otherwise (or when the socket's
 * path is too long for sun_path).  Each buffer holds `cap` bytes. */
typedef struct wsk_files {
    char sock[512], lock[512], idx[512];
} wsk_files;
int wsk_paths(const char *root, int make, wsk_files *f);

/* One change as the keeper sends it: kind, dir, noise (one byte each)
 * and the workspace-relative path ending in a NUL. */
typedef struct wsk_reply {
    uint64_t id, seq;
    int complete;
    size_t nchanges;
} wsk_reply;

/* ws_keeper_client.c: for ws_index_refresh of a one-shot index.
 * First use: 0 when the keeper vouched and its file is loaded.  Later:
 * 0 when the changes since the last sync are applied (tree and log);
 * -1: the keeper could not vouch (the caller checks everything). */
int wsx_keeper_sync(ws_index *ix);
/* The connection wsx_keeper_sync keeps for ix closed (ws_index_close). */
void wsx_keeper_hangup(ws_index *ix);
/* The keeper of ix's workspace started in the background when it is big
 * enough and keepers are on (after a full check). */
void wsx_keeper_start(ws_index *ix);

#endif
