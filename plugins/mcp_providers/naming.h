/* Model-facing names of provider tools: mcp__<provider>__<tool>. */
#ifndef MCPP_NAMING_H
#define MCPP_NAMING_H

#include <stddef.h>

#define MCPP_NAME_MAX 64

/* Copy `in` into out (size >= strlen(in) + 1) with every character
 * outside [a-zA-Z0-9_-] replaced by '_'. */
void naming_sanitize(const char *in, char *out);
/* 1 when `provider` may name a provider: not empty, and its sanitised
 * form has no "__" and does not start or end with '_' (the separator
 * must be unambiguous, so that mcp__<server> rules reach that server
 * only). */
int naming_provider_valid(const char *provider);
/* "mcp__" + sanitised provider + "__" + sanitised tool (runs of '_'
 * folded to one), at most 64 characters.  A name that sanitising or
 * folding changed, or that is cut, ends in "_" + 8 hex digits of a hash
 * of the original provider and tool names, so names stay distinct and
 * stable whatever order tools arrive in.  `salt` > 0 forces the hash
 * suffix (a hash collision).  out must hold MCPP_NAME_MAX + 1 bytes. */
void naming_tool(const char *provider, const char *tool, unsigned salt, char *out);
/* "mcp__" + sanitised provider + "__" (malloc'd). */
char *naming_prefix(const char *provider);

#endif
