/* [mcp] and [[mcp.providers]] of vtcode.toml, read from the host's
 * configuration tree (api->config()). */
#ifndef MCPP_CONFIG_H
#define MCPP_CONFIG_H

#include <cjson/cJSON.h>
#include "provider.h"

typedef struct mcpp_config {
    int enabled;
    provider_limits lim;
    int eager;
    provider **providers; /* each malloc'd and provider_init'ed */
    size_t count;
} mcpp_config;

/* Fill *out.  A key of the wrong type, a provider without a name or a
 * command, or a duplicate name is an error (*err, malloc'd, names the
 * key).  A provider refused by [mcp.requirements] is kept, DISABLED,
 * with the reason.  `workspace` resolves relative working directories. */
int mcpp_config_load(const cJSON *root, const char *workspace, mcpp_config *out, char **err);
void mcpp_config_free(mcpp_config *c);

#endif
