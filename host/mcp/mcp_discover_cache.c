/* server/discover's kept answers: see mcp_discover_cache.h.  A few slots,
 * one per client view in use (HTTP principals), filled round the ring.
 * A slot's text is immutable once published and read only under the
 * lock, which is held for a compare and a copy (never a write to a
 * socket); what a replacement frees is freed after the lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_discover_cache.h"

#define SLOTS 8

typedef struct slot {
    mcp_instructions_fn source;
    uint64_t stamp[MCP_STAMP_WORDS];
    char *text; /* NULL: empty */
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot slots[SLOTS];
static unsigned next_slot;

static int same(const slot *k, mcp_instructions_fn source, const uint64_t *stamp)
{
    return k->text && k->source == source && memcmp(k->stamp, stamp, sizeof k->stamp) == 0;
}

cJSON *mcp_discover_cached(mcp_instructions_fn source, const uint64_t stamp[MCP_STAMP_WORDS])
{
    cJSON *raw = NULL;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < SLOTS; i++)
        if (same(&slots[i], source, stamp)) {
            raw = cJSON_CreateRaw(slots[i].text);
            break;
        }
    pthread_mutex_unlock(&mu);
    return raw;
}

void mcp_discover_keep(mcp_instructions_fn source, const uint64_t stamp[MCP_STAMP_WORDS],
                       const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        return;
    pthread_mutex_lock(&mu);
    size_t at = SLOTS;
    for (size_t i = 0; i < SLOTS && at == SLOTS; i++)
        if (slots[i].text && slots[i].source == source && slots[i].stamp[1] == stamp[1])
            at = i; /* the same client's older answer */
    if (at == SLOTS)
        at = next_slot++ % SLOTS;
    char *old = slots[at].text;
    slots[at].source = source;
    memcpy(slots[at].stamp, stamp, sizeof slots[at].stamp);
    slots[at].text = copy;
    pthread_mutex_unlock(&mu);
    free(old);
}

void mcp_discover_forget(void)
{
    char *old[SLOTS];
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < SLOTS; i++) {
        old[i] = slots[i].text;
        slots[i].text = NULL;
    }
    pthread_mutex_unlock(&mu);
    for (size_t i = 0; i < SLOTS; i++)
        free(old[i]);
}
