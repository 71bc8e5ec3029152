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

/* A resolution in progress (see above): `p` is the next component in
 * `rest`. */
typedef struct walk {
    int root;
    const char *self; /* the host's /proc/PID */
    size_t selfl;
    char *done, *rest, *p, *link;
    size_t dl;
    int hops, hp;
} walk;

/* /proc/self and /proc/thread-self become the host's /proc/PID; another
 * process's entry is refused: its pid means something else inside the
 * sandbox.  1 when entered, 0 for any other entry, or -EBADF. */
static int enter_proc_entry(walk *w)
{
    const char *what = w->done + 6;
    if (!strcmp(what, "self") || !strcmp(what, "thread-self")) {
        strcpy(w->done, w->self);
        w->dl = w->selfl;
        w->hp = 1;
        return 1;
    }
    return all_digits(what) ? -EBADF : 0;
}

/* A symlink at the component just taken: its target replaces it at the
 * head of `rest`, and `done` restarts at / or its parent (`before`). */
static int follow_link(walk *w, int at, const char *full, size_t before)
{
    if (++w->hops > MAX_HOPS)
        return -ELOOP;
    ssize_t n = readlinkat(at, full, w->link, PATH_MAX - 1);
    if (n <= 0)
        return n < 0 ? -errno : -ENOENT;
    w->link[n] = 0;
    /* A /proc link to something without a path: a memfd, a pipe,
     * a socket, or a file deleted since it was opened. */
    if (w->hp && (w->link[0] != '/' || (n > 10 && !strcmp(w->link + n - 10, " (deleted)"))))
        return -EBADF;
    size_t rl = strlen(w->p);
    if ((size_t)n + 1 + rl >= 2 * PATH_MAX)
        return -ENAMETOOLONG;
    memmove(w->rest + n + 1, w->p, rl + 1);
    memcpy(w->rest, w->link, (size_t)n);
    w->rest[n] = '/'; /* the remainder starts with '/' or is empty */
    w->p = w->rest;
    if (w->link[0] == '/') {
        w->dl = 0;
        w->done[0] = 0;
        w->hp = 0;
    } else {
        w->dl = before;
        w->done[w->dl] = 0;
    }
    return 0;
}

/* The component just appended to `done`, as the process sees it: a
 * symlink is followed; a non-directory with more path after it fails. */
static int check_component(walk *w, size_t before)
{
    /* relative to the process's root, or the host's /proc/PID */
    int at = w->hp ? AT_FDCWD : w->root;
    const char *full = w->hp ? w->done : w->done + 1;
    struct stat st;
    if (fstatat(at, full, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (S_ISLNK(st.st_mode))
        return follow_link(w, at, full, before);
    if (w->p[strspn(w->p, "/")] && !S_ISDIR(st.st_mode))
        return -ENOTDIR;
    return 0;
}

/* Takes the next component: "." is skipped, ".." pops, a name is
 * appended and checked.  0 or a negative errno. */
static int walk_component(walk *w)
{
    const char *p = w->p;
    size_t cl = strcspn(p, "/");
    if (cl == 1 && p[0] == '.') {
        w->p += cl;
        return 0;
    }
    if (cl == 2 && p[0] == '.' && p[1] == '.') {
        pop(w->done, &w->dl);
        if (w->hp && w->dl < w->selfl) {
            w->hp = 0; /* back in the process's own /proc */
            w->dl = 5;
            strcpy(w->done, "/proc");
        }
        w->p += cl;
        return 0;
    }
    if (w->dl + 1 + cl >= PATH_MAX)
        return -ENAMETOOLONG;
    size_t before = w->dl;
    w->done[w->dl++] = '/';
    memcpy(w->done + w->dl, p, cl);
    w->dl += cl;
    w->done[w->dl] = 0;
    w->p += cl;
    if (!w->hp && !strncmp(w->done, "/proc/", 6) && strchr(w->done + 6, '/') == NULL) {
        int r = enter_proc_entry(w);
        if (r != 0)
            return r > 0 ? 0 : r;
    }
    return check_component(w, before);
}

int ew_resolve(pid_t pid, int root, const char *abs, char **out)
{
    *out = NULL;
    char self[64];
    snprintf(self, sizeof self, "/proc/%d", (int)pid);
    walk w = {.root = root, .self = self, .selfl = strlen(self)};
    w.done = malloc(PATH_MAX + 64);
    w.rest = malloc(2 * PATH_MAX + 2);
    w.link = malloc(PATH_MAX);
    int rc = 0;
    if (!w.done || !w.rest || !w.link) {
        rc = -ENOMEM;
        goto out;
    }
    w.done[0] = 0;
    if (strlen(abs) >= PATH_MAX) {
        rc = -ENAMETOOLONG;
        goto out;
    }
    strcpy(w.rest, abs);
    w.p = w.rest;
    while (rc == 0) {
        while (*w.p == '/')
            w.p++;
        if (!*w.p)
            break;
        rc = walk_component(&w);
    }
    if (rc == 0 && w.hp)
        rc = -EBADF; /* /proc/self itself or a directory in it */
    if (rc == 0 && !(*out = strdup(w.dl ? w.done : "/")))
        rc = -ENOMEM;
out:
    free(w.done);
    free(w.rest);
    free(w.link);
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
