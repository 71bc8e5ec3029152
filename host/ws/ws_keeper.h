/* The workspace keeper: a small process per large workspace that keeps
 * its index current by inotify (a live ws_index, the same code as
 * `vthost serve`) so that a one-shot call need not check every directory.
 * A call asks it over a Unix socket to vouch for the index: the keeper
 * applies every event queued so far (inotify queues an event inside the
 * system call that makes the change, so reading the queue dry after the
 * request arrived takes in every change that completed before it),
 * writes the cache file stamped with its identity and change count if
 * anything changed, and answers with that stamp and, on later asks, the
 * changes since the caller's last one.  A call that gets no answer, a
 * stamp that does not match the file, or an incomplete journal (a queue
 * overflow, a rebuild, another keeper) does the full check it always
 * did; nothing is ever skipped on the keeper's word alone.
 *
 * The socket and the keeper's lock (holding its pid) are in a 0700
 * directory under the host's cache directory, which every sandboxed
 * command has masked (or, under Landlock alone, cannot write): a command
 * can neither bind a socket there nor replace the lock, and the caller
 * checks that the peer is the process the lock names (SO_PEERCRED).
 * Pathname sockets only: an abstract one could be bound by anyone in the
 * same network namespace. */
#ifndef VTHOST_WS_KEEPER_H
#define VTHOST_WS_KEEPER_H

#include <stdint.h>

#define WS_KEEPER_ARG "__ws-keeper" /* the hidden subcommand */

/* [workspace] keeper, keeper_min_dirs, keeper_idle_seconds. */
void ws_keeper_configure(int enabled, uint32_t min_dirs, uint32_t idle_s);
/* Called by the vthost executable only: a keeper may be started by
 * running it again (never a test binary that links the host). */
void ws_keeper_allow_start(void);

/* The keeper process: `vthost __ws-keeper ROOT IDLE_SECONDS`.  Returns
 * the exit status (0 also when another keeper holds the workspace). */
int ws_keeper_main(int argc, char **argv);

#endif
