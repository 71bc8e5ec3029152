/* Agent policies: spec files (.vtcode/agents/NAME.md or a path) and the
 * embedded default agent. */
#ifndef VTHOST_PERM_AGENT_H
#define VTHOST_PERM_AGENT_H

#include <vthost/plugin.h>
#include "perm_types.h"

/* Load `spec`: a path when it contains '/' (the CLI user's --agent FILE,
 * trusted), else a NAME (perm_agent_load_name).  On failure *err is a
 * malloc'd message naming the file and line. */
int perm_agent_load(const char *spec, const perm_settings *st, perm_agent **out, char **err);
/* An agent by name: <workspace>/.vtcode/agents/NAME.md (trusted only as
 * far as the workspace is), else <user dir>/agents/NAME.md.  A name with
 * '/', '\\', '..', a leading dot or a .md suffix is VT_ERR_INVALID. */
int perm_agent_load_name(const char *name, const perm_settings *st, perm_agent **out, char **err);
/* 1 when `name` is a valid agent name; else 0 and *why (static). */
int perm_agent_name_valid(const char *name, const char **why);
/* Parse spec text (`file` names it in messages and sources). */
int perm_agent_parse_text(const char *file, const char *text, const perm_settings *st,
                          perm_agent **out, char **err);
/* default ask; allow what st->embedded_allow names for the preset. */
int perm_agent_embedded(const perm_settings *st, perm_agent **out);
void perm_agent_free(perm_agent *a);

#endif
