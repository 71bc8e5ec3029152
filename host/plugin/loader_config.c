/* The configuration keys a descriptor declares (vt_plugin.config_keys,
 * ABI 1.16): walked by the size the plugin was built with, and checked
 * before the host reads any of them. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "strutil.h"

/* The smallest vt_config_key a 1.16 plugin may have been built with. */
#define MIN_KEY_SIZE (offsetof(vt_config_key, fixed) + sizeof(const char *))
/* The host reads a table path into a buffer of this size. */
#define MAX_TABLE_LEN 127
#define MAX_KEYS 4096

#define DESC_HAS(d, member) ((d)->struct_size >= offsetof(vt_plugin, member) + sizeof((d)->member))

static int zero_bytes(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Whether the descriptor declares keys and they can be walked at all. */
static int has_keys(const vt_plugin *d)
{
    return DESC_HAS(d, sizeof_config_key) && d->config_keys && d->sizeof_config_key >= MIN_KEY_SIZE;
}

const vt_config_key *loader_config_key_at(const vt_plugin *d, size_t i)
{
    if (!d || !has_keys(d) || i >= MAX_KEYS)
        return NULL;
    const unsigned char *p = (const unsigned char *)d->config_keys + i * d->sizeof_config_key;
    size_t known =
        d->sizeof_config_key < sizeof(vt_config_key) ? d->sizeof_config_key : sizeof(vt_config_key);
    return zero_bytes(p, 0, known) ? NULL : (const vt_config_key *)p;
}

/* What is wrong with one entry, or NULL. */
static const char *entry_fault(const vt_config_key *k)
{
    if (!k->table || !*k->table || !k->key || !*k->key)
        return "has no table or no key";
    size_t tl = strlen(k->table);
    if (tl > MAX_TABLE_LEN || k->table[0] == '.' || k->table[tl - 1] == '.' ||
        strstr(k->table, ".."))
        return "has a table path that is not NAME or NAME.NAME... (at most 127 bytes)";
    if (strchr(k->key, '.'))
        return "has a dot in its key: name the table in `table`";
    if ((unsigned)k->kind > VT_CONFIG_STRING)
        return "has a kind this host does not know";
    if (k->kind == VT_CONFIG_STRING && !k->fixed)
        return "is VT_CONFIG_STRING without the `fixed` string";
    if ((k->kind == VT_CONFIG_SMALLER || k->kind == VT_CONFIG_SMALLER_NONZERO) &&
        !(isfinite(k->default_value) && k->default_value >= 0))
        return "has a default_value that is not a number >= 0";
    return NULL;
}

char *loader_check_config_keys(const vt_plugin *d)
{
    if (!DESC_HAS(d, sizeof_config_key) || !d->config_keys)
        return NULL;
    if (d->sizeof_config_key < MIN_KEY_SIZE)
        return str_printf("configuration key size %u is smaller than the minimum %zu: build "
                          "the descriptor with VT_PLUGIN_HEADER",
                          d->sizeof_config_key, (size_t)MIN_KEY_SIZE);
    const unsigned char *base = (const unsigned char *)d->config_keys;
    for (size_t i = 0;; i++) {
        if (i >= MAX_KEYS)
            return str_printf("more than %d configuration keys, or a config_keys list "
                              "without its all-zero end entry",
                              MAX_KEYS);
        const vt_config_key *k = loader_config_key_at(d, i);
        if (!k)
            return NULL;
        const unsigned char *p = base + i * d->sizeof_config_key;
        if (d->sizeof_config_key > sizeof(vt_config_key) &&
            !zero_bytes(p, sizeof(vt_config_key), d->sizeof_config_key))
            return str_printf("configuration key #%zu has non-zero fields beyond the %zu bytes "
                              "this host knows: it needs a newer host",
                              i, sizeof(vt_config_key));
        const char *why = entry_fault(k);
        if (why)
            return str_printf("configuration key #%zu (%s.%s) %s", i, k->table ? k->table : "?",
                              k->key ? k->key : "?", why);
    }
}
