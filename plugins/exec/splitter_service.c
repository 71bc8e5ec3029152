/* The splitter as the service vt_splitter_v1 (exec.command_splitter):
 * split_shell and split_words at the JSON boundary.  In the exec core, so
 * that a test can publish the real splitter without the plugin. */
#include "splitter_service.h"

#include <string.h>
#include "splitter.h"

/* Add a written path to entry o's "writes". */
static int add_write(cJSON *o, const char *path)
{
    cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "writes");
    if (!w)
        w = cJSON_AddArrayToObject(o, "writes");
    return w && cJSON_AddItemToArray(w, cJSON_CreateString(path));
}

static int splitter_split(const char *cmd, cJSON **out)
{
    split_list l = {0};
    *out = NULL;
    int rc = split_shell(cmd ? cmd : "", &l);
    cJSON *arr = rc == VT_OK ? cJSON_CreateArray() : NULL;
    /* A simple command's redirections come before the command itself:
     * they wait here for it. */
    cJSON *pending = cJSON_CreateObject();
    if (!pending) {
        cJSON_Delete(arr);
        arr = NULL;
    }
    for (size_t k = 0; arr && k < l.count; k++) {
        if (l.items[k].kind == SPLIT_WRITE) {
            if (!add_write(pending, l.items[k].text)) {
                cJSON_Delete(arr);
                arr = NULL;
            }
            continue;
        }
        if (l.items[k].kind != SPLIT_COMMAND && l.items[k].kind != SPLIT_OPAQUE)
            continue;
        /* a shell reading text out of sight is both; listed once, opaque */
        if (k && l.items[k].kind == SPLIT_COMMAND && l.items[k - 1].kind == SPLIT_OPAQUE &&
            !strcmp(l.items[k].text, l.items[k - 1].text))
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "command", l.items[k].text) ||
            !cJSON_AddBoolToObject(o, "opaque", l.items[k].kind == SPLIT_OPAQUE) ||
            !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            arr = NULL;
        } else if (cJSON_GetObjectItemCaseSensitive(pending, "writes")) {
            cJSON_AddItemToObject(o, "writes", cJSON_DetachItemFromObject(pending, "writes"));
        }
    }
    /* redirections with no command after them: an entry of their own */
    if (arr && cJSON_GetObjectItemCaseSensitive(pending, "writes")) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "command", "") ||
            !cJSON_AddBoolToObject(o, "opaque", 0) || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            arr = NULL;
        } else {
            cJSON_AddItemToObject(o, "writes", cJSON_DetachItemFromObject(pending, "writes"));
        }
    }
    cJSON_Delete(pending);
    split_list_free(&l);
    if (!arr)
        return VT_ERR_NOMEM;
    *out = arr;
    return VT_OK;
}

static int splitter_words(const char *text, cJSON **out)
{
    split_list l = {0};
    *out = NULL;
    int rc = split_words(text ? text : "", &l);
    cJSON *arr = rc == VT_OK ? cJSON_CreateArray() : NULL;
    if (rc == VT_OK && !arr)
        rc = VT_ERR_NOMEM;
    for (size_t k = 0; rc == VT_OK && k < l.count; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "text", l.items[k].text) ||
            !cJSON_AddBoolToObject(o, "literal", l.items[k].kind == SPLIT_WORD) ||
            !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            rc = VT_ERR_NOMEM;
        }
    }
    split_list_free(&l);
    if (rc != VT_OK) {
        cJSON_Delete(arr);
        return rc;
    }
    *out = arr;
    return VT_OK;
}

static const vt_splitter_v1 service = {
    .struct_size = sizeof(vt_splitter_v1), .split = splitter_split, .words = splitter_words};

const vt_splitter_v1 *splitter_service(void) { return &service; }
