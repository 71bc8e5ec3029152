/* The table the TOML reader module exports (toml_module.c) and the
 * executable binds on first use (toml_lazy.c).  Host-private: the module
 * and the executable are built and shipped together. */
#ifndef VTHOST_TOML_MODULE_H
#define VTHOST_TOML_MODULE_H

#include <cjson/cJSON.h>

/* The functions of toml_reader.h, same contracts. */
typedef struct vthost_toml_ops {
    int (*read_file)(const char *path, cJSON **out, char **err);
    int (*read_string)(const char *text, const char *name, cJSON **out, char **err);
    int (*key_line)(const char *path, const char *dotted_key, int *line);
    int (*array_item_line)(const char *path, const char *dotted_key, int index, int *line);
    int (*key_position)(const char *path, const char *dotted_key, int *line, int *column);
} vthost_toml_ops;

#define VTHOST_TOML_OPS_SYMBOL "vthost_toml_ops_v1"
/* In lib/vthost/private/ relative to the executable's directory (below
 * lib/vthost, so packaging sees no public library to run ldconfig for);
 * no ".so" suffix: it is a part of the host, not a plugin module. */
#define VTHOST_TOML_MODULE_DIR "lib/vthost/private"
#define VTHOST_TOML_MODULE_NAME "toml-reader.mod"

#endif
