/* Whose tool list: catalog searches that expand the list for one client
 * only.  A front that serves several clients from one process (HTTP: a
 * 2025 session, or a 2026-07-28 request's principal) names the client a
 * thread works for; a deferred tool a search finds on that thread is
 * listed and callable for that client alone, and one client's search
 * never changes another's list.  A thread that names no client (stdio,
 * the CLI: one client per process) expands the list for everyone, as
 * the registry always did. */
#ifndef VTHOST_REGISTRY_VIEW_H
#define VTHOST_REGISTRY_VIEW_H

#include <stdint.h>
#include "registry.h"

/* The client this thread lists and calls for (vt_host_api.call_client_id);
 * 0: none, the process's own list. */
void registry_view_as(uint64_t client);
uint64_t registry_viewer(void);
/* The client ended: forget what its searches found. */
void registry_view_forget(uint64_t client);

/* ---- for registry.c ---- */
/* Whether this thread's client found `e`. */
int registry_view_has(const tool_entry *e);
/* Note that this thread's client found `e`.  Returns 1 when that is new. */
int registry_view_add(const tool_entry *e);
/* The catalog epoch as this thread's client sees it: `base` (the
 * registry's) for none, else a value that changes with base and with
 * what the client found (what a plugin caching the catalog, search_tools,
 * compares). */
uint64_t registry_view_epoch(uint64_t base);
/* Forget every client (registry_clear). */
void registry_view_clear(void);

#endif
