/* Audit log writer. */
#include "beneath.h"
#include "paths.h"
#include "perm_audit.h"
#include "strutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>

int perm_audit_append(const char *workspace, cJSON *record)
{
    char ts[STR_UTC_NOW_SIZE];
    str_utc_now(ts);
    cJSON_AddStringToObject(record, "time", ts);

    /* .vtcode/ is the workspace's: a command may have planted a link
     * anywhere on the way, so nothing is followed (beneath.h) */
    if (paths_vtcode_refusal(workspace)) /* never written through */
        return VT_ERR_IO;
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return VT_ERR_IO;
    int fd = -1;
    if (beneath_mkdirs(root, ".vtcode/audit", 0755) == 0)
        fd = beneath_open(root, ".vtcode/audit/permissions.jsonl",
                          O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    close(root);
    struct stat st; /* nor a second name of a file elsewhere */
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
        close(fd);
        fd = -1;
    }
    char *text = fd >= 0 ? cJSON_PrintUnformatted(record) : NULL;
    if (!text || fd < 0) {
        if (fd >= 0)
            close(fd);
        return fd >= 0 ? VT_ERR_NOMEM : VT_ERR_IO;
    }
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator: written as one record */
    ssize_t w = write(fd, text, len + 1);
    close(fd);
    free(text);
    return w == (ssize_t)(len + 1) ? 0 : VT_ERR_IO;
}
