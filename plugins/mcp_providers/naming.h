/* Model-facing names of provider tools: mcp__<provider>__<tool>. */
#ifndef MCPP_NAMING_H
#define MCPP_NAMING_H

#include <stddef.h>

#define MCPP_NAME_MAX 64

/* Copy `in` into out (size >= strlen(in) + 1) with every character
 * outside [a-zA-Z0-9_] replaced by '_'. */
void naming_sanitize(const char *in, char *out);
/* 1 when `provider` may name a provider: not empty, and its sanitised
 * form has no "__" and does not start or end with '_' (the separator
 * must be unambiguous, so that mcp__<server> rules reach that server
 * only). */
int naming_provider_valid(const char *provider);
/* The one rule (docs/clients.md): "mcp__" + provider + "__" + tool, every
 * character outside [A-Za-z0-9_] turned into '_' and runs of '_' in the
 * tool folded to one; when that is over 64 characters, or `suffix` says
 * the mapped name collides with another of the provider's tools, or
 * `salt` > 0 (a hash collision), it is cut to 55 characters and ends in
 * "_" + 8 hex digits of a hash of the original provider and tool names.
 * Returns 1 when the mapping changed the names (0: the original names
 * as they are).  out must hold MCPP_NAME_MAX + 1 bytes. */
int naming_tool(const char *provider, const char *tool, unsigned salt, int suffix, char *out);
/* "mcp__" + sanitised provider + "__" (malloc'd). */
char *naming_prefix(const char *provider);

#endif
