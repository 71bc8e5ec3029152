/* The host's own data as the service "host.own_data": the directories
 * the host reads and writes its own files in, found the way the host
 * finds them (the XDG readers of util/paths.c, the trust list's file of
 * perm/perm_trust.c), and the files front ends add as they start. */
#include "host_data.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/services.h>
#include "host_data_shared.h"
#include "log.h"
#include "paths.h"
#include "perm_trust.h"
#include "services.h"
#include "text_escape.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char **added; /* the front ends' files and directories */
static unsigned char *added_dir;
static size_t nadded, cap_added, cap_added_dir;

static void add_item(cJSON *arr, const char *path, int is_dir)
{
    cJSON *o = path ? cJSON_CreateObject() : NULL;
    if (!o)
        return;
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "kind", is_dir ? "dir" : "file");
    cJSON_AddItemToArray(arr, o);
}

/* The user's vtcode directory: it holds the trust list (vtcode.toml),
 * which the host rewrites by renaming a new file over it, so the
 * directory is masked, not the file. */
static char *trust_dir(void)
{
    char *f = perm_trust_user_config();
    char *slash = f ? strrchr(f, '/') : NULL;
    if (slash && slash != f)
        *slash = '\0';
    return f;
}

static void add_shared(void *ud, const char *path) { add_item(ud, path, 0); }

static int svc_paths(cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return VT_ERR_NOMEM;
    static const char *const xdg[][2] = {{"XDG_CONFIG_HOME", ".config"},
                                         {"XDG_STATE_HOME", ".local/state"},
                                         {"XDG_CACHE_HOME", ".cache"}};
    for (size_t i = 0; i < sizeof xdg / sizeof *xdg; i++) {
        char *d = paths_xdg_vthost(xdg[i][0], xdg[i][1]);
        add_item(arr, d, 1);
        /* the files the configuration directory is known to hold, as
         * files too: one that is a link to elsewhere (a dotfiles
         * checkout) is masked where it leads */
        for (size_t f = 0; d && i == 0 && f < 2; f++) {
            char *file = paths_join(d, f ? "http.toml" : "http-token");
            add_item(arr, file, 0);
            free(file);
        }
        free(d);
    }
    char *t = trust_dir();
    add_item(arr, t, 1);
    free(t);
    t = perm_trust_user_config();
    add_item(arr, t, 0);
    free(t);
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nadded; i++)
        add_item(arr, added[i], added_dir[i]);
    pthread_mutex_unlock(&mu);
    host_data_shared_each(add_shared, arr);
    *out = arr;
    return VT_OK;
}

int host_data_cache_dir(char **out)
{
    *out = paths_xdg_vthost("XDG_CACHE_HOME", ".cache");
    if (!*out)
        return VT_ERR_NOT_FOUND;
    if (paths_mkdirs(*out, 0700) != VT_OK) {
        free(*out);
        *out = NULL;
        return VT_ERR_IO;
    }
    return VT_OK;
}

static const vt_host_data_v1 service = {
    .struct_size = sizeof(vt_host_data_v1),
    .paths = svc_paths,
    .cache_dir = host_data_cache_dir,
};

int host_data_publish(void) { return services_publish(VT_HOST_DATA_SERVICE, (void *)&service); }

/* `path` made absolute: resolved when it exists, else from the working
 * directory as written. */
static char *absolute(const char *path)
{
    char *real = realpath(path, NULL);
    if (real || path[0] == '/')
        return real ? real : strdup(path);
    char cwd[PATH_MAX];
    return getcwd(cwd, sizeof cwd) ? paths_join(cwd, path) : NULL;
}

int host_data_add(const char *path, unsigned flags)
{
    int is_dir = !!(flags & HOST_DATA_DIR);
    if (!path || !path[0])
        return VT_ERR_INVALID;
    char *abs = absolute(path);
    if (!abs)
        return VT_ERR_NOMEM;
    pthread_mutex_lock(&mu);
    int rc = VT_GROW(&added, &cap_added, nadded + 1) == 0 &&
                     VT_GROW(&added_dir, &cap_added_dir, nadded + 1) == 0
                 ? VT_OK
                 : VT_ERR_NOMEM;
    if (rc == VT_OK) {
        added[nadded] = abs;
        added_dir[nadded++] = (unsigned char)is_dir;
    } else {
        free(abs);
    }
    pthread_mutex_unlock(&mu);
    if (rc == VT_OK && !is_dir && (flags & HOST_DATA_SHARED) &&
        host_data_shared_add(abs) != VT_OK) {
        char *shown = text_escape(abs, 0);
        host_log(VT_LOG_WARNING, "host",
                 "cannot record %s in $XDG_STATE_HOME/vthost/front-files: other vthost "
                 "processes of this user do not hide it from their commands",
                 shown ? shown : "a file");
        free(shown);
    }
    return rc;
}
