/* One HTTPS GET: see http_fetch.h.  curl_lib below is the only place that
 * names libcurl's functions. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "http_fetch.h"
#include "opened_lib.h"
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
} cl;
static char *cl_error;
static pthread_once_t cl_once = PTHREAD_ONCE_INIT;

static void bind_curl(void)
{
    const opened_sym syms[] = {
        {"curl_global_init", (void **)&cl.global_init},
        {"curl_easy_init", (void **)&cl.init},
        {"curl_easy_setopt", (void **)&cl.setopt},
        {"curl_easy_perform", (void **)&cl.perform},
        {"curl_easy_getinfo", (void **)&cl.getinfo},
        {"curl_easy_cleanup", (void **)&cl.cleanup},
        {"curl_easy_strerror", (void **)&cl.strerror},
        {"curl_url", (void **)&cl.url},
        {"curl_url_set", (void **)&cl.url_set},
        {"curl_url_get", (void **)&cl.url_get},
        {"curl_url_cleanup", (void **)&cl.url_cleanup},
        {"curl_free", (void **)&cl.free},
        {NULL, NULL},
    };
    if (opened_lib_bind(VTHOST_CURL_SONAME, syms, &cl_error) == 0 &&
        cl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        cl_error = strdup("libcurl failed to initialise");
}

typedef struct body {
    char *data;
    size_t len, max;
    int too_big;
} body;

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    body *b = ud;
    size_t k = size * n;
    if (b->len + k > b->max) {
        b->too_big = 1;
        return 0; /* stops the transfer */
    }
    char *d = realloc(b->data, b->len + k + 1);
    if (!d)
        return 0;
    memcpy(d + b->len, p, k);
    b->data = d;
    b->len += k;
    d[b->len] = 0;
    return k;
}

char *http_fetch(const char *url, int timeout_s, size_t max, char **err)
{
    *err = NULL;
    pthread_once(&cl_once, bind_curl);
    if (cl_error || !cl.init) {
        *err = str_printf("fetching %s needs libcurl: %s (install libcurl4)", url,
                          cl_error ? cl_error : "cannot open it");
        return NULL;
    }
    CURL *h = cl.init();
    if (!h) {
        *err = str_printf("fetching %s: out of memory", url);
        return NULL;
    }
    body b = {NULL, 0, max, 0};
    cl.setopt(h, CURLOPT_URL, url);
    cl.setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
    cl.setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    cl.setopt(h, CURLOPT_NOSIGNAL, 1L);
    cl.setopt(h, CURLOPT_TIMEOUT, (long)timeout_s);
    cl.setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    cl.setopt(h, CURLOPT_WRITEDATA, &b);
    CURLcode rc = cl.perform(h);
    long status = 0;
    cl.getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    cl.cleanup(h);
    if (rc == CURLE_OK && status == 200 && b.data)
        return b.data;
    if (b.too_big)
        *err = str_printf("fetching %s: the answer is larger than %zu bytes", url, max);
    else if (rc != CURLE_OK)
        *err = str_printf("fetching %s: %s", url, cl.strerror(rc));
    else
        *err = str_printf("fetching %s: HTTP status %ld", url, status);
    free(b.data);
    return NULL;
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
