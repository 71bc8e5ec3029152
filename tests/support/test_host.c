/* An in-process host on a scratch workspace (see test_host.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host.h"
#include "test_host.h"

int test_host_open(char *ws, size_t size, const char *toml, const char *plugin_dir,
                   int env_profile)
{
    if (!mkdtemp(ws)) {
        perror("mkdtemp");
        return -1;
    }
    char *real = realpath(ws, NULL);
    if (!real || strlen(real) >= size) {
        free(real);
        return -1;
    }
    strcpy(ws, real);
    free(real);
    char path[4096];
    if (toml) {
        snprintf(path, sizeof path, "%s/vtcode.toml", ws);
        FILE *f = fopen(path, "w");
        if (!f || fputs(toml, f) < 0) {
            perror(path);
            if (f)
                fclose(f);
            return -1;
        }
        fclose(f);
    }
    const char *dirs[] = {plugin_dir};
    /* --config names the workspace's file: its allow rules apply (an
     * untrusted workspace's would be ignored) */
    host_options o = {.workspace = ws,
                      .config_path = toml ? path : NULL,
                      .profile = env_profile ? getenv("VTHOST_TEST_PROFILE") : NULL,
                      .plugin_dirs = plugin_dir ? dirs : NULL,
                      .plugin_dir_count = plugin_dir ? 1 : 0,
                      .exe_path = "/proc/self/exe",
                      .log_level = VT_LOG_ERROR};
    char *err = NULL;
    if (host_open(&o, &err) != 0) {
        fprintf(stderr, "host_open: %s\n", err ? err : "failed");
        free(err);
        return -1;
    }
    return 0;
}

int test_host_close(const char *ws)
{
    host_close();
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
    return system(cmd) == 0 ? 0 : -1;
}
