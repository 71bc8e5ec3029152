/* Closing replaced files off the call's path.  The last reference to a
 * file that a rename replaced (or an unlink removed) frees its blocks
 * and its cached pages: milliseconds for a file of a few megabytes,
 * spent inside that rename when nothing else holds the file.  Holding
 * it open across the rename moves the work to the last close, which a
 * thread does while the call finishes. */
#ifndef VTPATCH_RELEASE_H
#define VTPATCH_RELEASE_H

#include <stddef.h>

/* Close the n descriptors of fds (malloc'd; taken over, freed) on a
 * thread of their own, after the previous such thread has ended; inline
 * when no thread can be started. */
void release_later(int *fds, size_t n);
/* Wait for the closing thread (before the plugin is unloaded). */
void release_wait(void);

#endif
