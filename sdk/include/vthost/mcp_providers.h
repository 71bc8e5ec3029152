/*
 * vthost/mcp_providers.h — service "mcp_providers.status" (version 1),
 * published by the mcp_providers plugin: the state of the configured MCP
 * providers, for the CLI (`vthost mcp list|tools`, `vthost plugins`).
 * Look it up with api->service_lookup(MCPP_STATUS_SERVICE); the table is
 * the plugin's static data, valid until its fini.  Thread-safe.
 */
#ifndef VTHOST_MCP_PROVIDERS_H
#define VTHOST_MCP_PROVIDERS_H

#include <stdint.h>
#include <cjson/cJSON.h>

#define MCPP_STATUS_SERVICE "mcp_providers.status"

typedef struct mcpp_status_v1 {
    uint32_t struct_size;
    /* A new array (free with cJSON_Delete) of
     * {"name","transport" ("stdio" or "http"),"command" (stdio) or
     *  "endpoint" (http),"state","reason"?,"restarts","calls",
     *  "tools"} — with "tool_list" [{"name","tool","description"}] when
     * `only` names one provider (then only it is listed). */
    cJSON *(*list)(const char *only);
    /* Start the named provider now (and list its tools); *err is
     * malloc'd (free()) on failure. */
    int (*start)(const char *name, char **err);
} mcpp_status_v1;

#endif
