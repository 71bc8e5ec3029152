/* Audit log writer. */
#include "beneath.h"
#include "log.h"
#include "paths.h"
#include "perm_audit.h"
#include "strutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* Said once per process: the log stays refused until someone replaces
 * it, and a line per decision would bury everything else. */
static atomic_int warned;

static void refuse(const char *what)
{
    if (atomic_exchange(&warned, 1))
        return;
    host_log(VT_LOG_WARNING, "permissions",
             "the audit log .vtcode/audit/permissions.jsonl is %s, so the record was not "
             "written (the log is never written through anything but a regular file of the "
             "workspace; this is said once): remove what is there and vthost makes the file",
             what);
}

/* Why an open beneath the workspace failed, as the warning says it. */
static const char *open_failure(int err)
{
    switch (err) {
    case ELOOP:
    case ENOTDIR:
    case EXDEV: return "a symbolic link, or has one or something not a directory on its way";
    case ENXIO: return "a FIFO, a socket or a device";
    default: return "not writable";
    }
}

/* The audit log, opened for appending: beneath the workspace with no
 * link followed on the way or at the end (a command may have planted
 * one), without blocking (a FIFO planted there held every decision until
 * something read it), and only a regular file with one name (nor a
 * second name of a file elsewhere).  A descriptor, or -1 after the
 * warning. */
static int audit_open(const char *workspace)
{
    if (paths_vtcode_refusal(workspace)) { /* said at start; never written through */
        refuse("beneath a .vtcode that is not a plain directory");
        return -1;
    }
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    int fd = -1, err = 0;
    if (beneath_mkdirs(root, ".vtcode/audit", 0755) == 0)
        fd = beneath_open(
            root, ".vtcode/audit/permissions.jsonl",
            O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    err = errno;
    close(root);
    if (fd < 0) {
        refuse(open_failure(err));
        return -1;
    }
    struct stat st;
    const char *why = fstat(fd, &st) != 0    ? "not examinable"
                      : S_ISFIFO(st.st_mode) ? "a FIFO"
                      : !S_ISREG(st.st_mode) ? "not a regular file"
                      : st.st_nlink != 1     ? "a second name (a hard link) of another file"
                                             : NULL;
    if (why) {
        close(fd);
        refuse(why);
        return -1;
    }
    return fd;
}

int perm_audit_append(const char *workspace, cJSON *record)
{
    char ts[STR_UTC_NOW_SIZE];
    str_utc_now(ts);
    cJSON_AddStringToObject(record, "time", ts);

    int fd = audit_open(workspace);
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
