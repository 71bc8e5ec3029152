/* An allowed program that tries to run a denied one (rm, touch) in ways
 * a name-based run-time check could miss.  The bypass corpus runs it under
 * rules that allow perm_attack and deny rm and touch: whatever MODE does,
 * the victim file must survive and no PWNED file may appear.
 * Usage: perm_attack MODE FILE
 *   memfd     /bin/rm copied into a memfd, run with execveat(AT_EMPTY_PATH)
 *   fdexec    execveat(fd of /bin/rm, "", AT_EMPTY_PATH)
 *   procfd    execve("/proc/self/fd/N") with N open on /bin/rm
 *   devfd     execve("/dev/fd/N") with N open on /bin/rm
 *   proclink  execve of a workspace symlink to /proc/self/fd/N
 *   ldso      the dynamic loader run directly: ld.so /bin/rm FILE
 *   ldsoopt   the same with loader options before the program
 *   shebang   a script whose #! line names /bin/rm
 *   shebang2  a script whose #! line names another script naming /bin/rm
 *   symlink   a symlink named ls pointing to /bin/rm
 *   hardlink  a hard link to /bin/rm named ls (skipped when links fail)
 *   thread    execve of /bin/rm from a second thread
 *   vfork     vfork + execve of /bin/rm
 *   spawn     posix_spawn of /bin/rm
 *   int80     execve of /bin/rm through the i386 entry (int 0x80)
 *   x32       execve of /bin/rm through the x32 system call numbers
 *   threadok  execve of /bin/cp /dev/null FILE.ok from a second thread:
 *             must work (cp is neither allowed nor denied: a thread's
 *             exec is the allowed program's own, not the shell's)
 * Exit status: 0 when every attempt failed, 3 when one returned success
 * (the corpus checks the files, not this status). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static const char *victim;

static int run_rm_at(int dirfd, const char *path, int flags)
{
    char *argv[] = {"true", "-f", (char *)victim, NULL}; /* argv[0] names no denied program */
    syscall(SYS_execveat, dirfd, path, argv, environ, flags);
    fprintf(stderr, "execveat: %s\n", strerror(errno));
    return 0;
}

static int run(const char *path, char *const argv[])
{
    execve(path, argv, environ);
    fprintf(stderr, "execve %s: %s\n", path, strerror(errno));
    return 0;
}

static void *thread_exec(void *arg)
{
    char **argv = arg;
    execve(argv[0], argv, environ);
    fprintf(stderr, "execve from a thread: %s\n", strerror(errno));
    return NULL;
}

static int in_thread(char **argv)
{
    pthread_t t;
    if (pthread_create(&t, NULL, thread_exec, argv) != 0)
        return 1;
    pthread_join(t, NULL);
    return 0;
}

static int write_file(const char *name, const char *text, mode_t mode)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return -1;
    return close(fd);
}

/* execve(11) through int 0x80: the strings and argv in the low 4 GiB. */
static int int80(void)
{
    char *m =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    strcpy(m, "/bin/rm");
    strcpy(m + 64, "true");
    strcpy(m + 128, victim);
    uint32_t *av = (uint32_t *)(m + 1024);
    av[0] = (uint32_t)(uintptr_t)(m + 64);
    av[1] = (uint32_t)(uintptr_t)(m + 128);
    av[2] = 0;
    long ret;
    __asm__ volatile("int $0x80"
                     : "=a"(ret)
                     : "a"(11), "b"((uint32_t)(uintptr_t)m), "c"((uint32_t)(uintptr_t)av), "d"(0)
                     : "memory");
    fprintf(stderr, "int 0x80 execve: %ld\n", ret);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    victim = argv[2];
    char *rmv[] = {"true", "-f", (char *)victim, NULL};
    if (!strcmp(mode, "memfd")) {
        int src = open("/bin/rm", O_RDONLY);
        int fd = memfd_create("ls", MFD_CLOEXEC);
        struct stat st;
        if (src < 0 || fd < 0 || fstat(src, &st) < 0 ||
            sendfile(fd, src, NULL, (size_t)st.st_size) != st.st_size)
            return 1;
        return run_rm_at(fd, "", AT_EMPTY_PATH);
    }
    if (!strcmp(mode, "fdexec"))
        return run_rm_at(open("/bin/rm", O_RDONLY), "", AT_EMPTY_PATH);
    if (!strcmp(mode, "procfd") || !strcmp(mode, "devfd") || !strcmp(mode, "proclink")) {
        int fd = open("/bin/rm", O_RDONLY);
        char p[64];
        snprintf(p, sizeof p, "/%s/%d", mode[0] == 'd' ? "dev/fd" : "proc/self/fd", fd);
        if (!strcmp(mode, "proclink")) {
            unlink("ls");
            if (symlink(p, "ls") != 0)
                return 1;
            return run("./ls", rmv);
        }
        return run(p, rmv);
    }
    if (!strcmp(mode, "ldso")) {
        char *v[] = {"ld.so", "/bin/rm", "-f", (char *)victim, NULL};
        return run("/lib64/ld-linux-x86-64.so.2", v);
    }
    if (!strcmp(mode, "ldsoopt")) {
        char *v[] = {"ld.so", "--inhibit-cache", "--argv0", "ls", "/bin/rm",
                     "-f",    (char *)victim,    NULL};
        return run("/lib64/ld-linux-x86-64.so.2", v);
    }
    if (!strcmp(mode, "shebang")) {
        if (write_file("kill.sh", "#!/bin/rm -f\n", 0755) != 0)
            return 1;
        char *v[] = {"kill.sh", (char *)victim, NULL};
        return run("./kill.sh", v);
    }
    if (!strcmp(mode, "shebang2")) {
        if (write_file("inner.sh", "#!/bin/rm -f\n", 0755) != 0 ||
            write_file("outer.sh", "#!./inner.sh\n", 0755) != 0)
            return 1;
        char *v[] = {"outer.sh", (char *)victim, NULL};
        return run("./outer.sh", v);
    }
    if (!strcmp(mode, "symlink")) {
        unlink("ls");
        if (symlink("/bin/rm", "ls") != 0)
            return 1;
        return run("./ls", rmv);
    }
    if (!strcmp(mode, "hardlink")) {
        unlink("ls");
        if (link("/usr/bin/rm", "ls") != 0) {
            fprintf(stderr, "link: %s (nothing to try)\n", strerror(errno));
            return 0;
        }
        return run("./ls", rmv);
    }
    if (!strcmp(mode, "thread")) {
        char *v[] = {"/bin/rm", "-f", (char *)victim, NULL};
        return in_thread(v);
    }
    if (!strcmp(mode, "threadok")) {
        char ok[4096];
        snprintf(ok, sizeof ok, "%s.ok", victim);
        char *v[] = {"/bin/cp", "/dev/null", ok, NULL};
        return in_thread(v);
    }
    if (!strcmp(mode, "vfork")) {
        pid_t p = vfork();
        if (p == 0) {
            execve("/bin/rm", rmv, environ);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        return 0;
    }
    if (!strcmp(mode, "spawn")) {
        pid_t p;
        if (posix_spawn(&p, "/bin/rm", NULL, NULL, rmv, environ) == 0) {
            int st;
            waitpid(p, &st, 0);
        }
        return 0;
    }
    if (!strcmp(mode, "int80"))
        return int80();
    if (!strcmp(mode, "x32")) {
        long r = syscall(0x40000000L | 520, "/bin/rm", rmv, environ);
        fprintf(stderr, "x32 execve: %ld (%s)\n", r, strerror(errno));
        return 0;
    }
    return 2;
}
