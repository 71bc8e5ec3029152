/* Between the parts of http_peer.c: the processes that hold a socket,
 * judged from /proc (http_peer_proc.c). */
#ifndef VTHOST_HTTP_PEER_INT_H
#define VTHOST_HTTP_PEER_INT_H

#include <sys/types.h>

typedef struct peer_owners {
    pid_t ours;       /* a holder that is this process or descends from it, else 0 */
    pid_t other;      /* a holder that does not (when no holder is ours), else 0 */
    pid_t unreadable; /* a process of ours whose descriptors cannot be read, else 0 */
    pid_t unsure;     /* a holder whose ancestry cannot be followed, else 0 */
    int incomplete;   /* the scan stopped at its bound */
    char comm[32];    /* the name of `ours` (or `unsure`) */
} peer_owners;

/* The processes of this PID namespace's /proc that hold the socket
 * `inode` (made by user `uid`), judged against this process: every
 * holder among this process and its descendants, else the first other
 * holder of user `uid` found.  Returns 0, or VT_ERR_IO when /proc cannot be read or is
 * not this process's. */
int peer_proc_owners(unsigned long inode, uid_t uid, peer_owners *out);

#endif
