/* Audit log writer. */
#include "perm_audit.h"
#include "paths.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>

int perm_audit_append(const char *workspace, cJSON *record)
{
    char ts[40];
    struct timespec now;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000L);
    cJSON_AddStringToObject(record, "time", ts);

    char *dir = NULL, *file = NULL;
    if (asprintf(&dir, "%s/.vtcode/audit", workspace) < 0)
        return VT_ERR_NOMEM;
    int rc = paths_mkdirs(dir, 0755);
    if (rc == 0 && asprintf(&file, "%s/permissions.jsonl", dir) < 0)
        rc = VT_ERR_NOMEM;
    free(dir);
    if (rc < 0)
        return rc;
    char *text = cJSON_PrintUnformatted(record);
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    free(file);
    if (!text || fd < 0) {
        free(text);
        if (fd >= 0)
            close(fd);
        return text ? VT_ERR_IO : VT_ERR_NOMEM;
    }
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator: written as one record */
    ssize_t w = write(fd, text, len + 1);
    close(fd);
    free(text);
    return w == (ssize_t)(len + 1) ? 0 : VT_ERR_IO;
}
