#include "execwatch_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096u

/* Read up to `len` bytes at `addr`, never across a page boundary (the next
 * page may be unmapped).  Returns the bytes read, or -1. */
static ssize_t read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    size_t room = PAGE - (size_t)(addr % PAGE);
    if (len > room)
        len = room;
    struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

char *ew_read_string(pid_t pid, uint64_t addr, size_t max)
{
    if (!addr)
        return NULL;
    char *s = malloc(max + 1);
    size_t n = 0;
    while (s && n < max) {
        ssize_t r = read_mem(pid, addr + n, s + n, max - n);
        if (r <= 0) {
            free(s);
            return NULL;
        }
        char *z = memchr(s + n, 0, (size_t)r);
        if (z)
            return s;
        n += (size_t)r;
    }
    if (s)
        s[max] = 0;
    return s;
}

void ew_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

char **ew_strv_dup(char *const *v, size_t from)
{
    size_t n = 0;
    while (v[n])
        n++;
    from = from < n ? from : n;
    char **d = calloc(n - from + 1, sizeof *d);
    for (size_t i = from; d && i < n; i++)
        if (!(d[i - from] = strdup(v[i]))) {
            ew_strv_free(d);
            return NULL;
        }
    return d;
}

char **ew_read_args(pid_t pid, uint64_t addr, int *cut, char **argv0)
{
    *cut = 0;
    *argv0 = NULL;
    char **v = calloc(EW_MAX_ARGS + 1, sizeof *v);
    if (!v || !addr)
        return v; /* a NULL argv: no arguments */
    size_t n = 0, total = 0;
    for (size_t i = 0;; i++) {
        uint64_t p = 0;
        if (read_mem(pid, addr + i * sizeof p, &p, sizeof p) != (ssize_t)sizeof p) {
            ew_strv_free(v);
            free(*argv0);
            *argv0 = NULL;
            return NULL;
        }
        if (!p)
            break;
        if (i == 0) {
            *argv0 = ew_read_string(pid, p, EW_MAX_ARG_BYTES);
            continue;
        }
        if (n == EW_MAX_ARGS || total >= EW_MAX_TOTAL) {
            *cut = 1;
            break;
        }
        char *s = ew_read_string(pid, p, EW_MAX_ARG_BYTES);
        if (!s) {
            ew_strv_free(v);
            free(*argv0);
            *argv0 = NULL;
            return NULL;
        }
        if (strlen(s) == EW_MAX_ARG_BYTES)
            *cut = 1;
        total += strlen(s) + 1;
        v[n++] = s;
    }
    return v;
}

char *ew_proc_link(pid_t pid, const char *what)
{
    char path[64], buf[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    return strdup(buf);
}

/* Read /proc/<pid>/<file> (its head: what fits in buf) as a string. */
static int read_proc(pid_t pid, const char *file, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return 0;
}

int ew_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start, int *threads)
{
    char buf[1024];
    if (read_proc(pid, "stat", buf, sizeof buf) != 0)
        return -1;
    /* the command name may hold anything, ")" included: the last one ends it */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    /* fields after the name: 3 state, 4 ppid, ... 20 num_threads, 22 starttime */
    int field = 2;
    long long pp = -1, nt = 1;
    unsigned long long st = 0;
    /* strtok_r: several sessions' watchers parse at once */
    char *save = NULL;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        field++;
        if (field == 4)
            pp = atoll(tok);
        else if (field == 20)
            nt = atoll(tok);
        else if (field == 22) {
            st = strtoull(tok, NULL, 10);
            break;
        }
    }
    if (field != 22 || pp < 0)
        return -1;
    *ppid = (pid_t)pp;
    *start = st;
    if (threads)
        *threads = (int)nt;
    return 0;
}

pid_t ew_proc_tgid(pid_t tid)
{
    char buf[512];
    if (read_proc(tid, "status", buf, sizeof buf) != 0)
        return -1;
    const char *t = strstr(buf, "\nTgid:");
    return t ? (pid_t)atoi(t + 6) : -1;
}

char *ew_path_join(const char *base, const char *p)
{
    size_t bl = p[0] == '/' ? 0 : strlen(base);
    char *in = malloc(bl + strlen(p) + 2);
    char *out = in ? malloc(bl + strlen(p) + 2) : NULL;
    if (!out) {
        free(in);
        return NULL;
    }
    sprintf(in, "%s/%s", bl ? base : "", p);
    size_t o = 0;
    for (char *c = in; *c;) {
        while (*c == '/')
            c++;
        size_t l = strcspn(c, "/");
        if (!l)
            break;
        if (l == 1 && c[0] == '.') {
        } else if (l == 2 && c[0] == '.' && c[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            out[o++] = '/';
            memcpy(out + o, c, l);
            o += l;
        }
        c += l;
    }
    if (!o)
        out[o++] = '/';
    out[o] = 0;
    free(in);
    return out;
}
