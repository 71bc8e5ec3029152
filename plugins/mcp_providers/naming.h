/* Model-facing names of provider tools: mcp__<provider>__<tool>. */
#ifndef MCPP_NAMING_H
#define MCPP_NAMING_H

#include <stddef.h>

#define MCPP_NAME_MAX 64

/* Copy `in` into out (size >= strlen(in) + 1) with every character
 * outside [a-zA-Z0-9_-] replaced by '_'. */
void naming_sanitize(const char *in, char *out);
/* "mcp__" + sanitised provider + "__" + sanitised tool, at most 64
 * characters: a longer name is cut and ends in "_" + 8 hex digits of a
 * hash of the unsanitised provider and tool names, so names stay
 * distinct and stable.  `salt` > 0 forces the hash suffix (collisions).
 * out must hold MCPP_NAME_MAX + 1 bytes. */
void naming_tool(const char *provider, const char *tool, unsigned salt, char *out);
/* "mcp__" + sanitised provider + "__" (malloc'd). */
char *naming_prefix(const char *provider);

#endif
