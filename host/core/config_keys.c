/* The configuration keys an untrusted layer may set: the host's own
 * table, then what the plugins declare.  The plugins' are read from
 * their descriptors, which the loader has checked, before any plugin's
 * init: the configuration the plugins see is built after this. */
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "config_keys.h"
#include "loader.h"
#include "log.h"

/* Keys the host itself reads or judges: whatever a plugin declares for
 * them, these rules stand. */
static const vt_config_key host_keys[] = {
    {"sandbox", "mode", VT_CONFIG_STRING, 0, "read-only"},
    {"sandbox", "network_access", VT_CONFIG_FALSE, 0, NULL},
    {"tools.anti_blind_editing", "enabled", VT_CONFIG_TRUE, 0, NULL},
};
#define NHOST (sizeof host_keys / sizeof *host_keys)

/* One plugin's declaration, with the plugin that made it. */
typedef struct declared_key {
    vt_config_key k;
    const char *owner;
} declared_key;

static struct declared_keys {
    declared_key *v;
    size_t n, cap;
} declared;

static int same_key(const vt_config_key *a, const vt_config_key *b)
{
    return strcmp(a->table, b->table) == 0 && strcmp(a->key, b->key) == 0;
}

static int same_rule(const vt_config_key *a, const vt_config_key *b)
{
    return a->kind == b->kind && a->default_value == b->default_value &&
           (a->kind != VT_CONFIG_STRING || strcmp(a->fixed, b->fixed) == 0);
}

/* One declaration of plugin `owner` added, unless the key is the host's
 * or declared already; declared otherwise by another plugin, the key is
 * left to trusted layers (neither plugin may widen what the other
 * tightens). */
static int declare(const vt_config_key *k, const char *owner)
{
    for (size_t i = 0; i < NHOST; i++)
        if (same_key(&host_keys[i], k)) {
            if (!same_rule(&host_keys[i], k))
                host_log(VT_LOG_WARNING, "config",
                         "plugin %s declares %s.%s, a key the host judges: the host's rule "
                         "for an untrusted workspace applies",
                         owner, k->table, k->key);
            return VT_OK;
        }
    for (size_t i = 0; i < declared.n; i++) {
        declared_key *d = &declared.v[i];
        if (!same_key(&d->k, k))
            continue;
        if (d->k.kind != VT_CONFIG_TRUSTED && !same_rule(&d->k, k)) {
            host_log(VT_LOG_WARNING, "config",
                     "plugins %s and %s declare %s.%s differently: an untrusted workspace "
                     "may not set it",
                     d->owner, owner, k->table, k->key);
            d->k.kind = VT_CONFIG_TRUSTED;
        }
        return VT_OK;
    }
    if (VT_GROW(&declared.v, &declared.cap, declared.n + 1) != 0)
        return VT_ERR_NOMEM;
    declared.v[declared.n++] = (declared_key){*k, owner};
    return VT_OK;
}

int config_keys_collect(void)
{
    config_keys_reset();
    int rc = VT_OK;
    for (size_t m = 0; rc == VT_OK && m < loader_count(); m++) {
        const plugin_module *pm = loader_at(m);
        if (!pm->desc || pm->state == PLUGIN_REFUSED)
            continue;
        const vt_config_key *k;
        for (size_t i = 0; rc == VT_OK && (k = loader_config_key_at(pm->desc, i)); i++)
            rc = declare(k, pm->desc->name);
    }
    return rc;
}

size_t config_keys_count(void) { return NHOST + declared.n; }

const vt_config_key *config_keys_at(size_t i)
{
    if (i < NHOST)
        return &host_keys[i];
    return i - NHOST < declared.n ? &declared.v[i - NHOST].k : NULL;
}

void config_keys_reset(void)
{
    free(declared.v);
    declared.v = NULL;
    declared.n = declared.cap = 0;
}
