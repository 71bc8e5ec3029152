/* vtcode.toml -> cJSON, through toml++ (toml_reader.cpp). */
#ifndef VTHOST_TOML_READER_H
#define VTHOST_TOML_READER_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parse the TOML file at `path` into a new cJSON object (tables become
 * objects with members in document order, arrays arrays, integers and
 * floats numbers, booleans booleans, dates/times ISO 8601 strings).  On a
 * syntax error returns VT_ERR_INVALID and *err = "PATH:LINE:COLUMN: what"
 * (malloc'd).  A missing file is VT_ERR_NOT_FOUND, an unreadable one
 * VT_ERR_IO, each with a message.  *out is owned by the caller. */
int toml_read_file(const char *path, cJSON **out, char **err);
/* Same for text in memory; `name` stands for PATH in messages. */
int toml_read_string(const char *text, const char *name, cJSON **out, char **err);

/* The 1-based line where `dotted_key` ("tools.profile", "a.b[2].c" for
 * elements inside arrays) is defined in the TOML file at `path`, for
 * messages that point into the file.  VT_ERR_NOT_FOUND when the file or
 * key does not exist, VT_ERR_INVALID when the file does not parse. */
int toml_key_line(const char *path, const char *dotted_key, int *line);
/* The line of element `index` (0-based) of the array at `dotted_key`. */
int toml_array_item_line(const char *path, const char *dotted_key, int index, int *line);

/* Where the value at `dotted_key` begins: 1-based line and column (in
 * characters), for tools that edit the file in place. */
int toml_key_position(const char *path, const char *dotted_key, int *line, int *column);

#ifdef __cplusplus
}
#endif
#endif
