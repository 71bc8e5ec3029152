/* Human renderings of tool responses: the CLI's --format text and the
 * MCP text block.  Diffs (a "diff" array of per-file entries) show a
 * header per file, the unified content and the counts; other
 * results show their "output" text, then their remaining fields. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"
#include "strbuf.h"

/* The host's string builder (strbuf.c). */
typedef vt_strbuf sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) { strbuf_append(b, s, n); }
static void sb_str(sbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }
#define sb_fmt strbuf_printf

static void sb_endline(sbuf *b)
{
    if (b->len && b->data[b->len - 1] != '\n')
        sb_put(b, "\n", 1);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void render_diff_entry(sbuf *b, const cJSON *e)
{
    const char *path = str(e, "path");
    const char *op = str(e, "operation");
    const char *from = str(e, "from");
    const char *content = str(e, "content");
    sb_fmt(b, "--- %s %s", op ? op : "changed", path ? path : "(unknown path)");
    if (from)
        sb_fmt(b, " (from %s)", from);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "is_empty")))
        sb_str(b, ": no changes");
    else
        sb_fmt(b, " (+%.0f -%.0f)", num(e, "additions", 0), num(e, "deletions", 0));
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "truncated")))
        sb_fmt(b, ", %.0f diff lines omitted", num(e, "omitted_line_count", 0));
    sb_str(b, "\n");
    if (content && *content) {
        sb_str(b, content);
        sb_endline(b);
    }
}

static void render_diffs(sbuf *b, const char *tool, const cJSON *diff)
{
    double add = 0, del = 0;
    int files = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, diff)
    {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "is_empty")))
            continue;
        files++;
        add += num(e, "additions", 0);
        del += num(e, "deletions", 0);
    }
    sb_fmt(b, "%s: %d file%s changed, %.0f insertion%s(+), %.0f deletion%s(-)\n",
           tool ? tool : "result", files, files == 1 ? "" : "s", add, add == 1 ? "" : "s", del,
           del == 1 ? "" : "s");
    cJSON_ArrayForEach(e, diff)
    {
        sb_str(b, "\n");
        render_diff_entry(b, e);
    }
}

/* "key: value" for the fields a diff or output rendering did not show. */
static void render_fields(sbuf *b, const cJSON *r, const char *const *skip)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, r)
    {
        int skipped = 0;
        for (size_t i = 0; skip[i] && !skipped; i++)
            skipped = strcmp(it->string, skip[i]) == 0;
        if (skipped)
            continue;
        if (cJSON_IsString(it)) {
            sb_fmt(b, "%s: %s", it->string, it->valuestring);
            sb_endline(b);
        } else if (cJSON_IsArray(it) && cJSON_GetArraySize(it) > 0 &&
                   cJSON_IsString(cJSON_GetArrayItem(it, 0))) {
            sb_fmt(b, "%s:\n", it->string);
            const cJSON *s;
            cJSON_ArrayForEach(s, it)
            {
                char *v = cJSON_IsString(s) ? NULL : cJSON_PrintUnformatted(s);
                sb_fmt(b, "  - %s\n", v ? v : s->valuestring);
                free(v);
            }
        } else {
            char *v = cJSON_PrintUnformatted(it);
            sb_fmt(b, "%s: %s\n", it->string, v ? v : "?");
            free(v);
        }
    }
}

char *render_text(const char *tool, const cJSON *response)
{
    sbuf b = VT_STRBUF_INIT;
    if (!cJSON_IsObject(response)) {
        char *v = response ? cJSON_Print(response) : NULL;
        if (v) {
            sb_str(&b, v);
            free(v);
        }
        goto out;
    }
    const cJSON *success = cJSON_GetObjectItemCaseSensitive(response, "success");
    const char *error = str(response, "error");
    if (cJSON_IsFalse(success) || (error && !success)) {
        sb_fmt(&b, "%s failed: %s\n", tool ? tool : "call", error ? error : "(no message)");
        static const char *const skip[] = {"success", "error", NULL};
        render_fields(&b, response, skip);
        goto out;
    }
    const cJSON *diff = cJSON_GetObjectItemCaseSensitive(response, "diff");
    const char *output = str(response, "output");
    if (cJSON_IsArray(diff)) {
        render_diffs(&b, tool, diff);
        static const char *const skip[] = {"success", "diff", "applied", "modified_files", NULL};
        sbuf rest = VT_STRBUF_INIT;
        render_fields(&rest, response, skip);
        if (rest.len) {
            sb_str(&b, "\n");
            sb_str(&b, rest.data);
        }
        free(rest.data);
    } else if (output) {
        sb_str(&b, output);
        sb_endline(&b);
        static const char *const skip[] = {"success", "output", NULL};
        sbuf rest = VT_STRBUF_INIT;
        render_fields(&rest, response, skip);
        if (rest.len) {
            if (*output)
                sb_str(&b, "\n");
            sb_str(&b, rest.data);
        }
        free(rest.data);
    } else {
        static const char *const skip[] = {"success", NULL};
        render_fields(&b, response, skip);
    }
out:
    return strbuf_take(&b); /* NULL when out of memory */
}
