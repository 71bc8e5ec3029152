/* What the user was asked about a call's additional write paths, kept
 * from the subjects hook (whose text the question shows) to the run:
 * the paths as shown and what each was then (device and inode).  The run
 * grants those objects only: a path swapped for a link, or for another
 * directory, while the question was open is refused (sandbox_landlock.c). */
#ifndef VTHOST_EXEC_EXTRA_APPROVED_H
#define VTHOST_EXEC_EXTRA_APPROVED_H

#include <stdint.h>
#include "sandbox.h"

/* Remember `x`'s write paths for call `call_id` (replacing an earlier
 * record of the same call; the oldest record goes when the table is
 * full).  Each path's identity is taken now, without following links. */
void extra_approved_remember(uint64_t call_id, const sandbox_extra *x);

/* The record of `call_id`, taken out: x->write, x->nwrite and x->ids
 * replaced by what was shown (the previous write list freed).  1 when
 * there was one, 0 when none (x unchanged), negative on no memory. */
int extra_approved_take(uint64_t call_id, sandbox_extra *x);
/* Forget every record (the plugin's fini): those of calls that were
 * refused or only explained are never taken. */
void extra_approved_fini(void);

#endif
