/* The subject sink handed to a tool's permission hook. */
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "subjects.h"

void subjects_init(vt_subjects *s) { memset(s, 0, sizeof *s); }

int subjects_add(vt_subjects *s, vt_subject_kind kind, const char *value)
{
    if (!s || !value || kind < VT_SUBJECT_COMMAND || kind > VT_SUBJECT_MCP_TOOL)
        return VT_ERR_INVALID;
    if (VT_GROW(&s->items, &s->cap, s->count + 1) != 0)
        return VT_ERR_NOMEM;
    char *copy = strdup(value);
    if (!copy)
        return VT_ERR_NOMEM;
    s->items[s->count].kind = kind;
    s->items[s->count].value = copy;
    s->count++;
    return VT_OK;
}

void subjects_free(vt_subjects *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i].value);
    free(s->items);
    memset(s, 0, sizeof *s);
}

const char *subject_kind_name(vt_subject_kind kind)
{
    switch (kind) {
    case VT_SUBJECT_COMMAND: return "command";
    case VT_SUBJECT_OPAQUE: return "opaque_command";
    case VT_SUBJECT_PATH_READ: return "path_read";
    case VT_SUBJECT_PATH_EDIT: return "path_edit";
    case VT_SUBJECT_PATH_CREATE: return "path_create";
    case VT_SUBJECT_PATH_DELETE: return "path_delete";
    case VT_SUBJECT_DOMAIN: return "domain";
    case VT_SUBJECT_CWD: return "cwd";
    case VT_SUBJECT_ESCALATION: return "escalation";
    case VT_SUBJECT_MCP_SERVER: return "mcp_server";
    case VT_SUBJECT_MCP_TOOL: return "mcp_tool";
    }
    return "unknown";
}
