/* The vt_host_api table handed to plugins. */
#ifndef VTHOST_API_H
#define VTHOST_API_H

#include <vthost/plugin.h>

const vt_host_api *api_table(void);

#endif
