/* roots/list: one request per server life, sent after the client's
 * notifications/initialized (the earliest point the protocol allows),
 * answered on the reading thread and waited for by the first tool call.
 * Our request has a string id of its own, so replies are told apart from
 * the numbered elicitation and sampling requests without sharing their
 * bookkeeping. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "mcp_internal.h"
#include "mcp_roots.h"
#include "monotime.h"

#define ROOTS_ID "vthost-roots-list"

enum { IDLE, ASKED, ANSWERED };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int enabled, declared, closed, state = IDLE;
static cJSON *answer; /* the response message, under mu */

void mcp_roots_enable(int on)
{
    pthread_mutex_lock(&mu);
    enabled = on;
    declared = closed = 0;
    state = IDLE;
    cJSON_Delete(answer);
    answer = NULL;
    pthread_mutex_unlock(&mu);
}

void mcp_roots_initialize(const cJSON *capabilities)
{
    pthread_mutex_lock(&mu);
    declared = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(capabilities, "roots"));
    pthread_mutex_unlock(&mu);
}

int mcp_roots_expected(void)
{
    pthread_mutex_lock(&mu);
    int yes = enabled && declared;
    pthread_mutex_unlock(&mu);
    return yes;
}

void mcp_roots_initialized(struct mcp_server *s)
{
    pthread_mutex_lock(&mu);
    int ask = enabled && declared && !closed && state == IDLE;
    if (ask)
        state = ASKED;
    pthread_mutex_unlock(&mu);
    if (!ask)
        return;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "id", ROOTS_ID);
    cJSON_AddStringToObject(m, "method", "roots/list");
    if (mcp_send(s, m) != 0) {
        pthread_mutex_lock(&mu);
        state = ANSWERED; /* nothing will come: the waiter goes on at once */
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
}

int mcp_roots_reply(cJSON *msg, const cJSON *id)
{
    if (!cJSON_IsString(id) || strcmp(id->valuestring, ROOTS_ID) != 0)
        return 0;
    pthread_mutex_lock(&mu);
    if (state == ASKED) {
        answer = msg;
        msg = NULL;
        state = ANSWERED;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    cJSON_Delete(msg); /* a second answer is dropped */
    return 1;
}

int mcp_roots_open(void)
{
    pthread_mutex_lock(&mu);
    int open = enabled && !closed && state == IDLE;
    pthread_mutex_unlock(&mu);
    return open;
}

void mcp_roots_supply(const cJSON *list_result)
{
    cJSON *copy = cJSON_Duplicate(list_result, 1);
    cJSON *msg = cJSON_CreateObject();
    cJSON_AddItemToObject(msg, "result", copy);
    pthread_mutex_lock(&mu);
    if (enabled && !closed && state == IDLE) {
        answer = msg;
        msg = NULL;
        state = ANSWERED;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    cJSON_Delete(msg); /* another call's answer came first */
}

void mcp_roots_settled(void)
{
    pthread_mutex_lock(&mu);
    closed = 1;
    pthread_mutex_unlock(&mu);
}

int mcp_roots_wait(int timeout_ms, cJSON **roots)
{
    *roots = NULL;
    struct timespec until;
    mono_deadline_ms(&until, timeout_ms);
    pthread_mutex_lock(&mu);
    if (state == IDLE) {
        pthread_mutex_unlock(&mu);
        return 0;
    }
    while (state == ASKED)
        if (mono_cond_wait(&cv, &mu, &until) == ETIMEDOUT)
            break;
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(answer, "result");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(result, "roots");
    if (cJSON_IsArray(list))
        *roots = cJSON_Duplicate(list, 1);
    pthread_mutex_unlock(&mu);
    return 1;
}
