/* toml_reader.h for the vthost executable: the reader lives in a module
 * (toml_module.c) opened the first time a TOML file is read, so a start
 * without any vtcode.toml never maps toml++ and the C++ runtime (about
 * 2.4 M instructions of relocation, most of a bare start).  Unit tests
 * and fuzzers link toml_reader.cpp directly instead. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "strutil.h"
#include "toml_module.h"
#include "toml_reader.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const vthost_toml_ops *ops;
static char *load_error;

static void bind_module(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        load_error = strdup("cannot load the TOML reader: /proc/self/exe is unreadable");
        return;
    }
    exe[n] = '\0';
    char *path =
        str_printf("%s/../%s/%s", dirname(exe), VTHOST_TOML_MODULE_DIR, VTHOST_TOML_MODULE_NAME);
    /* Never closed: trees it built may outlive any caller.  RTLD_LAZY
     * binds the C++ runtime's own calls as a start-up link would (the
     * module itself is linked -z now); RTLD_NOW would resolve all of
     * libstdc++'s ~2,000 PLT entries here, nearly doubling the cost. */
    void *h = path ? dlopen(path, RTLD_LAZY | RTLD_LOCAL) : NULL;
    const vthost_toml_ops *(*entry)(void) = NULL;
    if (h)
        *(void **)&entry = dlsym(h, VTHOST_TOML_OPS_SYMBOL);
    if (entry)
        ops = entry();
    if (!ops) {
        const char *e = dlerror();
        load_error = str_printf("cannot load the TOML reader %s: %s (reinstall vthost)",
                                path ? path : VTHOST_TOML_MODULE_NAME, e ? e : "no entry point");
    }
    free(path);
}

static int unavailable(char **err)
{
    if (err)
        *err = strdup(load_error ? load_error : "cannot load the TOML reader");
    return VT_ERR_UNSUPPORTED;
}

static int bound(void)
{
    pthread_once(&once, bind_module);
    return ops != NULL;
}

int toml_read_file(const char *path, cJSON **out, char **err)
{
    return bound() ? ops->read_file(path, out, err) : unavailable(err);
}

int toml_read_string(const char *text, const char *name, cJSON **out, char **err)
{
    return bound() ? ops->read_string(text, name, out, err) : unavailable(err);
}

int toml_key_line(const char *path, const char *dotted_key, int *line)
{
    return bound() ? ops->key_line(path, dotted_key, line) : VT_ERR_UNSUPPORTED;
}

int toml_array_item_line(const char *path, const char *dotted_key, int index, int *line)
{
    return bound() ? ops->array_item_line(path, dotted_key, index, line) : VT_ERR_UNSUPPORTED;
}

int toml_key_position(const char *path, const char *dotted_key, int *line, int *column)
{
    return bound() ? ops->key_position(path, dotted_key, line, column) : VT_ERR_UNSUPPORTED;
}
