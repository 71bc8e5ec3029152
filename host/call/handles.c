/* Opaque handles (see handles.h): a bounded table of (client, handle,
 * value).  When it is full, or a client holds its share, the oldest
 * handle (the client's own first) is forgotten: a client that keeps more
 * than HANDLES_PER_CLIENT things alive at once finds its oldest "not
 * found", and never makes another client's handles go away before the
 * whole table is full. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <vthost/plugin.h>
#include "digest.h"
#include "handles.h"
#include "strutil.h"

#define HANDLES_MAX 1024
#define HANDLES_PER_CLIENT 256
#define HANDLE_BYTES (HANDLE_HEX_LEN / 2)

typedef struct handle {
    uint64_t client;
    uint64_t seq; /* issue order: the oldest goes first */
    cJSON *value; /* NULL: a free slot */
    char text[HANDLE_HEX_LEN + 1];
} handle;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static handle table[HANDLES_MAX];
static uint64_t next_seq;

static void forget_locked(handle *h)
{
    cJSON_Delete(h->value);
    memset(h, 0, sizeof *h);
}

/* `text` is HANDLE_HEX_LEN long; compared in constant time, so that how
 * long a refusal takes says nothing about how close a guess came. */
static handle *by_text_locked(uint64_t client, const char *text)
{
    for (size_t i = 0; i < HANDLES_MAX; i++)
        if (table[i].value && table[i].client == client &&
            digest_equal(table[i].text, text, HANDLE_HEX_LEN))
            return &table[i];
    return NULL;
}

static handle *by_value_locked(uint64_t client, const cJSON *value)
{
    for (size_t i = 0; i < HANDLES_MAX; i++)
        if (table[i].value && table[i].client == client && cJSON_Compare(table[i].value, value, 1))
            return &table[i];
    return NULL;
}

/* A slot for a new handle of `client`: a free one while the client is
 * under its share, else the oldest of its own, else the oldest of all. */
static handle *slot_locked(uint64_t client)
{
    handle *free_slot = NULL, *own_oldest = NULL, *oldest = NULL;
    size_t own = 0;
    for (size_t i = 0; i < HANDLES_MAX; i++) {
        handle *h = &table[i];
        if (!h->value) {
            if (!free_slot)
                free_slot = h;
            continue;
        }
        if (!oldest || h->seq < oldest->seq)
            oldest = h;
        if (h->client == client) {
            own++;
            if (!own_oldest || h->seq < own_oldest->seq)
                own_oldest = h;
        }
    }
    handle *h = own >= HANDLES_PER_CLIENT ? own_oldest : free_slot ? free_slot : oldest;
    if (h->value)
        forget_locked(h);
    return h;
}

/* The handle text of `value` for `client`, issued now if it has none;
 * NULL when out of memory or randomness. */
static char *issue_one(uint64_t client, const cJSON *value)
{
    unsigned char raw[HANDLE_BYTES];
    char text[HANDLE_HEX_LEN + 1];
    pthread_mutex_lock(&mu);
    handle *h = by_value_locked(client, value);
    if (!h && getrandom(raw, sizeof raw, 0) == (ssize_t)sizeof raw) {
        cJSON *copy = cJSON_Duplicate(value, 1);
        if (copy) {
            h = slot_locked(client);
            h->client = client;
            h->seq = ++next_seq;
            h->value = copy;
            digest_hex(raw, sizeof raw, h->text);
        }
    }
    if (h)
        memcpy(text, h->text, sizeof text);
    pthread_mutex_unlock(&mu);
    return h ? strdup(text) : NULL;
}

char *handles_not_found(const char *member)
{
    return str_printf("%s not found: it names nothing this client holds (what it named has "
                      "ended and its end was reported, or it was never issued to this "
                      "client); start again with the call that gave it",
                      member);
}

const char *handles_named(const char *const *names, const cJSON *args)
{
    for (; names && *names; names++)
        if (cJSON_GetObjectItemCaseSensitive(args, *names))
            return *names;
    return "handle";
}

int handles_resolve(uint64_t client, const char *const *names, const cJSON *args, cJSON **out,
                    char **msg)
{
    *out = NULL;
    *msg = NULL;
    for (; names && *names; names++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(args, *names);
        if (!m)
            continue;
        const char *text = cJSON_GetStringValue(m);
        cJSON *value = NULL;
        pthread_mutex_lock(&mu);
        handle *h = text && strlen(text) == HANDLE_HEX_LEN ? by_text_locked(client, text) : NULL;
        if (h)
            value = cJSON_Duplicate(h->value, 1);
        pthread_mutex_unlock(&mu);
        if (!*out && value)
            *out = cJSON_Duplicate(args, 1);
        if (!value || !*out || !cJSON_ReplaceItemInObjectCaseSensitive(*out, *names, value)) {
            int nomem = h != NULL;
            cJSON_Delete(value);
            cJSON_Delete(*out);
            *out = NULL;
            *msg = nomem ? strdup("out of memory") : handles_not_found(*names);
            return nomem ? VT_ERR_NOMEM : VT_ERR_NOT_FOUND;
        }
    }
    return VT_OK;
}

int handles_issue(uint64_t client, const char *const *names, cJSON *result)
{
    int rc = VT_OK;
    for (; names && *names; names++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(result, *names);
        if (!m || cJSON_IsNull(m))
            continue;
        char *text = issue_one(client, m);
        cJSON *s = text ? cJSON_CreateString(text) : NULL;
        free(text);
        if (!s || !cJSON_ReplaceItemInObjectCaseSensitive(result, *names, s)) {
            cJSON_Delete(s);
            cJSON_DeleteItemFromObjectCaseSensitive(result, *names);
            rc = VT_ERR_NOMEM;
        }
    }
    return rc;
}

void handles_end(uint64_t client, const char *const *names, const cJSON *args, const cJSON *result)
{
    for (; names && *names; names++) {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, *names));
        if (!text || strlen(text) != HANDLE_HEX_LEN ||
            (result && cJSON_GetObjectItemCaseSensitive(result, *names)))
            continue;
        pthread_mutex_lock(&mu);
        handle *h = by_text_locked(client, text);
        if (h)
            forget_locked(h);
        pthread_mutex_unlock(&mu);
    }
}

void handles_reset(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < HANDLES_MAX; i++)
        if (table[i].value)
            forget_locked(&table[i]);
    pthread_mutex_unlock(&mu);
}
