/* The TOML reader as a module of its own
 * (lib/vthost/private/toml-reader.mod): toml++ and the C++ runtime it
 * needs stay out of the executable's start path and are mapped only when
 * a vtcode.toml is read (toml_lazy.c). */
#include "toml_module.h"
#include "toml_reader.h"

static const vthost_toml_ops ops = {
    .read_file = toml_read_file,
    .read_string = toml_read_string,
    .key_line = toml_key_line,
    .array_item_line = toml_array_item_line,
    .key_position = toml_key_position,
};

__attribute__((visibility("default"))) const vthost_toml_ops *vthost_toml_ops_v1(void);

const vthost_toml_ops *vthost_toml_ops_v1(void) { return &ops; }
