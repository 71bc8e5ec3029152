/* Bearer tokens: see http_auth.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "http_auth.h"
#include "http_banner.h"
#include "http_introspect.h"
#include "http_jwt.h"
#include "paths.h"
#include "strutil.h"

#define TOKEN_BYTES 32
#define TOKEN_MAX 512

static char token[TOKEN_MAX + 1];
static int oauth;
static int jwt_keys;   /* OAuth: JWT access tokens checked with keys */
static int introspect; /* OAuth: tokens asked about at the authorization server */

static int make_token(const char *path, char **err)
{
    unsigned char raw[TOKEN_BYTES];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        *err = str_printf("cannot generate a token: %s", strerror(errno));
        return -1;
    }
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        char *dir = strndup(path, (size_t)(slash - path));
        paths_mkdirs(dir, 0700);
        free(dir);
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        token[2 * i] = hex[raw[i] >> 4];
        token[2 * i + 1] = hex[raw[i] & 15];
    }
    token[2 * sizeof raw] = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        *err = str_printf("cannot create the token file %s: %s", path, strerror(errno));
        return -1;
    }
    char line[TOKEN_MAX + 2];
    int n = snprintf(line, sizeof line, "%s\n", token);
    int ok = write(fd, line, (size_t)n) == n;
    ok = close(fd) == 0 && ok;
    if (!ok) {
        unlink(path);
        *err = str_printf("cannot write the token file %s", path);
        return -1;
    }
    return 0;
}

static int read_token(const char *path, char **err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = str_printf("cannot read the token file %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_mode & 077) {
        close(fd);
        *err = str_printf("the token file %s is readable by others (mode %03o): "
                          "chmod 600 %s",
                          path, (unsigned)(st.st_mode & 0777), path);
        return -1;
    }
    ssize_t n = read(fd, token, TOKEN_MAX);
    close(fd);
    if (n < 0)
        n = 0;
    token[n] = 0;
    token[strcspn(token, "\r\n")] = 0;
    if (strlen(token) < 16) {
        memset(token, 0, sizeof token);
        *err = str_printf("the token file %s holds no token of at least 16 characters on "
                          "its first line",
                          path);
        return -1;
    }
    return 0;
}

int http_auth_open(const http_config *c, int *created, char **err)
{
    *created = 0;
    *err = NULL;
    if (c->oauth) {
        oauth = 1;
        jwt_keys = c->oauth_jwks_file || c->oauth_jwks_url || c->oauth_key_file;
        introspect = c->oauth_introspection_url != NULL;
        if (jwt_keys && http_jwt_open(c, err) < 0)
            return -1;
        return introspect ? http_introspect_open(c, err) : 0;
    }
    if (access(c->token_file, F_OK) != 0 && errno == ENOENT) {
        if (make_token(c->token_file, err) < 0)
            return -1;
        *created = 1;
        return 0;
    }
    return read_token(c->token_file, err);
}

void http_auth_close(void)
{
    memset(token, 0, sizeof token);
    if (introspect)
        http_introspect_close();
    if (jwt_keys)
        http_jwt_close();
    oauth = jwt_keys = introspect = 0;
}

const char *http_auth_token(void) { return oauth ? NULL : token; }

/* Constant time in the secret's content (the length is no secret). */
static int same_secret(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* A JWT (three dot-separated parts) goes to the keys when there are
 * keys; any other token, or every token when there are none, to the
 * introspection endpoint when one is configured. */
static int oauth_check(const char *cred, char owner[HTTP_OWNER_MAX], const char **error,
                       const char **desc)
{
    const char *dot = strchr(cred, '.');
    int jwt_shaped = dot && strchr(dot + 1, '.');
    if (jwt_keys && (jwt_shaped || !introspect))
        return http_jwt_check(cred, owner, error, desc);
    return http_introspect_check(cred, owner, error, desc);
}

int http_auth_check(const char *authorization, char owner[HTTP_OWNER_MAX], const char **error,
                    const char **desc)
{
    owner[0] = 0;
    *error = NULL;
    *desc = http_banner_missing_header();
    if (!authorization || !*authorization)
        return 401;
    if (strncasecmp(authorization, "Bearer ", 7) != 0) {
        *error = "invalid_request";
        *desc = "the Authorization header must be 'Bearer TOKEN'";
        return 401;
    }
    const char *cred = authorization + 7;
    while (*cred == ' ')
        cred++;
    if (oauth)
        return oauth_check(cred, owner, error, desc);
    if (!*token || !same_secret(cred, token)) {
        *error = "invalid_token";
        *desc = "the bearer token is not this server's token";
        return 401;
    }
    snprintf(owner, HTTP_OWNER_MAX, "token");
    return 0;
}
