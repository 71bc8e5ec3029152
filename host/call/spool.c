/* Output spool.  Memory holds at most the first and the last budget's
 * worth of bytes; everything in between streams to the spool file, which
 * is created only when the output outgrows the budget. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>
#include "spool.h"
#include "spool_dir.h"
#include "strutil.h"

/* Past this many bytes written, the directory's cap is checked again. */
#define ENFORCE_EVERY ((uint64_t)64 * 1024 * 1024)

struct vt_spool {
    char *workspace;
    char *rel_path; /* workspace-relative spool file */
    size_t budget;  /* bytes: max_tokens * 4 */
    int max_tokens;
    char *head; /* first `budget` bytes */
    size_t head_len;
    char *ring;      /* last `budget` bytes, circular */
    size_t ring_pos; /* next write position */
    size_t total;
    int fd;           /* -1 until the output outgrows the budget */
    int failed;       /* the file could not be created or written */
    int capped;       /* the file reached the per-call cap */
    uint64_t written; /* bytes in the file */
    uint64_t since_enforce;
    char *why; /* why the file is missing or incomplete */
};

size_t budget_tokens(size_t bytes) { return (bytes + 3) / 4; }

vt_spool *spool_new(const char *workspace, const char *tool, const char *id, int max_tokens)
{
    return spool_new_in(workspace, NULL, tool, id, max_tokens);
}

vt_spool *spool_new_in(const char *workspace, const char *view, const char *tool, const char *id,
                       int max_tokens)
{
    vt_spool *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->max_tokens = max_tokens;
    s->budget = (size_t)max_tokens * 4;
    s->fd = -1;
    s->workspace = strdup(workspace);
    s->head = malloc(s->budget);
    /* A tool name is a file name part here: never a path. */
    if (strchr(tool, '/') || strchr(id, '/'))
        tool = "tool";
    if (view && (!*view || strchr(view, '/') || view[0] == '.'))
        view = NULL;
    size_t n = strlen(SPOOL_DIR) + (view ? strlen(view) + 1 : 0) + strlen(tool) + strlen(id) + 8;
    s->rel_path = malloc(n);
    if (!s->workspace || !s->head || !s->rel_path) {
        spool_free(s);
        return NULL;
    }
    snprintf(s->rel_path, n, "%s/%s%s%s-%s.txt", SPOOL_DIR, view ? view : "", view ? "/" : "", tool,
             id);
    return s;
}

void spool_free(vt_spool *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s->why);
    free(s->workspace);
    free(s->rel_path);
    free(s->head);
    free(s->ring);
    free(s);
}

/* Write to the file up to the per-call cap.  A failed write (disk full,
 * file size limit) stops the file, never the command or the preview. */
static void file_put(vt_spool *s, const char *p, size_t n)
{
    uint64_t cap = spool_call_cap();
    if (s->failed || s->capped || s->fd < 0)
        return;
    if (s->written + n > cap) {
        n = (size_t)(cap - s->written);
        s->capped = 1;
    }
    while (n) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            s->failed = 1;
            free(s->why);
            s->why = str_printf("writing the spool file failed after %llu bytes (%s); "
                                "it holds only the start of the output",
                                (unsigned long long)s->written, strerror(w < 0 ? errno : ENOSPC));
            return;
        }
        p += w;
        n -= (size_t)w;
        s->written += (uint64_t)w;
        s->since_enforce += (uint64_t)w;
    }
    if (s->since_enforce >= ENFORCE_EVERY) {
        s->since_enforce = 0;
        spool_dir_enforce(s->workspace);
    }
}

static void spill_open(vt_spool *s)
{
    /* Room first: the cap counts finished files only. */
    spool_dir_enforce(s->workspace);
    const char *name = s->rel_path + strlen(SPOOL_DIR) + 1;
    int fd = spool_dir_create(s->workspace, name, &s->why);
    if (fd < 0) {
        s->failed = 1;
        return;
    }
    s->fd = fd;
    file_put(s, s->head, s->head_len);
}

static void ring_put(vt_spool *s, const char *p, size_t n)
{
    if (n >= s->budget) {
        memcpy(s->ring, p + n - s->budget, s->budget);
        s->ring_pos = 0;
        return;
    }
    size_t first = s->budget - s->ring_pos;
    if (first > n)
        first = n;
    memcpy(s->ring + s->ring_pos, p, first);
    memcpy(s->ring, p + first, n - first);
    s->ring_pos = (s->ring_pos + n) % s->budget;
}

int spool_append(vt_spool *s, const void *buf, size_t len)
{
    const char *p = buf;
    if (!s || (!p && len))
        return VT_ERR_INVALID;
    if (!s->ring) {
        s->ring = malloc(s->budget);
        if (!s->ring)
            return VT_ERR_NOMEM;
    }
    size_t room = s->budget - s->head_len;
    size_t to_head = len < room ? len : room;
    memcpy(s->head + s->head_len, p, to_head);
    s->head_len += to_head;
    ring_put(s, p, len);
    s->total += len;
    /* The head and the ring above stay exact whatever happens to the
     * file, so the preview always shows the real start and end. */
    if (s->total > s->budget && !s->failed) {
        if (s->fd < 0)
            spill_open(s); /* writes the whole head */
        file_put(s, p + to_head, len - to_head);
    }
    return VT_OK;
}

/* Append `len` bytes as valid UTF-8 (invalid bytes become U+FFFD, NUL
 * becomes U+2400). */
static size_t put_sanitised(char *out, const char *in, size_t len)
{
    size_t o = 0, i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)in + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n <= 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i += 1;
        } else if (cp == 0) {
            /* A NUL would end the JSON string early: show U+2400. */
            memcpy(out + o, "\xE2\x90\x80", 3);
            o += 3;
            i += 1;
        } else {
            memcpy(out + o, in + i, (size_t)n);
            o += (size_t)n;
            i += (size_t)n;
        }
    }
    return o;
}

/* Longest prefix of at most `limit` bytes ending on a character boundary. */
static size_t head_cut(const char *s, size_t len, size_t limit)
{
    size_t i = 0;
    if (limit > len)
        limit = len;
    while (i < limit) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
        size_t step = n <= 0 ? 1 : (size_t)n;
        if (i + step > limit)
            break;
        i += step;
    }
    return i;
}

/* Offset of the first character boundary at or after `from`. */
static size_t tail_start(const char *s, size_t len, size_t from)
{
    size_t i = from;
    while (i < len && i < from + 3 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

char *budget_preview(const char *head, size_t head_len, const char *tail, size_t tail_len,
                     size_t total, int max_tokens, size_t *omitted)
{
    size_t budget = (size_t)max_tokens * 4;
    *omitted = 0;
    if (total <= budget) {
        char *out = malloc(head_len * 3 + 1);
        if (!out)
            return NULL;
        out[put_sanitised(out, head, head_len)] = '\0';
        return out;
    }
    size_t want_head = budget / 2, want_tail = budget - want_head;
    size_t h = head_cut(head, head_len, want_head);
    size_t t_from = tail_len > want_tail ? tail_len - want_tail : 0;
    size_t t0 = tail_start(tail, tail_len, t_from);
    size_t t = tail_len - t0;
    *omitted = budget_tokens(total) - budget_tokens(h + t);
    char marker[128];
    int m = snprintf(marker, sizeof marker,
                     "\n[... %zu tokens omitted; the complete output is in spool_path ...]\n",
                     *omitted);
    char *out = malloc((h + t) * 3 + (size_t)m + 1);
    if (!out)
        return NULL;
    size_t o = put_sanitised(out, head, h);
    memcpy(out + o, marker, (size_t)m);
    o += (size_t)m;
    o += put_sanitised(out + o, tail + t0, t);
    out[o] = '\0';
    return out;
}

int spool_finish(vt_spool *s, cJSON *result, cJSON **warnings)
{
    char *tail = NULL;
    size_t tail_len = 0;
    if (s->total > s->budget) {
        /* Linearise the ring: its oldest byte is at ring_pos. */
        tail_len = s->budget;
        tail = malloc(tail_len);
        if (!tail)
            return VT_ERR_NOMEM;
        memcpy(tail, s->ring + s->ring_pos, s->budget - s->ring_pos);
        memcpy(tail + s->budget - s->ring_pos, s->ring, s->ring_pos);
    }
    size_t omitted;
    char *preview =
        budget_preview(s->head, s->head_len, tail, tail_len, s->total, s->max_tokens, &omitted);
    free(tail);
    if (!preview)
        return VT_ERR_NOMEM;
    cJSON_DeleteItemFromObject(result, "output");
    cJSON_AddStringToObject(result, "output", preview);
    free(preview);
    if (s->total > s->budget) {
        cJSON_DeleteItemFromObject(result, "truncated");
        cJSON_AddBoolToObject(result, "truncated", 1);
        cJSON_AddNumberToObject(result, "original_token_count", (double)budget_tokens(s->total));
        if (s->fd >= 0)
            cJSON_AddStringToObject(result, "spool_path", s->rel_path);
        if (s->capped) {
            cJSON_AddBoolToObject(result, "spool_truncated", 1);
            free(s->why);
            s->why = str_printf("the spool file stopped at the per-call cap of %llu MiB "
                                "([tools.spool] max_call_mib); the preview's end is the "
                                "output's real end",
                                (unsigned long long)(spool_call_cap() >> 20));
        }
        if (s->failed)
            cJSON_AddBoolToObject(result, "spool_incomplete", 1);
        if (s->why && warnings) {
            if (!*warnings)
                *warnings = cJSON_CreateArray();
            cJSON_AddItemToArray(*warnings, cJSON_CreateString(s->why));
        }
    }
    if (s->fd >= 0) {
        close(s->fd); /* releases the lock: the file is finished */
        s->fd = -1;
        spool_dir_enforce(s->workspace);
    }
    return VT_OK;
}
