/* The configuration keys an untrusted layer may set, and how: the host's
 * own, and those the loaded plugins declare (vt_plugin.config_keys). */
#ifndef VTHOST_CONFIG_KEYS_H
#define VTHOST_CONFIG_KEYS_H

#include <stddef.h>
#include <vthost/plugin.h>

/* Read the declarations of every descriptor the loader accepted (call
 * after loader_read_all).  A key two plugins declare differently is kept
 * for trusted layers only; a plugin's declaration of a host key is not
 * used; both are logged.  Until then only the host's own keys count. */
int config_keys_collect(void);
/* The rules in force: config_keys_at(i) for i < config_keys_count(). */
size_t config_keys_count(void);
const vt_config_key *config_keys_at(size_t i);
/* Forget the plugins' declarations (before their modules are unmapped). */
void config_keys_reset(void);

#endif
