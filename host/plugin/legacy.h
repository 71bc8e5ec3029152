/* The removed unified_* tool names and what replaced them. */
#ifndef VTHOST_LEGACY_H
#define VTHOST_LEGACY_H

/* The migration hint for a removed legacy name, or NULL. */
const char *legacy_replacement(const char *name);

#endif
