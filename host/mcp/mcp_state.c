/* requestState: base64url(payload) "." base64url(HMAC-SHA256(key, payload)),
 * the payload a JSON object:
 *   v  format (1)            p  principal          t  tool
 *   h  call hash             x  deadline (ms, monotonic clock)
 *   n  nonce (128 random bits, hex)
 *   s  the issuing process (64 random bits, hex, drawn with the key)
 *   q  keys of the input requests asked      a  answers so far
 * The key and the clock are this process's: a state outlives neither.
 * That is a choice, not a shortcut: a key kept on disk would make every
 * `serve` process of the data directory (each stdio client starts one)
 * accept the others' states, the set of used states would have to be
 * shared between them, written before each call ran and locked across
 * processes, and the deadline would move to a wall clock that can be
 * set back.  A state from before a restart is refused instead, with a
 * message saying so (read from its unsigned "s": forging it changes
 * nothing but the wording of the refusal), and the client asks anew:
 * the cost is one more question to the person, as after an expiry. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <vthost/grow.h>
#include "digest.h"
#include "mcp_state.h"
#include "monotime.h"

#define KEY_LEN 32
#define NONCE_LEN 16
/* Accepted states remembered at once (each until its deadline).  A
 * client that keeps more approvals outstanding gets its retries refused
 * until older ones expire; nothing is forgotten early. */
#define USED_MAX 65536

static unsigned char key[KEY_LEN];
static char instance[17]; /* "s" of this process's states */
static int key_ok;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

typedef struct used {
    char nonce[2 * NONCE_LEN + 1];
    int64_t deadline_ms;
} used;
static pthread_mutex_t used_mu = PTHREAD_MUTEX_INITIALIZER;
static used *used_set;
static size_t used_n, used_cap;

static void make_key(void)
{
    unsigned char raw[8];
    key_ok = getrandom(key, sizeof key, 0) == (ssize_t)sizeof key &&
             getrandom(raw, sizeof raw, 0) == (ssize_t)sizeof raw;
    digest_hex(raw, sizeof raw, instance);
}

static int64_t now_ms(void) { return mono_now_us() / 1000; }

int mcp_state_call_hash(const char *tool, const char *agent, const cJSON *args,
                        char out[MCP_STATE_HASH_LEN])
{
    char *a = args ? cJSON_PrintUnformatted(args) : strdup("{}");
    size_t lt = strlen(tool), lg = agent ? strlen(agent) : 0, la = a ? strlen(a) : 0;
    char *buf = a ? malloc(lt + lg + la + 2) : NULL;
    unsigned char md[DIGEST_SHA256_LEN];
    int rc = -1;
    if (buf) {
        /* NUL separators: no tool/agent/arguments split reads as another */
        memcpy(buf, tool, lt + 1);
        if (lg)
            memcpy(buf + lt + 1, agent, lg);
        buf[lt + 1 + lg] = '\0';
        memcpy(buf + lt + lg + 2, a, la);
        rc = digest_sha256(buf, lt + lg + la + 2, md, NULL);
    }
    if (rc == 0)
        digest_hex(md, sizeof md, out);
    free(buf);
    free(a);
    return rc == 0 ? 0 : -1;
}

static char *mac_of(const char *payload, size_t len)
{
    unsigned char md[DIGEST_SHA256_LEN];
    pthread_once(&key_once, make_key);
    if (!key_ok || digest_hmac_sha256(key, sizeof key, payload, len, md, NULL) != 0)
        return NULL;
    return digest_b64url_encode(md, sizeof md);
}

char *mcp_state_issue(const char *principal, const char *tool, const char *hash, const cJSON *asked,
                      const cJSON *answers, int ttl_ms)
{
    unsigned char raw[NONCE_LEN];
    char nonce[2 * NONCE_LEN + 1];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return NULL;
    digest_hex(raw, sizeof raw, nonce);
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "v", 1);
    cJSON_AddStringToObject(o, "p", principal);
    cJSON_AddStringToObject(o, "t", tool);
    cJSON_AddStringToObject(o, "h", hash);
    cJSON_AddNumberToObject(o, "x", (double)(now_ms() + ttl_ms));
    cJSON_AddStringToObject(o, "n", nonce);
    cJSON_AddStringToObject(o, "s", instance);
    cJSON_AddItemToObject(o, "q", cJSON_Duplicate(asked, 1));
    cJSON_AddItemToObject(o, "a", cJSON_Duplicate(answers, 1));
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    char *body = json ? digest_b64url_encode(json, strlen(json)) : NULL;
    free(json);
    char *mac = body ? mac_of(body, strlen(body)) : NULL;
    char *out = mac ? malloc(strlen(body) + strlen(mac) + 2) : NULL;
    if (out) {
        strcpy(out, body);
        strcat(out, ".");
        strcat(out, mac);
    }
    free(body);
    free(mac);
    return out;
}

/* Remember `nonce` until its deadline; -1 when it was seen already or
 * the set is full. */
static int use_nonce(const char *nonce, int64_t deadline_ms, const char **why)
{
    int64_t now = now_ms();
    int rc = 0;
    pthread_mutex_lock(&used_mu);
    size_t keep = 0;
    for (size_t i = 0; i < used_n; i++) /* forget what has expired anyway */
        if (used_set[i].deadline_ms > now)
            used_set[keep++] = used_set[i];
    used_n = keep;
    for (size_t i = 0; i < used_n && rc == 0; i++)
        if (strcmp(used_set[i].nonce, nonce) == 0)
            rc = -1, *why = "Invalid params: this requestState was used already; a retry runs "
                            "once: call the tool again without requestState to be asked anew";
    if (rc == 0 && (used_n >= USED_MAX || VT_GROW(&used_set, &used_cap, used_n + 1) != 0))
        rc = -1, *why = "Server busy: too many approvals are outstanding; retry later";
    if (rc == 0) {
        strcpy(used_set[used_n].nonce, nonce);
        used_set[used_n++].deadline_ms = deadline_ms;
    }
    pthread_mutex_unlock(&used_mu);
    return rc;
}

static const char *str(const cJSON *o, const char *k)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Why a state whose signature does not hold is refused: one from
 * another process (this server before a restart) says so. */
static const char *unverified_why(const char *text)
{
    const char *dot = text ? strchr(text, '.') : NULL;
    size_t n = 0;
    unsigned char *json = dot ? digest_b64url_decode(text, (size_t)(dot - text), 0, &n) : NULL;
    cJSON *o = json ? cJSON_ParseWithLength((const char *)json, n) : NULL;
    free(json);
    const char *from = str(o, "s");
    int other = from && strcmp(from, instance) != 0;
    cJSON_Delete(o);
    if (other)
        return "Invalid params: requestState was issued by another server process (this server "
               "restarted since, or the request reached another instance): a state is good "
               "only in the process that issued it. Call the tool again without requestState "
               "to be asked anew";
    return "Invalid params: requestState was not issued by this server, or was altered; "
           "send it back exactly as received, to the same server process, or call the tool "
           "again without requestState to be asked anew";
}

/* The payload of a state whose signature holds, or NULL. */
static cJSON *verified(const char *text)
{
    const char *dot = text ? strchr(text, '.') : NULL;
    if (!dot)
        return NULL;
    size_t body_len = (size_t)(dot - text);
    char *mac = mac_of(text, body_len);
    int good = mac && strlen(mac) == strlen(dot + 1) && digest_equal(mac, dot + 1, strlen(mac));
    free(mac);
    size_t n = 0;
    unsigned char *json = good ? digest_b64url_decode(text, body_len, 0, &n) : NULL;
    cJSON *o = json ? cJSON_ParseWithLength((const char *)json, n) : NULL;
    free(json);
    return o;
}

int mcp_state_accept(const char *text, const char *principal, const char *tool, const char *hash,
                     cJSON **asked, cJSON **answers, const char **why)
{
    *asked = *answers = NULL;
    cJSON *o = verified(text);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "x");
    const char *nonce = str(o, "n");
    int rc = -1;
    if (!o)
        *why = unverified_why(text);
    else if (!cJSON_IsNumber(x) || !nonce || strlen(nonce) != 2 * NONCE_LEN ||
             cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "v")) != 1)
        *why = "Invalid params: requestState is malformed";
    else if (!str(o, "p") || strcmp(str(o, "p"), principal) != 0)
        *why = "Invalid params: requestState was issued to another client";
    else if (!str(o, "t") || !str(o, "h") || strcmp(str(o, "t"), tool) != 0 ||
             strcmp(str(o, "h"), hash) != 0)
        *why = "Invalid params: requestState belongs to another call; retry with the same "
               "tool name and arguments it was issued for";
    else if ((int64_t)x->valuedouble <= now_ms())
        *why = "Invalid params: requestState has expired; call the tool again without "
               "requestState to be asked anew";
    else if (use_nonce(nonce, (int64_t)x->valuedouble, why) == 0)
        rc = 0;
    if (rc == 0) {
        *asked = cJSON_DetachItemFromObjectCaseSensitive(o, "q");
        *answers = cJSON_DetachItemFromObjectCaseSensitive(o, "a");
        if (!cJSON_IsArray(*asked) || !cJSON_IsObject(*answers)) {
            cJSON_Delete(*asked);
            cJSON_Delete(*answers);
            *asked = *answers = NULL;
            *why = "Invalid params: requestState is malformed";
            rc = -1;
        }
    }
    cJSON_Delete(o);
    return rc;
}
