/* cJSON, opened on first use rather than linked.
 *
 * Most starts never touch JSON before they exit (`vthost tools` from its
 * cached listing), yet a linked libcjson costs every start its mapping,
 * its relocations and the binding of each of the host's cJSON calls.
 * The host's calls land here instead (these definitions come first on
 * the link line, so --as-needed leaves libcjson out of the executable);
 * the first one opens the library, RTLD_GLOBAL as a linked library was,
 * so that plugins and the TOML reader module share the very same copy
 * (and its allocator) with the host.  Every cJSON function the host
 * calls is listed here: one that is not links libcjson again, which
 * host_startup_path notices. */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "cjson_lazy.h"
#include "opened_lib.h"

/* R(return type, name, parameters, arguments); V(name, ...) returns void. */
#define CJSON_CALLS(R, V)                                                                          \
    R(cJSON *, cJSON_AddArrayToObject, (cJSON *const object, const char *const name),              \
      (object, name))                                                                              \
    R(cJSON *, cJSON_AddBoolToObject,                                                              \
      (cJSON *const object, const char *const name, const cJSON_bool boolean),                     \
      (object, name, boolean))                                                                     \
    R(cJSON *, cJSON_AddFalseToObject, (cJSON *const object, const char *const name),              \
      (object, name))                                                                              \
    R(cJSON_bool, cJSON_AddItemToArray, (cJSON * array, cJSON * item), (array, item))              \
    R(cJSON_bool, cJSON_AddItemToObject, (cJSON * object, const char *string, cJSON *item),        \
      (object, string, item))                                                                      \
    R(cJSON *, cJSON_AddNullToObject, (cJSON *const object, const char *const name),               \
      (object, name))                                                                              \
    R(cJSON *, cJSON_AddNumberToObject,                                                            \
      (cJSON *const object, const char *const name, const double number), (object, name, number))  \
    R(cJSON *, cJSON_AddObjectToObject, (cJSON *const object, const char *const name),             \
      (object, name))                                                                              \
    R(cJSON *, cJSON_AddStringToObject,                                                            \
      (cJSON *const object, const char *const name, const char *const string),                     \
      (object, name, string))                                                                      \
    R(cJSON_bool, cJSON_Compare,                                                                   \
      (const cJSON *const a, const cJSON *const b, const cJSON_bool case_sensitive),               \
      (a, b, case_sensitive))                                                                      \
    R(cJSON *, cJSON_CreateArray, (void), ())                                                      \
    R(cJSON *, cJSON_CreateBool, (cJSON_bool boolean), (boolean))                                  \
    R(cJSON *, cJSON_CreateNull, (void), ())                                                       \
    R(cJSON *, cJSON_CreateNumber, (double num), (num))                                            \
    R(cJSON *, cJSON_CreateObject, (void), ())                                                     \
    R(cJSON *, cJSON_CreateRaw, (const char *raw), (raw))                                          \
    R(cJSON *, cJSON_CreateString, (const char *string), (string))                                 \
    R(cJSON *, cJSON_CreateStringArray, (const char *const *strings, int count), (strings, count)) \
    V(cJSON_Delete, (cJSON * item), (item))                                                        \
    V(cJSON_DeleteItemFromArray, (cJSON * array, int which), (array, which))                       \
    V(cJSON_DeleteItemFromObject, (cJSON * object, const char *string), (object, string))          \
    V(cJSON_DeleteItemFromObjectCaseSensitive, (cJSON * object, const char *string),               \
      (object, string))                                                                            \
    R(cJSON *, cJSON_DetachItemFromObjectCaseSensitive, (cJSON * object, const char *string),      \
      (object, string))                                                                            \
    R(cJSON *, cJSON_DetachItemViaPointer, (cJSON * parent, cJSON *const item), (parent, item))    \
    R(cJSON *, cJSON_Duplicate, (const cJSON *item, cJSON_bool recurse), (item, recurse))          \
    R(cJSON *, cJSON_GetArrayItem, (const cJSON *array, int index), (array, index))                \
    R(int, cJSON_GetArraySize, (const cJSON *array), (array))                                      \
    R(double, cJSON_GetNumberValue, (const cJSON *const item), (item))                             \
    R(cJSON *, cJSON_GetObjectItemCaseSensitive,                                                   \
      (const cJSON *const object, const char *const string), (object, string))                     \
    R(char *, cJSON_GetStringValue, (const cJSON *const item), (item))                             \
    R(cJSON_bool, cJSON_InsertItemInArray, (cJSON * array, int which, cJSON *newitem),             \
      (array, which, newitem))                                                                     \
    R(cJSON_bool, cJSON_IsArray, (const cJSON *const item), (item))                                \
    R(cJSON_bool, cJSON_IsBool, (const cJSON *const item), (item))                                 \
    R(cJSON_bool, cJSON_IsFalse, (const cJSON *const item), (item))                                \
    R(cJSON_bool, cJSON_IsNull, (const cJSON *const item), (item))                                 \
    R(cJSON_bool, cJSON_IsNumber, (const cJSON *const item), (item))                               \
    R(cJSON_bool, cJSON_IsObject, (const cJSON *const item), (item))                               \
    R(cJSON_bool, cJSON_IsRaw, (const cJSON *const item), (item))                                  \
    R(cJSON_bool, cJSON_IsString, (const cJSON *const item), (item))                               \
    R(cJSON_bool, cJSON_IsTrue, (const cJSON *const item), (item))                                 \
    R(cJSON *, cJSON_Parse, (const char *value), (value))                                          \
    R(cJSON *, cJSON_ParseWithLength, (const char *value, size_t buffer_length),                   \
      (value, buffer_length))                                                                      \
    R(cJSON *, cJSON_ParseWithLengthOpts,                                                          \
      (const char *value, size_t buffer_length, const char **return_parse_end,                     \
       cJSON_bool require_null_terminated),                                                        \
      (value, buffer_length, return_parse_end, require_null_terminated))                           \
    R(cJSON *, cJSON_ParseWithOpts,                                                                \
      (const char *value, const char **return_parse_end, cJSON_bool require_null_terminated),      \
      (value, return_parse_end, require_null_terminated))                                          \
    R(char *, cJSON_Print, (const cJSON *item), (item))                                            \
    R(char *, cJSON_PrintUnformatted, (const cJSON *item), (item))                                 \
    R(cJSON_bool, cJSON_ReplaceItemInObjectCaseSensitive,                                          \
      (cJSON * object, const char *string, cJSON *newitem), (object, string, newitem))             \
    V(cJSON_free, (void *object), (object))                                                        \
    R(void *, cJSON_malloc, (size_t size), (size))

#define SLOT_R(ret, name, params, args) static ret(*p_##name) params;
#define SLOT_V(name, params, args) static void(*p_##name) params;
CJSON_CALLS(SLOT_R, SLOT_V)

#define SYM_R(ret, name, params, args) {#name, (void **)&p_##name},
#define SYM_V(name, params, args) {#name, (void **)&p_##name},
static const opened_sym syms[] = {CJSON_CALLS(SYM_R, SYM_V){NULL, NULL}};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind_cjson(void)
{
    char *err = NULL;
    /* global first: a plugin's own reference to libcjson then finds it
     * loaded, and one without any finds its symbols as before */
    void *global = dlopen(VTHOST_CJSON_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (global && opened_lib_bind(VTHOST_CJSON_SONAME, syms, &err) == 0)
        return;
    /* nothing can go on without JSON: the start a missing linked
     * library would have refused, said plainly */
    const char *why = err ? NULL : dlerror();
    fprintf(stderr, "vthost: %s%s%s\n",
            err ? err : "cannot open " VTHOST_CJSON_SONAME " (install the package that ships it)",
            why ? ": " : "", why ? why : "");
    exit(EXIT_FAILURE);
}

void cjson_lazy_open(void) { pthread_once(&once, bind_cjson); }

#define CALL_R(ret, name, params, args)                                                            \
    ret name params                                                                                \
    {                                                                                              \
        cjson_lazy_open();                                                                         \
        return p_##name args;                                                                      \
    }
#define CALL_V(name, params, args)                                                                 \
    void name params                                                                               \
    {                                                                                              \
        cjson_lazy_open();                                                                         \
        p_##name args;                                                                             \
    }
CJSON_CALLS(CALL_R, CALL_V)
