/* A warning says its news once per client session: a fact about the
 * machine (no pids cgroup, no Landlock) that a tool adds to every result
 * would otherwise be repeated in each of them. */
#ifndef VTHOST_WARN_ONCE_H
#define VTHOST_WARN_ONCE_H

#include <cjson/cJSON.h>
#include <stdint.h>

/* Drop from *warnings (an array of strings, may be NULL) those given to
 * client session `client` before; an array left empty is freed and
 * *warnings set to NULL.  Thread-safe. */
void warn_once_filter(uint64_t client, cJSON **warnings);

#endif
