/* The tools the permission engine knows (permission_declare_tools and
 * permission_set_closed_tools, permission.h, are defined here too). */
#ifndef VTHOST_PERM_TOOLS_H
#define VTHOST_PERM_TOOLS_H

#include "permission.h"

/* The declarations of the registered tools, or the declared ones.  When
 * built from the registry, *owned is the array (freed by the caller with
 * free) *tools points into; else NULL. */
int perm_tools_collect(perm_tool_decls *tools, perm_tool_decl **owned);

/* Every rule of the agent `a` names an installed tool (see
 * permission_validate_tools); 0 for the embedded agent. */
int perm_tools_check_agent(const perm_settings *st, const perm_agent *a, char **err);

/* The same for the global rules, the ignored allow rules and `primary`
 * (may be NULL).  *err (malloc'd) names file, line and the closest name. */
int perm_tools_check(const perm_settings *st, const perm_agent *primary, char **err);

#endif
