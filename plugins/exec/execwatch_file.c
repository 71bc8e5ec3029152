#include "execwatch_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_HOPS 40

/* Drop the last component of the path held in d[0..*dl). */
static void pop(char *d, size_t *dl)
{
    while (*dl > 0 && d[*dl - 1] != '/')
        (*dl)--;
    if (*dl > 0)
        (*dl)--;
    d[*dl] = 0;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* The resolution walks `rest` component by component.  `done` is the
 * resolved prefix in the process's view; while `hp` is set it names the
 * host's /proc/PID of the trapped process instead (what /proc/self means
 * to that process), reached without the /proc/PID/root prefix. */
int ew_root_open(pid_t pid)
{
    char root[64];
    snprintf(root, sizeof root, "/proc/%d/root", (int)pid);
    int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int ew_resolve(pid_t pid, int root, const char *abs, char **out)
{
    *out = NULL;
    char self[64];
    snprintf(self, sizeof self, "/proc/%d", (int)pid);
    size_t selfl = strlen(self);
    char *done = malloc(PATH_MAX + 64), *rest = malloc(2 * PATH_MAX + 2);
    char *link = malloc(PATH_MAX);
    int rc = 0, hops = 0, hp = 0;
    size_t dl = 0;
    if (!done || !rest || !link) {
        rc = -ENOMEM;
        goto out;
    }
    done[0] = 0;
    if (strlen(abs) >= PATH_MAX) {
        rc = -ENAMETOOLONG;
        goto out;
    }
    strcpy(rest, abs);
    char *p = rest;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t cl = strcspn(p, "/");
        if (cl == 1 && p[0] == '.') {
            p += cl;
            continue;
        }
        if (cl == 2 && p[0] == '.' && p[1] == '.') {
            pop(done, &dl);
            if (hp && dl < selfl) {
                hp = 0; /* back in the process's own /proc */
                dl = 5;
                strcpy(done, "/proc");
            }
            p += cl;
            continue;
        }
        if (dl + 1 + cl >= PATH_MAX) {
            rc = -ENAMETOOLONG;
            goto out;
        }
        size_t before = dl;
        done[dl++] = '/';
        memcpy(done + dl, p, cl);
        dl += cl;
        done[dl] = 0;
        p += cl;
        if (!hp && !strncmp(done, "/proc/", 6) && strchr(done + 6, '/') == NULL) {
            const char *what = done + 6;
            if (!strcmp(what, "self") || !strcmp(what, "thread-self")) {
                strcpy(done, self);
                dl = selfl;
                hp = 1;
                continue;
            }
            if (all_digits(what)) {
                rc = -EBADF; /* another process's entry: its pid means
                              * something else inside the sandbox */
                goto out;
            }
        }
        /* relative to the process's root, or the host's /proc/PID */
        int at = hp ? AT_FDCWD : root;
        const char *full = hp ? done : done + 1;
        struct stat st;
        if (fstatat(at, full, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = -errno;
            goto out;
        }
        if (S_ISLNK(st.st_mode)) {
            if (++hops > MAX_HOPS) {
                rc = -ELOOP;
                goto out;
            }
            ssize_t n = readlinkat(at, full, link, PATH_MAX - 1);
            if (n <= 0) {
                rc = n < 0 ? -errno : -ENOENT;
                goto out;
            }
            link[n] = 0;
            /* A /proc link to something without a path: a memfd, a pipe,
             * a socket, or a file deleted since it was opened. */
            if (hp && (link[0] != '/' || (n > 10 && !strcmp(link + n - 10, " (deleted)")))) {
                rc = -EBADF;
                goto out;
            }
            size_t rl = strlen(p);
            if ((size_t)n + 1 + rl >= 2 * PATH_MAX) {
                rc = -ENAMETOOLONG;
                goto out;
            }
            memmove(rest + n + 1, p, rl + 1);
            memcpy(rest, link, (size_t)n);
            rest[n] = '/'; /* the remainder starts with '/' or is empty */
            p = rest;
            if (link[0] == '/') {
                dl = 0;
                done[0] = 0;
                hp = 0;
            } else {
                dl = before;
                done[dl] = 0;
            }
        } else if (p[strspn(p, "/")] && !S_ISDIR(st.st_mode)) {
            rc = -ENOTDIR;
            goto out;
        }
    }
    if (hp) {
        rc = -EBADF; /* /proc/self itself or a directory in it */
        goto out;
    }
    *out = strdup(dl ? done : "/");
    if (!*out)
        rc = -ENOMEM;
out:
    free(done);
    free(rest);
    free(link);
    return rc;
}

static char *dup_span(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* The kernel's reading of a "#!" line (binfmt_script): the interpreter
 * up to the first blank, then the rest of the line, trimmed, as one
 * argument. */
static int shebang(const char *buf, size_t n, char **interp, char **arg)
{
    size_t end = 2;
    while (end < n && buf[end] != '\n')
        end++;
    size_t i = 2;
    while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    size_t s = i;
    while (i < end && buf[i] != ' ' && buf[i] != '\t' && buf[i] != 0)
        i++;
    if (i == s)
        return 0;
    *interp = dup_span(buf + s, i - s);
    while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    size_t e = end;
    while (e > i && (buf[e - 1] == ' ' || buf[e - 1] == '\t' || buf[e - 1] == '\r'))
        e--;
    if (e > i && memchr(buf + i, 0, e - i) == NULL)
        *arg = dup_span(buf + i, e - i);
    return *interp ? 0 : -ENOMEM;
}

static int elf_interp(int fd, const unsigned char *buf, size_t n, char **interp)
{
    int is64 = buf[EI_CLASS] == ELFCLASS64;
    if (!is64 && buf[EI_CLASS] != ELFCLASS32)
        return 0;
    uint64_t phoff;
    unsigned phnum, phent;
    if (is64) {
        if (n < sizeof(Elf64_Ehdr))
            return 0;
        const Elf64_Ehdr *h = (const void *)buf;
        phoff = h->e_phoff, phnum = h->e_phnum, phent = h->e_phentsize;
    } else {
        if (n < sizeof(Elf32_Ehdr))
            return 0;
        const Elf32_Ehdr *h = (const void *)buf;
        phoff = h->e_phoff, phnum = h->e_phnum, phent = h->e_phentsize;
    }
    if (phent < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum > 256)
        return 0;
    for (unsigned k = 0; k < phnum; k++) {
        unsigned char ph[sizeof(Elf64_Phdr)];
        size_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
        uint64_t at = phoff + (uint64_t)k * phent;
        if (at + want <= n) /* usually: the headers follow the ELF header */
            memcpy(ph, buf + at, want);
        else if (pread(fd, ph, want, (off_t)at) != (ssize_t)want)
            return 0;
        uint32_t type;
        uint64_t off, sz;
        if (is64) {
            const Elf64_Phdr *p = (const void *)ph;
            type = p->p_type, off = p->p_offset, sz = p->p_filesz;
        } else {
            const Elf32_Phdr *p = (const void *)ph;
            type = p->p_type, off = p->p_offset, sz = p->p_filesz;
        }
        if (type != PT_INTERP)
            continue;
        if (sz < 2 || sz > PATH_MAX)
            return 0; /* the kernel refuses such a file */
        char *s = malloc(sz + 1);
        if (!s)
            return -ENOMEM;
        if (off + sz <= n)
            memcpy(s, buf + off, sz);
        else if (pread(fd, s, sz, (off_t)off) != (ssize_t)sz) {
            free(s);
            return 0;
        }
        s[sz] = 0;
        if (s[sz - 1] != 0) {
            free(s); /* not NUL-terminated: the kernel refuses the file */
            return 0;
        }
        *interp = s;
        return 0;
    }
    return 0;
}

int ew_interpreter(int root, const char *path, char **interp, char **arg)
{
    *interp = *arg = NULL;
    while (*path == '/')
        path++;
    /* O_NONBLOCK: a FIFO put in the program's place must not block the watcher */
    int fd =
        openat(root, *path ? path : ".", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    unsigned char buf[1024];
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, buf, sizeof buf, 0) : 0;
    int rc = 0;
    if (n >= 2 && buf[0] == '#' && buf[1] == '!')
        rc = shebang((const char *)buf, n > 256 ? 256 : (size_t)n, interp,
                     arg); /* BINPRM_BUF_SIZE */
    else if (n >= 5 && !memcmp(buf, ELFMAG, SELFMAG))
        rc = elf_interp(fd, buf, (size_t)n, interp);
    close(fd);
    return rc;
}

int ew_is_loader(const char *name)
{
    return (!strncmp(name, "ld-", 3) && strstr(name, ".so")) || !strncmp(name, "ld.so", 5) ||
           !strncmp(name, "ld64.so", 7);
}

int ew_loader_program(char *const *args)
{
    static const char *const flag[] = {"--list",          "--verify",           "--inhibit-cache",
                                       "--list-tunables", "--list-diagnostics", NULL};
    static const char *const with_value[] = {
        "--library-path",        "--inhibit-rpath",     "--audit", "--preload", "--argv0",
        "--glibc-hwcaps-prefix", "--glibc-hwcaps-mask", NULL};
    int i = 0;
    while (args[i]) {
        int skip = 0;
        for (const char *const *f = flag; *f && !skip; f++)
            skip = !strcmp(args[i], *f);
        for (const char *const *f = with_value; *f && !skip; f++)
            skip = !strcmp(args[i], *f) ? 2 : 0;
        if (!skip)
            return i;
        if (skip == 2 && !args[i + 1])
            return -1;
        i += skip;
    }
    return -1;
}
