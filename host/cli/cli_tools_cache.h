/* `vthost tools` from a cache: the listing a start printed, kept in the
 * user's cache directory under the state of every file it was made from
 * (the executable, the profiles, the plugin modules, the configuration
 * layers, agent files), so that the next listing of the same workspace
 * with the same options opens no plugin while nothing changed.  Only
 * the listing is cached: calls, permission decisions, trust and the
 * sandbox never read it. */
#ifndef VTHOST_CLI_TOOLS_CACHE_H
#define VTHOST_CLI_TOOLS_CACHE_H

#include "host.h"

/* Prints the cached listing for these options and `format` (NULL:
 * names) and returns 1 when the cache holds one made from the files as
 * they are now; else returns 0 and remembers the files' state for
 * tools_cache_store. */
int tools_cache_lookup(const host_options *ho, const char *format);
/* Around what a listing says of the configuration (an untrusted
 * workspace's keys left unread: a function of the files the key holds):
 * those warnings are kept with the listing and said again with it. */
void tools_cache_said_begin(void);
void tools_cache_said_end(void);
/* Keeps `text`, the listing just printed, for the next lookup: only
 * when tools_cache_lookup ran, no other warning was said since, and none of
 * the files changed in the last two seconds (a change within one
 * timestamp tick could go unseen). */
void tools_cache_store(const char *text);

#endif
