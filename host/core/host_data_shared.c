/* The shared list of the front ends' files: read with care (a regular
 * file of this user, writable by no one else, bounded), rewritten whole
 * through a new file renamed into place so a reader never sees half of
 * it, and kept to the newest entries. */
#include "host_data_shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/own_file.h>
#include <vthost/plugin.h>
#include "paths.h"
#include "strutil.h"

#define MAX_ENTRIES 32
#define MAX_BYTES (64 * 1024)

static char *list_file(void)
{
    char *dir = paths_xdg_vthost("XDG_STATE_HOME", ".local/state");
    char *f = dir ? paths_join(dir, "front-files") : NULL;
    free(dir);
    return f;
}

/* The list's text (malloc'd), or NULL when absent or not to be trusted:
 * anyone else who could have written it could name files for us. */
static char *read_list(const char *file)
{
    char *text = NULL;
    vt_own_file_read(file, 022, 0, MAX_BYTES, &text, NULL);
    return text;
}

/* Each usable line of `text` (an absolute path without controls). */
static void each_line(char *text, void (*each)(void *ud, const char *path), void *ud)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int clean = line[0] == '/';
        for (const char *c = line; clean && *c; c++)
            clean = (unsigned char)*c >= 0x20 && *c != 0x7f;
        if (clean)
            each(ud, line);
    }
}

void host_data_shared_each(void (*each)(void *ud, const char *path), void *ud)
{
    char *file = list_file();
    char *text = file ? read_list(file) : NULL;
    if (text)
        each_line(text, each, ud);
    free(text);
    free(file);
}

typedef struct kept {
    const char *v[MAX_ENTRIES + 1];
    size_t n;
    const char *skip; /* the path being added: it goes last */
} kept;

static void keep(void *ud, const char *path)
{
    kept *k = ud;
    if (!strcmp(path, k->skip))
        return;
    if (k->n == MAX_ENTRIES - 1) { /* the oldest goes */
        memmove(k->v, k->v + 1, (k->n - 1) * sizeof *k->v);
        k->n--;
    }
    k->v[k->n++] = path;
}

static int write_list(const char *file, const kept *k)
{
    char *tmp = str_printf("%s.%d.tmp", file, (int)getpid());
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    int rc = fd >= 0 ? VT_OK : VT_ERR_IO;
    for (size_t i = 0; rc == VT_OK && i < k->n; i++) {
        size_t len = strlen(k->v[i]);
        if (write(fd, k->v[i], len) != (ssize_t)len || write(fd, "\n", 1) != 1)
            rc = VT_ERR_IO;
    }
    if (fd >= 0 && close(fd) != 0)
        rc = VT_ERR_IO;
    if (rc == VT_OK && rename(tmp, file) != 0)
        rc = VT_ERR_IO;
    if (rc != VT_OK && tmp)
        unlink(tmp);
    free(tmp);
    return rc;
}

int host_data_shared_add(const char *path)
{
    char *file = list_file();
    if (!file)
        return VT_ERR_NOT_FOUND;
    char *slash = strrchr(file, '/');
    *slash = '\0';
    int rc = paths_mkdirs(file, 0700);
    *slash = '/';
    char *text = rc == VT_OK ? read_list(file) : NULL;
    kept k = {.n = 0, .skip = path};
    if (text)
        each_line(text, keep, &k);
    k.v[k.n++] = path;
    if (rc == VT_OK)
        rc = write_list(file, &k);
    free(text);
    free(file);
    return rc;
}
