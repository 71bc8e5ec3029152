/* The apply_patch tool: argument checks, the permission subjects, and
 * the JSON response around a patch transaction. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "patch_buf.h"
#include "patch_fs.h"
#include "patch_release.h"
#include "patch_sync.h"
#include "patch_tx.h"

#define PATCH_MAX_BYTES (1024 * 1024)

static VT_PLUGIN_API(api);
/* Patches on one workspace apply one after another, so two concurrent
 * calls never interleave their read-compute-write of the same file. */
static pthread_mutex_t apply_lock = PTHREAD_MUTEX_INITIALIZER;

static const char description[] =
    "Edit workspace files with a patch: add, update, move and delete files in one atomic "
    "step (all files change or none). Paths are relative to the workspace root.\n"
    "Format:\n"
    "*** Begin Patch\n"
    "*** Add File: path          then every line of the new file prefixed with '+'\n"
    "*** Delete File: path\n"
    "*** Update File: path\n"
    "*** Move to: new/path       optional, right after Update File\n"
    "@@ optional line to seek first (e.g. a function header)\n"
    " context line (leading space)\n"
    "-removed line\n"
    "+added line\n"
    "*** End of File             optional: the chunk ends the file\n"
    "*** End Patch\n"
    "Give about 3 lines of context around each change; start each further chunk with '@@'. "
    "A chunk with only '+' lines appends to the end of the file. Adding a file that exists, "
    "moving onto an existing file, and updating or deleting a missing file are errors.\n"
    "Example:\n"
    "*** Begin Patch\n"
    "*** Update File: src/app.py\n"
    "@@ def greet():\n"
    "-    print(\"Hi\")\n"
    "+    print(\"Hello\")\n"
    "*** Add File: docs/NOTES.md\n"
    "+# Notes\n"
    "*** End Patch";

static const char schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"input\":{\"type\":\"string\",\"description\":\"The whole patch text, from "
    "'*** Begin Patch' to '*** End Patch' (at most 1 MiB).\"},"
    "\"patch\":{\"type\":\"string\",\"description\":\"Alias of input; give one of the two.\"}"
    "},\"additionalProperties\":false}";

/* The patch text of validated args, or NULL. */
static const cJSON *patch_arg(const cJSON *args, int *count)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(args, "input");
    const cJSON *alias = cJSON_GetObjectItemCaseSensitive(args, "patch");
    *count = (in != NULL) + (alias != NULL);
    return in ? in : alias;
}

static int patch_preflight(vt_call *call, const cJSON *args)
{
    int count;
    const cJSON *text = patch_arg(args, &count);
    if (count == 0)
        return api->call_error(call, VT_ERR_INVALID,
                               "Missing patch: give the patch text in 'input'");
    if (count > 1)
        return api->call_error(call, VT_ERR_INVALID,
                               "Give the patch in 'input' or in 'patch', not both");
    if (!cJSON_IsString(text))
        return api->call_error(call, VT_ERR_INVALID, "The patch must be a string");
    size_t len = strlen(text->valuestring);
    if (len > PATCH_MAX_BYTES)
        return api->call_error(call, VT_ERR_INVALID,
                               "Patch too large: %zu bytes; the limit is %d bytes (1 MiB). "
                               "Split the change into several apply_patch calls.",
                               len, PATCH_MAX_BYTES);
    return 0;
}

static int patch_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    int count;
    const cJSON *text = patch_arg(args, &count);
    if (!cJSON_IsString(text))
        return api->call_error(call, VT_ERR_INVALID, "Missing patch text");
    tx t;
    char *err = NULL;
    int rc = tx_parse(&t, text->valuestring, strlen(text->valuestring), &err);
    if (rc) {
        rc = api->call_error(call, rc, "%s", err ? err : "Invalid patch");
        free(err);
        tx_free(&t);
        return rc;
    }
    /* A path through a symlink is refused here, before the permission
     * check: asking the user to approve a write that cannot happen (and
     * that names a place outside the workspace) would be worse than
     * useless.  The writes themselves stay confined by patch_fs.  An
     * explanation skips it, to show the policy's own decision. */
    int explaining = VT_HAS(api, call_explaining) && api->call_explaining(call);
    int root = explaining ? -1 : open(api->workspace_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = 0; root >= 0 && i < t.n && rc == 0; i++) {
        const tx_entry *e = &t.e[i];
        rc = fs_link_check(root, api->workspace_root(), e->path, &err);
        if (rc == 0 && e->dest)
            rc = fs_link_check(root, api->workspace_root(), e->dest, &err);
        if (rc) {
            rc = api->call_error(call, rc, "%s (patch line %zu)", err ? err : "Refused path",
                                 e->op->line_no);
            free(err);
        }
    }
    if (root >= 0)
        close(root);
    for (size_t i = 0; i < t.n && rc == 0; i++) {
        const tx_entry *e = &t.e[i];
        switch (e->op->kind) {
        case PATCH_ADD: rc = api->subject_add(out, VT_SUBJECT_PATH_CREATE, e->path); break;
        case PATCH_DELETE: rc = api->subject_add(out, VT_SUBJECT_PATH_DELETE, e->path); break;
        default:
            if (e->dest) {
                /* A move removes the source and creates the destination. */
                rc = api->subject_add(out, VT_SUBJECT_PATH_DELETE, e->path);
                if (rc == 0)
                    rc = api->subject_add(out, VT_SUBJECT_PATH_CREATE, e->dest);
            } else {
                rc = api->subject_add(out, VT_SUBJECT_PATH_EDIT, e->path);
            }
        }
    }
    tx_free(&t);
    return rc;
}

static const char *operation(const tx_entry *e)
{
    switch (e->op->kind) {
    case PATCH_ADD: return "created";
    case PATCH_DELETE: return "deleted";
    default: return "updated";
    }
}

/* One diff entry.  An entry that changed nothing (is_empty) carries no
 * content lines and zero counts, whatever the edit script held. */
static cJSON *diff_entry(const char *path, const char *op, const diff_out *df, int changed)
{
    cJSON *d = cJSON_CreateObject();
    if (!d)
        return NULL;
    cJSON_AddStringToObject(d, "path", path);
    cJSON_AddStringToObject(d, "operation", op);
    cJSON_AddStringToObject(d, "content", changed && df->content ? df->content : "");
    cJSON_AddNumberToObject(d, "additions", changed ? (double)df->additions : 0);
    cJSON_AddNumberToObject(d, "deletions", changed ? (double)df->deletions : 0);
    cJSON_AddBoolToObject(d, "truncated", changed && df->truncated);
    if (changed && df->truncated)
        cJSON_AddNumberToObject(d, "omitted_line_count", (double)df->omitted);
    cJSON_AddBoolToObject(d, "is_empty", !changed);
    return d;
}

/* Diff entries of one patch operation: a move is reported as the original
 * tool does, the source `deleted` (its whole old content) and the
 * destination `created` (its whole new content).  Returns 0 or
 * VT_ERR_NOMEM. */
static int add_diff_entries(cJSON *arr, const tx_entry *e)
{
    if (!e->dest)
        return cJSON_AddItemToArray(arr,
                                    diff_entry(e->path, operation(e), &e->res.diff, e->changed))
                   ? 0
                   : VT_ERR_NOMEM;
    file_result del, cre;
    int rc = apply_delete(e->old, e->old_len, &del);
    if (rc)
        return rc;
    rc = apply_created_diff(e->res.data, e->res.size, &cre);
    if (rc == 0 && (!cJSON_AddItemToArray(arr, diff_entry(e->path, "deleted", &del.diff, 1)) ||
                    !cJSON_AddItemToArray(arr, diff_entry(e->dest, "created", &cre.diff, 1))))
        rc = VT_ERR_NOMEM;
    file_result_free(&del);
    file_result_free(&cre);
    return rc;
}

static cJSON *response(const tx *t, size_t *nchanged)
{
    cJSON *r = cJSON_CreateObject();
    cJSON *applied = cJSON_CreateArray();
    cJSON *modified = cJSON_CreateArray();
    cJSON *diff = cJSON_CreateArray();
    if (!r || !applied || !modified || !diff) {
        cJSON_Delete(r);
        cJSON_Delete(applied);
        cJSON_Delete(modified);
        cJSON_Delete(diff);
        return NULL;
    }
    cJSON_AddBoolToObject(r, "success", 1);
    *nchanged = 0;
    for (size_t i = 0; i < t->n; i++) {
        const tx_entry *e = &t->e[i];
        /* git-status letters; '=' is an update that changed nothing. */
        static const char code[] = {[PATCH_ADD] = 'A', [PATCH_DELETE] = 'D', [PATCH_UPDATE] = 'M'};
        char *line = NULL;
        int n = e->dest ? asprintf(&line, "R %s -> %s", e->path, e->dest)
                        : asprintf(&line, "%c %s", e->changed ? code[e->op->kind] : '=', e->path);
        if (n >= 0) {
            cJSON_AddItemToArray(applied, cJSON_CreateString(line));
            free(line);
        }
        if (e->changed) {
            (*nchanged)++;
            if (e->dest)
                cJSON_AddItemToArray(modified, cJSON_CreateString(e->path));
            cJSON_AddItemToArray(modified, cJSON_CreateString(e->dest ? e->dest : e->path));
        }
        if (add_diff_entries(diff, e) < 0) {
            cJSON_Delete(applied);
            cJSON_Delete(modified);
            cJSON_Delete(diff);
            cJSON_Delete(r);
            return NULL;
        }
    }
    cJSON_AddItemToObject(r, "applied", applied);
    cJSON_AddItemToObject(r, "modified_files", modified);
    cJSON_AddItemToObject(r, "diff", diff);
    return r;
}

static int patch_run(vt_call *call, const cJSON *args, cJSON **result)
{
    int count;
    const cJSON *text = patch_arg(args, &count);
    if (!cJSON_IsString(text))
        return api->call_error(call, VT_ERR_INVALID, "Missing patch text");
    int root = open(api->workspace_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return api->call_error(call, VT_ERR_IO, "Cannot open the workspace '%s'",
                               api->workspace_root());
    tx t;
    char *err = NULL;
    pthread_mutex_lock(&apply_lock);
    int rc = tx_plan(&t, root, text->valuestring, strlen(text->valuestring), &err);
    if (rc == 0)
        rc = tx_commit(&t, &err);
    pthread_mutex_unlock(&apply_lock);
    close(root);
    if (rc) {
        rc = api->call_error(call, rc, "%s", err ? err : "Cannot apply the patch");
        free(err);
        tx_free(&t);
        return rc;
    }
    size_t nchanged = 0;
    *result = response(&t, &nchanged);
    tx_free(&t);
    if (!*result)
        return api->call_error(call, VT_ERR_NOMEM, "Out of memory building the response");
    if (nchanged > 0)
        api->note(call, VT_NOTE_MUTATION, NULL, (long)nchanged);
    return 0;
}

/* Over max_output_tokens the host spools the whole response and keeps
 * only this (vt_tool.budget_keep); the rest is in the spool's preview. */
static const char *const budget_keep[] = {"success", NULL};

/* Rules written for other agents (Claude Code's Edit) read the same. */
static const char *const rule_aliases[] = {"edit", "Edit", NULL};

/* The response built by response() above; one diff entry per file. */
static const char output_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"success\":{\"type\":\"boolean\"},"
    "\"applied\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
    "\"One line per operation, git-status style: A added, M updated, D deleted, "
    "R src -> dst moved, = unchanged.\"},"
    "\"modified_files\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"diff\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"operation\":{\"type\":\"string\",\"description\":\"created, updated or "
    "deleted\"},"
    "\"content\":{\"type\":\"string\",\"description\":\"unified diff, 3 lines of "
    "context\"},"
    "\"additions\":{\"type\":\"integer\",\"minimum\":0},"
    "\"deletions\":{\"type\":\"integer\",\"minimum\":0},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"omitted_line_count\":{\"type\":\"integer\",\"minimum\":0},"
    "\"is_empty\":{\"type\":\"boolean\"}},"
    "\"required\":[\"path\",\"operation\",\"content\",\"additions\",\"deletions\"]}}"
    "},\"required\":[\"success\",\"applied\",\"modified_files\",\"diff\"]}";

static const vt_tool tools[] = {
    {
        .name = "apply_patch",
        .rule_aliases = rule_aliases,
        .budget_keep = budget_keep,
        .description = description,
        .input_schema = schema,
        .title = "Apply a patch to workspace files",
        .output_schema = output_schema,
        .effects = VT_EFFECT_MUTATES_WORKSPACE,
        .preflight = patch_preflight,
        .subjects = patch_subjects,
        .run = patch_run,
    },
    {0},
};

/* The thread closing replaced files must end before the code it runs
 * is unloaded. */
static void patch_fini(void)
{
    release_wait();
    fs_order_fini();
    pbuf_fini();
}

static const vt_plugin plugin = {
    VT_PLUGIN_HEADER, .name = "patch", .version = "0.1.0", .license = "MIT",
    .api_slot = &api, .tools = tools,  .fini = patch_fini,
};

VT_PLUGIN_ENTRY(plugin)
