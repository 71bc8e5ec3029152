/* Shared by schema.c (validation) and schema_prepare.c (load time). */
#ifndef VTHOST_SCHEMA_INTERNAL_H
#define VTHOST_SCHEMA_INTERNAL_H

#include <cjson/cJSON.h>

/* A JSON value as error messages quote it (malloc'd). */
char *schema_render_value(const cJSON *v);
/* The value as quoted, with its kind when that is not evident (malloc'd). */
char *schema_render_got_typed(const cJSON *v);

#endif
