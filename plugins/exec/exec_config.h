/* The configuration keys the exec plugin reads, as its descriptor
 * declares them (vt_plugin.config_keys). */
#ifndef VTHOST_EXEC_CONFIG_H
#define VTHOST_EXEC_CONFIG_H

#include <vthost/plugin.h>

extern const vt_config_key exec_config_keys[];

#endif
