/* Tries, from inside a sandboxed command, every call the sandbox's
 * seccomp filter refuses (and a few it must allow), on each syscall ABI
 * an x86-64 kernel accepts, and prints one line per try:
 *
 *     ABI NAME errno        (0: the call succeeded)
 *
 * A call that gets through leaves a file named escaped-NAME in the
 * working directory, so the test sees an escape even where the kernel
 * itself would have refused later.  Each ABI runs in a child of its own:
 * a filter that kills on an ABI it does not know shows as "ABI killed N".
 * Arguments are harmless where a call gets through (a null path, a bad
 * descriptor, flags 0).  Used by sandbox_seccomp_parts.py.
 *
 *     seccomp_probe */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define X32_BIT 0x40000000L

typedef struct named {
    const char *name;
    long nr64; /* x86-64 (and x32 with X32_BIT), -1: none */
    long nr32; /* i386, -1: none */
} named;

/* The refused calls taken with zero arguments (the filter refuses them
 * whatever the arguments are). */
static const named plain[] = {
    {"mount", 165, 21},          {"umount", -1, 22},           {"umount2", 166, 52},
    {"mount_setattr", 442, 442}, {"open_tree", 428, 428},      {"move_mount", 429, 429},
    {"fsopen", 430, 430},        {"fsconfig", 431, 431},       {"fsmount", 432, 432},
    {"fspick", 433, 433},        {"pivot_root", 155, 217},     {"chroot", 161, 61},
    {"setns", 308, 346},         {"unshare", 272, 310},        {"keyctl", 250, 288},
    {"add_key", 248, 286},       {"request_key", 249, 287},    {"bpf", 321, 357},
    {"perf_event_open", 298, 336}, {"kexec_load", 246, 283},   {"kexec_file_load", 320, -1},
    {"init_module", 175, 128},   {"finit_module", 313, 350},   {"delete_module", 176, 129},
    {"swapon", 167, 87},         {"swapoff", 168, 115},        {"reboot", 169, 88},
    {"open_by_handle_at", 304, 342}, {"name_to_handle_at", 303, 341},
    {"io_uring_setup", 425, 425}, {"io_uring_enter", 426, 426}, {"io_uring_register", 427, 427},
    {"userfaultfd", 323, 374},   {"acct", 163, 51},            {"quotactl", 179, 131},
    {"lookup_dcookie", 212, 253}, {"vhangup", 153, 111},       {"iopl", 172, 110},
    {"ioperm", 173, 101},        {"clone3", 435, 435},
};

static int abi; /* 0 x86-64, 1 x32, 2 i386 */
/* Memory below 2 GiB (MAP_32BIT): where an i386 call can read its
 * arguments, so that an allowed call succeeds there too. */
static char *low;
static const char *const abi_name[] = {"x86-64", "x32", "i386"};

/* One call on this ABI: the result, or -errno.  x32 numbers are
 * x86-64's with X32_BIT, but for the calls x32 has at 512 and above. */
static long call6(long nr64, long nr32, long a, long b, long c)
{
    long r;
    if (abi == 1 && nr64 == 16)
        nr64 = 514; /* ioctl */
    if (abi == 1 && nr64 == 246)
        nr64 = 528; /* kexec_load */
    if (abi == 2) {
        if (nr32 < 0)
            return -ENOSYS;
        /* int 0x80 from a 64-bit process: the kernel takes it as i386 */
        __asm__ volatile("int $0x80"
                         : "=a"(r)
                         : "a"(nr32), "b"(a), "c"(b), "d"(c), "S"(0L), "D"(0L)
                         : "memory", "r8", "r9", "r10", "r11");
        return r;
    }
    if (nr64 < 0)
        return -ENOSYS;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(abi == 1 ? nr64 | X32_BIT : nr64), "D"(a), "S"(b), "d"(c)
                     : "memory", "rcx", "r11");
    return r;
}

static void report(const char *name, long r)
{
    printf("%s %s %ld\n", abi_name[abi], name, r < 0 ? -r : 0);
    if (r >= 0) {
        char path[96];
        snprintf(path, sizeof path, "escaped-%s-%s", abi_name[abi], name);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
    }
}

/* clone: a child that gets made ends at once and is reaped here. */
static void try_clone(const char *name, long flags)
{
    long r = call6(56, 120, flags | SIGCHLD, 0, 0);
    if (r == 0)
        _exit(0);
    if (r > 0)
        waitpid((pid_t)r, NULL, 0);
    report(name, r > 0 ? 0 : r);
}

static void probe(void)
{
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        long r = call6(plain[i].nr64, plain[i].nr32, 0, 0, 0);
        if (r == -ENOSYS && (abi == 2 ? plain[i].nr32 : plain[i].nr64) < 0)
            continue; /* not on this ABI */
        report(plain[i].name, r);
    }
    static const struct {
        const char *name;
        long flag;
    } ns[] = {{"clone-newns", CLONE_NEWNS},   {"clone-newcgroup", CLONE_NEWCGROUP},
              {"clone-newuts", CLONE_NEWUTS}, {"clone-newipc", CLONE_NEWIPC},
              {"clone-newuser", CLONE_NEWUSER}, {"clone-newpid", CLONE_NEWPID},
              {"clone-newnet", CLONE_NEWNET}};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        try_clone(ns[i].name, ns[i].flag);
    try_clone("clone-plain", 0); /* must stay allowed */
    char *ch = low;
    *ch = 'x';
    report("ioctl-tiocsti", call6(16, 54, 0, TIOCSTI, (long)(uintptr_t)ch));
    report("ioctl-tioclinux", call6(16, 54, 0, TIOCLINUX, (long)(uintptr_t)ch));
    /* the upper half of the request is not looked at (the kernel's view) */
    if (abi != 2)
        report("ioctl-tiocsti-high", call6(16, 54, 0, TIOCSTI | (1L << 40), (long)(uintptr_t)ch));
    static const struct {
        const char *name;
        long mode;
    } nodes[] = {{"mknod-chr", S_IFCHR}, {"mknod-blk", S_IFBLK}, {"mknod-reg", S_IFREG},
                 {"mknod-0", 0},         {"mknod-fifo", S_IFIFO}};
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        char *path = low + 64, name[64];
        snprintf(path, 64, "node-%s-%s", abi_name[abi], nodes[i].name);
        report(nodes[i].name,
               call6(133, 14, (long)(uintptr_t)path, nodes[i].mode | 0600, (long)makedev(1, 3)));
        snprintf(name, sizeof name, "%sat", nodes[i].name);
        snprintf(path, 64, "nodeat-%s-%s", abi_name[abi], nodes[i].name);
        /* mknodat: x86-64 259, i386 297; AT_FDCWD */
        long r;
        if (abi == 2)
            r = call6(-1, 297, AT_FDCWD, (long)(uintptr_t)path, nodes[i].mode | 0600);
        else
            r = call6(259, -1, AT_FDCWD, (long)(uintptr_t)path, nodes[i].mode | 0600);
        report(name, r);
    }
    static const struct {
        const char *name;
        long family;
    } socks[] = {{"socket-inet", AF_INET},       {"socket-inet6", AF_INET6},
                 {"socket-netlink", AF_NETLINK}, {"socket-packet", AF_PACKET},
                 {"socket-unix", AF_UNIX}};
    for (size_t i = 0; i < sizeof socks / sizeof *socks; i++) {
        long r = call6(41, 359, socks[i].family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        report(socks[i].name, r);
        if (r >= 0)
            close((int)r);
    }
    if (abi == 2) {
        /* socketcall(SYS_SOCKET, args): the other way to a socket */
        unsigned int *args = (unsigned int *)(void *)(low + 128);
        args[0] = AF_INET;
        args[1] = SOCK_DGRAM;
        args[2] = 0;
        long r = call6(-1, 102, 1, (long)(uintptr_t)args, 0);
        report("socketcall", r);
        if (r >= 0)
            close((int)r);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low == MAP_FAILED)
        return 1;
    for (abi = 0; abi < 3; abi++) {
        pid_t pid = fork();
        if (pid == 0) {
            probe();
            _exit(0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            return 1;
        if (WIFSIGNALED(st))
            printf("%s killed %d\n", abi_name[abi], WTERMSIG(st));
    }
    return 0;
}
