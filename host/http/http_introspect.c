/* Token introspection: see http_introspect.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "crypto_lib.h"
#include "http_claims.h"
#include "http_fetch.h"
#include "http_introspect.h"
#include "jose_reader.h"

#define CACHE_SLOTS 256
#define ANSWER_MAX_BYTES (64 * 1024)
#define TIMEOUT_S 10
#define LEEWAY_S 30 /* clock skew allowed on exp, as for a JWT */

typedef struct slot {
    unsigned char hash[32]; /* SHA-256 of the token */
    time_t until;           /* 0: free */
    char owner[HTTP_OWNER_MAX];
} slot;

static const http_config *conf;
static slot cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

int http_introspect_open(const http_config *c, char **err)
{
    if (crypto_lib_open(err) < 0)
        return -1;
    conf = c;
    return 0;
}

void http_introspect_close(void)
{
    pthread_mutex_lock(&cache_lock);
    memset(cache, 0, sizeof cache);
    pthread_mutex_unlock(&cache_lock);
    conf = NULL;
}

/* A kept answer for the token hashed to `h`: 1 and owner, else 0. */
static int cache_find(const unsigned char h[32], char owner[HTTP_OWNER_MAX])
{
    time_t now = time(NULL);
    int hit = 0;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < CACHE_SLOTS && !hit; i++) {
        if (cache[i].until > now && memcmp(cache[i].hash, h, 32) == 0) {
            memcpy(owner, cache[i].owner, HTTP_OWNER_MAX);
            hit = 1;
        }
    }
    pthread_mutex_unlock(&cache_lock);
    return hit;
}

/* Keep an accepted answer until `until`: in a free or lapsed slot, else in
 * the one that lapses first (the table never grows). */
static void cache_put(const unsigned char h[32], const char *owner, time_t until)
{
    time_t now = time(NULL);
    if (until <= now)
        return;
    pthread_mutex_lock(&cache_lock);
    int pick = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].until <= now) {
            pick = i;
            break;
        }
        if (cache[i].until < cache[pick].until)
            pick = i;
    }
    memcpy(cache[pick].hash, h, 32);
    snprintf(cache[pick].owner, HTTP_OWNER_MAX, "%s", owner);
    cache[pick].until = until;
    pthread_mutex_unlock(&cache_lock);
}

/* The token's type, when the answer gives one, must be an access token's:
 * a refresh token is no bearer credential. */
static int bearer_type(const cJSON *a)
{
    const char *names[] = {"token_type", "typ"}; /* RFC 7662; Keycloak */
    for (size_t i = 0; i < 2; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, names[i]);
        if (t && (!cJSON_IsString(t) || (strcasecmp(t->valuestring, "Bearer") != 0 &&
                                         strcasecmp(t->valuestring, "access_token") != 0)))
            return 0;
    }
    return 1;
}

/* The subject: "sub", else the "client_id" of a token a client holds for
 * itself. */
static const char *subject(const cJSON *a)
{
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(a, "sub");
    if (!sub)
        sub = cJSON_GetObjectItemCaseSensitive(a, "client_id");
    return cJSON_IsString(sub) && sub->valuestring[0] ? sub->valuestring : NULL;
}

/* An introspection answer: 0 with *until (how long it may be kept), 401
 * or 403, with *desc. */
static int judge(const cJSON *a, time_t *until, const char **error, const char **desc)
{
    time_t now = time(NULL);
    const cJSON *iss = cJSON_GetObjectItemCaseSensitive(a, "iss");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(a, "exp");
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "active")))
        *desc = "the authorization server says the access token is not active (expired, "
                "revoked, or not one of its tokens)";
    else if (!bearer_type(a))
        *desc = "the authorization server says this is not an access token (token_type)";
    else if (iss && (!cJSON_IsString(iss) || strcmp(iss->valuestring, conf->oauth_issuer) != 0))
        *desc = "the access token was issued by another authorization server (iss)";
    else if (!http_claims_audience_ok(conf, cJSON_GetObjectItemCaseSensitive(a, "aud")))
        *desc = "the access token was not issued for this server (aud)";
    else if (exp && (!cJSON_IsNumber(exp) || (double)now > exp->valuedouble + LEEWAY_S))
        *desc = "the access token has expired";
    else if (!subject(a))
        *desc = "the access token names no subject (sub or client_id)";
    else if (!http_claims_scopes_ok(conf, a)) {
        *error = "insufficient_scope";
        *desc = "the access token lacks a scope this server requires (scope)";
        return 403;
    } else {
        *until = now + conf->oauth_introspection_cache_s;
        if (exp && exp->valuedouble < (double)*until)
            *until = (time_t)exp->valuedouble;
        return 0;
    }
    return 401;
}

/* Ask the endpoint about `token`: the parsed answer, or NULL after
 * logging why (the caller answers 503). */
static cJSON *ask(const char *token)
{
    const char *form[] = {"token", token, "token_type_hint", "access_token", NULL, NULL};
    long status = 0;
    char *err = NULL;
    char *text = http_post_form(
        conf->oauth_introspection_url, form, conf->oauth_introspection_client_id,
        conf->oauth_introspection_secret, TIMEOUT_S, ANSWER_MAX_BYTES, &status, &err);
    const char *why = NULL;
    cJSON *a = text && status == 200 ? jose_json_parse(text, strlen(text), &why) : NULL;
    if (a && !cJSON_IsObject(a)) {
        cJSON_Delete(a);
        a = NULL;
        why = "is not a JSON object";
    }
    if (!a && err)
        fprintf(stderr, "vthost serve --http: token introspection failed: %s; refusing (503)\n",
                err);
    else if (!a && (status == 401 || status == 403))
        fprintf(stderr,
                "vthost serve --http: the introspection endpoint %s refused this server's "
                "credentials (HTTP %ld): check [oauth] introspection_client_id and "
                "introspection_client_secret in http.toml; refusing (503)\n",
                conf->oauth_introspection_url, status);
    else if (!a && status != 200)
        fprintf(stderr,
                "vthost serve --http: the introspection endpoint %s answered HTTP %ld; "
                "refusing (503)\n",
                conf->oauth_introspection_url, status);
    else if (!a)
        fprintf(stderr,
                "vthost serve --http: the answer of the introspection endpoint %s %s; "
                "refusing (503)\n",
                conf->oauth_introspection_url, why ? why : "cannot be read");
    free(err);
    if (text)
        memset(text, 0, strlen(text));
    free(text);
    return a;
}

int http_introspect_check(const char *token, char owner[HTTP_OWNER_MAX], const char **error,
                          const char **desc)
{
    unsigned char h[32];
    *error = "invalid_token";
    owner[0] = 0;
    if (!conf || crypto_sha256(token, strlen(token), h) < 0) {
        *error = NULL;
        *desc = "the server cannot check access tokens now (out of memory)";
        return 503;
    }
    if (cache_find(h, owner)) {
        *error = NULL;
        return 0;
    }
    cJSON *a = ask(token);
    if (!a) {
        *error = NULL;
        *desc = "the authorization server's introspection endpoint failed, so the access token "
                "cannot be checked; try again later";
        return 503;
    }
    time_t until = 0;
    int status = judge(a, &until, error, desc);
    if (status == 0 && http_claims_principal(conf->oauth_issuer, subject(a), owner) < 0) {
        *desc = "the server cannot hash the access token's subject (out of memory)";
        status = 401;
    }
    cJSON_Delete(a);
    if (status == 0) {
        *error = NULL;
        cache_put(h, owner, until);
        return 0;
    }
    owner[0] = 0;
    fprintf(stderr, "vthost serve --http: refused an access token (%d): %s\n", status, *desc);
    return status;
}
