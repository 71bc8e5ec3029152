/* Agent policies: spec files (.vtcode/agents/NAME.md or a path) and the
 * embedded default agent. */
#ifndef VTHOST_PERM_AGENT_H
#define VTHOST_PERM_AGENT_H

#include <vthost/plugin.h>
#include "perm_types.h"

/* Load `spec`: a NAME (<workspace>/.vtcode/agents/NAME.md) or a path (it
 * contains '/' or ends in .md).  On failure *err is a malloc'd message
 * naming the file and line. */
int perm_agent_load(const char *spec, const perm_settings *st, perm_agent **out,
                    char **err);
/* Parse spec text (`file` names it in messages and sources). */
int perm_agent_parse_text(const char *file, const char *text, const perm_settings *st,
                          perm_agent **out, char **err);
/* default ask; allow search_tools and code_search. */
int perm_agent_embedded(const perm_settings *st, perm_agent **out);
void perm_agent_free(perm_agent *a);

#endif
