/* vtcode.toml -> cJSON, through toml++ (toml_reader.cpp). */
#ifndef VTHOST_TOML_READER_H
#define VTHOST_TOML_READER_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parse the TOML file at `path` into a new cJSON object (tables become
 * objects, arrays arrays, integers numbers, dates strings).  On a syntax
 * error returns a negative status and *err = "PATH:LINE:COLUMN: what"
 * (malloc'd).  A missing file is VT_ERR_NOT_FOUND. */
int toml_read_file(const char *path, cJSON **out, char **err);
/* Same for text in memory; `name` is used in messages. */
int toml_read_string(const char *text, const char *name, cJSON **out, char **err);

#ifdef __cplusplus
}
#endif
#endif
