/* One HTTPS GET: see http_fetch.h.  curl_lib below is the only place that
 * names libcurl's functions. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "http_fetch.h"
#include "opened_lib.h"
#include "strbuf.h"
#include "strutil.h"

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*init)(void);
    CURLcode (*setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*perform)(CURL *h);
    CURLcode (*getinfo)(CURL *h, CURLINFO info, ...);
    void (*cleanup)(CURL *h);
    const char *(*strerror)(CURLcode code);
    CURLU *(*url)(void);
    CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned flags);
    CURLUcode (*url_get)(CURLU *u, CURLUPart what, char **part, unsigned flags);
    void (*url_cleanup)(CURLU *u);
    void (*free)(void *p);
    char *(*escape)(CURL *h, const char *s, int n);
} cl;
static char *cl_error;
static pthread_once_t cl_once = PTHREAD_ONCE_INIT;

static void bind_curl(void)
{
    const opened_sym syms[] = {
        {"curl_global_init", (void **)&cl.global_init}, {"curl_easy_init", (void **)&cl.init},
        {"curl_easy_setopt", (void **)&cl.setopt},      {"curl_easy_perform", (void **)&cl.perform},
        {"curl_easy_getinfo", (void **)&cl.getinfo},    {"curl_easy_cleanup", (void **)&cl.cleanup},
        {"curl_easy_strerror", (void **)&cl.strerror},  {"curl_url", (void **)&cl.url},
        {"curl_url_set", (void **)&cl.url_set},         {"curl_url_get", (void **)&cl.url_get},
        {"curl_url_cleanup", (void **)&cl.url_cleanup}, {"curl_free", (void **)&cl.free},
        {"curl_easy_escape", (void **)&cl.escape},      {NULL, NULL},
    };
    if (opened_lib_bind(VTHOST_CURL_SONAME, syms, &cl_error) == 0 &&
        cl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        cl_error = strdup("libcurl failed to initialise");
}

typedef struct body {
    vt_strbuf text;
    size_t max;
    int too_big;
} body;

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    body *b = ud;
    size_t k = size * n;
    if (b->text.len + k > b->max) {
        b->too_big = 1;
        return 0; /* stops the transfer */
    }
    return strbuf_append(&b->text, p, k) == 0 ? k : 0;
}

/* libcurl bound, else *err says why (naming `url`). */
static int curl_ready(const char *url, char **err)
{
    *err = NULL;
    pthread_once(&cl_once, bind_curl);
    if (!cl_error && cl.init)
        return 0;
    *err = str_printf("fetching %s needs libcurl: %s (install libcurl4)", url,
                      cl_error ? cl_error : "cannot open it");
    return -1;
}

/* One request on `h` (its method and body set by the caller): the body
 * of any answer (malloc'd, "" when empty) and its status, or NULL with
 * *err when none came. */
static char *transfer(CURL *h, const char *url, int timeout_s, size_t max, long *status, char **err)
{
    body b = {VT_STRBUF_INIT, max, 0};
    cl.setopt(h, CURLOPT_URL, url);
    cl.setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
    cl.setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    cl.setopt(h, CURLOPT_NOSIGNAL, 1L);
    cl.setopt(h, CURLOPT_TIMEOUT, (long)timeout_s);
    cl.setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    cl.setopt(h, CURLOPT_WRITEDATA, &b);
    CURLcode rc = cl.perform(h);
    *status = 0;
    cl.getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (rc == CURLE_OK)
        return strbuf_take(&b.text);
    if (b.too_big)
        *err = str_printf("fetching %s: the answer is larger than %zu bytes", url, max);
    else
        *err = str_printf("fetching %s: %s", url, cl.strerror(rc));
    strbuf_reset(&b.text);
    return NULL;
}

char *http_fetch(const char *url, int timeout_s, size_t max, char **err)
{
    if (curl_ready(url, err) < 0)
        return NULL;
    CURL *h = cl.init();
    if (!h) {
        *err = str_printf("fetching %s: out of memory", url);
        return NULL;
    }
    long status = 0;
    char *text = transfer(h, url, timeout_s, max, &status, err);
    cl.cleanup(h);
    if (text && status != 200) {
        *err = str_printf("fetching %s: HTTP status %ld", url, status);
        free(text);
        return NULL;
    }
    return text;
}

/* `s` percent-encoded as a form value (malloc'd), or NULL. */
static char *escaped(CURL *h, const char *s)
{
    char *e = cl.escape(h, s, (int)strlen(s));
    char *copy = e ? strdup(e) : NULL;
    cl.free(e);
    return copy;
}

/* RFC 6749 2.3.1: the client id and secret are form-encoded, then joined
 * with ':' for HTTP Basic, so a ':' in the id cannot move the split. */
static int basic_auth(CURL *h, const char *user, const char *password)
{
    char *u = escaped(h, user), *p = escaped(h, password);
    int ok = u && p;
    if (ok) {
        cl.setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        cl.setopt(h, CURLOPT_USERNAME, u);
        cl.setopt(h, CURLOPT_PASSWORD, p);
    }
    if (p)
        memset(p, 0, strlen(p));
    free(u);
    free(p);
    return ok ? 0 : -1;
}

char *http_post_form(const char *url, const char *const *form, const char *user,
                     const char *password, int timeout_s, size_t max, long *status, char **err)
{
    *status = 0;
    if (curl_ready(url, err) < 0)
        return NULL;
    CURL *h = cl.init();
    vt_strbuf fields = VT_STRBUF_INIT;
    int ok = h != NULL && basic_auth(h, user, password) == 0;
    for (const char *const *f = form; ok && f[0] && f[1]; f += 2) {
        char *v = escaped(h, f[1]);
        ok = v != NULL;
        if (ok)
            strbuf_printf(&fields, "%s%s=%s", fields.len ? "&" : "", f[0], v);
        if (v)
            memset(v, 0, strlen(v));
        free(v);
    }
    char *text = NULL;
    ok = ok && !fields.failed;
    if (ok) {
        /* COPYPOSTFIELDS: libcurl keeps its own copy of the body */
        cl.setopt(h, CURLOPT_COPYPOSTFIELDS, fields.data ? fields.data : "");
        text = transfer(h, url, timeout_s, max, status, err);
    } else {
        *err = str_printf("posting to %s: out of memory", url);
    }
    if (fields.data)
        memset(fields.data, 0, fields.len);
    strbuf_reset(&fields);
    if (h)
        cl.cleanup(h);
    return text;
}

/* A part of `u` as a malloc'd string, or NULL. */
static char *url_part(CURLU *u, CURLUPart what)
{
    char *p = NULL;
    if (cl.url_get(u, what, &p, 0) != CURLUE_OK)
        return NULL;
    char *copy = p ? strdup(p) : NULL;
    cl.free(p);
    return copy;
}

int http_url_parts(const char *url, char **scheme, char **host, char **err)
{
    *scheme = *host = NULL;
    *err = NULL;
    pthread_once(&cl_once, bind_curl);
    if (cl_error || !cl.url) {
        *err = str_printf("reading the URL %s needs libcurl: %s (install libcurl4)", url,
                          cl_error ? cl_error : "cannot open it");
        return -1;
    }
    CURLU *u = cl.url();
    CURLUcode rc = u ? cl.url_set(u, CURLUPART_URL, url, 0) : CURLUE_OUT_OF_MEMORY;
    if (rc == CURLUE_OK) {
        *scheme = url_part(u, CURLUPART_SCHEME);
        *host = url_part(u, CURLUPART_HOST);
    }
    if (u)
        cl.url_cleanup(u);
    if (rc != CURLUE_OK || !*scheme || !*host) {
        free(*scheme);
        free(*host);
        *scheme = *host = NULL;
        *err = str_printf("%s is not a URL with a scheme and a host", url);
        return -1;
    }
    return 0;
}
