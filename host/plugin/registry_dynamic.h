/* Tools plugins add and remove after init (host API 1.2), the hooks that
 * let a lazy tool source fill the catalog on demand, and the listeners
 * told when the listed tool set changes. */
#ifndef VTHOST_REGISTRY_DYNAMIC_H
#define VTHOST_REGISTRY_DYNAMIC_H

#include <stddef.h>
#include <vthost/plugin.h>

/* The host API members (see plugin.h for the contract). */
int registry_dynamic_add(const char *plugin, const vt_tool *tool, size_t sizeof_tool,
                         const char *annotations_json);
int registry_dynamic_remove(const char *plugin, const char *name);
int registry_dynamic_on_demand(const char *plugin, void (*fn)(void *ud, const char *tool),
                               void *ud);

/* Run the on-demand hooks: tool NULL before a catalog search, else the
 * name a call used that no tool has.  Never called with a lock held. */
void registry_dynamic_demand(const char *tool);

/* Called (on any thread) when a dynamic change altered listed tools.
 * One listener per front end; NULL fn removes it. */
void registry_dynamic_on_listed_change(void (*fn)(void *ud), void *ud);

/* Forget hooks and listeners (host exit). */
void registry_dynamic_reset(void);
/* Wait until no on-demand hook is running any more: between the
 * plugins' fini (which ends what their hooks wait for) and unmapping
 * them, since a hook may run on a thread of its own (tools/list starts
 * the sources in the background). */
void registry_dynamic_quiesce(void);

#endif
