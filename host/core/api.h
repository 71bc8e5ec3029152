/* The vt_host_api table handed to plugins. */
#ifndef VTHOST_API_H
#define VTHOST_API_H

#include <vthost/plugin.h>

const vt_host_api *api_table(void);

/* The workspace root and configuration the table reports to plugins
 * (workspace_root, resolve_path, config); host_open binds them, host_close
 * unbinds (NULL).  Borrowed: they must live until the next api_bind. */
void api_bind(const char *workspace, const cJSON *config);

#endif
