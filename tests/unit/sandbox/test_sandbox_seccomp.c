/* The sandbox's seccomp filter laid out as a binary tree of syscall
 * numbers (what sessions attach: cheaper for the kernel's action cache)
 * decides exactly as the plain chain does, for every syscall number of
 * every ABI (x86-64, x32, i386, and an ABI the filter does not know)
 * and the argument values its rules compare: both programs run here on
 * a classic BPF interpreter, with the network off and on.  The same for
 * the filter in two parts (the leader maker's base under a leader's
 * top) against the whole, and for the base under the run-time checks'
 * listener carrying the top against the whole under the plain listener. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <vthost/plugin.h>
#include "execwatch.h"
#include "sandbox_int.h"

/* Classic BPF as seccomp runs it over `d`; the return value, or a value
 * no filter returns when the program leaves its bounds. */
static uint32_t run(const struct sock_fprog *f, const struct seccomp_data *d)
{
    uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
    const unsigned char *data = (const unsigned char *)d;
    for (unsigned pc = 0; pc < f->len; pc++) {
        const struct sock_filter *i = &f->filter[pc];
        uint32_t src = BPF_SRC(i->code) == BPF_X ? x : i->k;
        switch (BPF_CLASS(i->code)) {
        case BPF_LD:
            if (BPF_MODE(i->code) == BPF_ABS && i->k + 4 <= sizeof *d)
                memcpy(&a, data + i->k, 4);
            else if (BPF_MODE(i->code) == BPF_MEM && i->k < BPF_MEMWORDS)
                a = mem[i->k];
            else if (BPF_MODE(i->code) == BPF_IMM)
                a = i->k;
            else
                return 0xdeadbeef;
            break;
        case BPF_LDX:
            if (BPF_MODE(i->code) != BPF_MEM || i->k >= BPF_MEMWORDS)
                return 0xdeadbeef;
            x = mem[i->k];
            break;
        case BPF_ST:
        case BPF_STX:
            if (i->k >= BPF_MEMWORDS)
                return 0xdeadbeef;
            mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
            break;
        case BPF_ALU:
            switch (BPF_OP(i->code)) {
            case BPF_AND: a &= src; break;
            case BPF_OR: a |= src; break;
            case BPF_ADD: a += src; break;
            case BPF_SUB: a -= src; break;
            case BPF_RSH: a = src < 32 ? a >> src : 0; break;
            case BPF_LSH: a = src < 32 ? a << src : 0; break;
            default: return 0xdeadbeef;
            }
            break;
        case BPF_JMP: {
            int t;
            switch (BPF_OP(i->code)) {
            case BPF_JA: pc += i->k; continue;
            case BPF_JEQ: t = a == src; break;
            case BPF_JGT: t = a > src; break;
            case BPF_JGE: t = a >= src; break;
            case BPF_JSET: t = (a & src) != 0; break;
            default: return 0xdeadbeef;
            }
            pc += t ? i->jt : i->jf;
            break;
        }
        case BPF_RET:
            return BPF_RVAL(i->code) == BPF_A ? a : i->k;
        case BPF_MISC:
            if (BPF_MISCOP(i->code) == BPF_TAX)
                x = a;
            else
                a = x;
            break;
        default:
            return 0xdeadbeef;
        }
    }
    return 0xdeadbeef;
}

/* The values the rules compare (clone's namespace flags, the ioctl
 * requests, mknod's file types, socket families), each alone, with the
 * upper half set, and beside other bits. */
static size_t arg_values(uint64_t *v, size_t max)
{
    size_t n = 0;
    const uint64_t base[] = {0,         1,           CLONE_NEWNS,   CLONE_NEWCGROUP,
                             CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
                             CLONE_NEWNET, 0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */,
                             0x5413,    AF_UNIX,     AF_INET,       AF_INET6,
                             AF_NETLINK, AF_PACKET, 0xffffffffu,   UINT64_MAX};
    for (size_t i = 0; i < sizeof base / sizeof *base && n + 3 <= max; i++) {
        v[n++] = base[i];
        v[n++] = base[i] | (1ull << 40);
        v[n++] = base[i] | 0x11;
    }
    for (uint64_t t = 0; t < 16 && n + 2 <= max; t++) {
        v[n++] = t << 12;
        v[n++] = t << 12 | 0644;
    }
    return n;
}

/* What the kernel returns for a stack of two filters, `top` attached
 * after `base`: it runs the newest first and keeps the strictest action
 * (the lowest as a signed value), the earlier result on a tie. */
static uint32_t run_stack(const struct sock_fprog *top, const struct sock_fprog *base,
                          const struct seccomp_data *d)
{
    uint32_t r = run(top, d), b = run(base, d);
    if (r == 0xdeadbeef || b == 0xdeadbeef)
        return 0xdeadbeef;
    if ((int32_t)(b & SECCOMP_RET_ACTION_FULL) < (int32_t)(r & SECCOMP_RET_ACTION_FULL))
        r = b;
    return r;
}

/* What each action was taken how often over a comparison. */
struct verdicts {
    size_t refused; /* anything but ALLOW */
    size_t errnos;  /* SECCOMP_RET_ERRNO */
    size_t notified; /* SECCOMP_RET_USER_NOTIF */
};

/* A program alone (`top` NULL) or `top` attached over `base`. */
static uint32_t run_either(const struct sock_fprog *top, const struct sock_fprog *base,
                           const struct seccomp_data *d)
{
    return top ? run_stack(top, base, d) : run(base, d);
}

/* Every syscall number of every ABI with each value the rules compare in
 * each of the first three arguments: `b` (or the stack b2 over b) must
 * decide as `a` (or a2 over a) does; `out` counts its actions.  Fails on
 * the first difference. */
static void compare_programs(const struct sock_fprog *a, const struct sock_fprog *a2,
                             const struct sock_fprog *b, const struct sock_fprog *b2,
                             struct verdicts *out)
{
    const uint32_t arches[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64};
    uint64_t vals[128];
    size_t nv = arg_values(vals, 128);
    for (size_t k = 0; k < sizeof arches / sizeof *arches; k++)
        for (int x32 = 0; x32 < 2; x32++)
            for (int nr = 0; nr < 1024; nr++)
                for (size_t v = 0; v < nv; v++)
                    for (int arg = 0; arg < 3; arg++) {
                        struct seccomp_data d;
                        memset(&d, 0, sizeof d);
                        d.arch = arches[k];
                        d.nr = nr | (x32 ? 0x40000000 : 0);
                        d.args[arg] = vals[v];
                        uint32_t want = run_either(a2, a, &d), got = run_either(b2, b, &d);
                        if (want != got)
                            fail_msg("arch %#x nr %#x arg%d=%#llx: %#x, then %#x", d.arch, d.nr,
                                     arg, (unsigned long long)vals[v], want, got);
                        assert_int_not_equal(got, 0xdeadbeef);
                        uint32_t action = got & SECCOMP_RET_ACTION_FULL;
                        out->refused += got != SECCOMP_RET_ALLOW;
                        out->errnos += action == SECCOMP_RET_ERRNO;
                        out->notified += action == SECCOMP_RET_USER_NOTIF;
                    }
}

/* The base attached by the leader maker with the top each of its leaders
 * attaches refuses exactly what the whole filter refuses, with the same
 * errno, and neither part refuses anything alone that the other also
 * refuses (where both did, the errno would be the top's). */
static void compare_parts(int network)
{
    struct sock_fprog whole, base, top;
    int rc = sandbox_seccomp_build(network, SANDBOX_SECCOMP_WHOLE, &whole);
    if (rc == VT_ERR_UNSUPPORTED)
        skip();
    assert_int_equal(rc, VT_OK);
    assert_int_equal(sandbox_seccomp_build(network, SANDBOX_SECCOMP_BASE, &base), VT_OK);
    assert_int_equal(sandbox_seccomp_build(network, SANDBOX_SECCOMP_TOP, &top), VT_OK);
    struct verdicts n = {0};
    compare_programs(&whole, NULL, &base, &top, &n);
    assert_true(n.refused > 0);
    /* disjoint: base and top never both refuse one call */
    const uint32_t arches[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386};
    for (size_t k = 0; k < 2; k++)
        for (int nr = 0; nr < 1024; nr++) {
            struct seccomp_data d = {.nr = nr, .arch = arches[k]};
            uint32_t b = run(&base, &d), t = run(&top, &d);
            assert_false((b & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO &&
                         (t & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO && b != t);
        }
    /* the base alone leaves the set-up's calls to the top: mount, unshare
     * and clone into a namespace (what the maker and a leader call) */
    struct seccomp_data d = {.arch = AUDIT_ARCH_X86_64, .nr = 272 /* unshare */};
    assert_int_equal(run(&base, &d), SECCOMP_RET_ALLOW);
    d.nr = 165; /* mount */
    assert_int_equal(run(&base, &d), SECCOMP_RET_ALLOW);
    d.nr = 435; /* clone3 */
    assert_int_equal(run(&base, &d), SECCOMP_RET_ALLOW);
    d.nr = 56; /* clone */
    d.args[0] = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUSER;
    assert_int_equal(run(&base, &d), SECCOMP_RET_ALLOW);
    assert_int_equal(run(&top, &d), SECCOMP_RET_ERRNO | EPERM);
    free(whole.filter);
    free(base.filter);
    free(top.filter);
}

/* The stacks a leader ends with when the run-time checks are on: the
 * whole filter under the checks' listener (a leader the host made), and
 * the maker's base under the listener with the top part in it (one the
 * maker made) decide alike, on every ABI (the listener knows only the
 * native one and kills on the others, in both stacks). */
static void compare_watch(int network)
{
    if (execwatch_prepare() != VT_OK)
        skip(); /* no user notification here */
    if (sandbox_seccomp_watch_prepare() != VT_OK)
        fail_msg("the listener with the top part cannot be built");
    struct sock_fprog whole, base;
    assert_int_equal(sandbox_seccomp_build(network, SANDBOX_SECCOMP_WHOLE, &whole), VT_OK);
    assert_int_equal(sandbox_seccomp_build(network, SANDBOX_SECCOMP_BASE, &base), VT_OK);
    const struct sock_fprog *listener = execwatch_filter(), *combined =
                                                               sandbox_seccomp_watch_program(network);
    assert_true(listener->len > 0 && combined->len > 0);
    struct verdicts n = {0};
    compare_programs(&whole, listener, &base, combined, &n);
    assert_true(n.errnos > 0 && n.notified > 0);
    free(whole.filter);
    free(base.filter);
    sandbox_seccomp_watch_free();
}

static void test_watch_network_off(void **state)
{
    (void)state;
    compare_watch(0);
}

static void test_watch_network_on(void **state)
{
    (void)state;
    compare_watch(1);
}

static void compare(int network)
{
    struct sock_fprog chain, tree;
    int rc = sandbox_seccomp_build_as(network, 0, SANDBOX_SECCOMP_WHOLE, &chain);
    if (rc == VT_ERR_UNSUPPORTED)
        skip(); /* no libseccomp here */
    assert_int_equal(rc, VT_OK);
    assert_int_equal(sandbox_seccomp_build_as(network, 1, SANDBOX_SECCOMP_WHOLE, &tree), VT_OK);
    struct verdicts n = {0};
    compare_programs(&chain, NULL, &tree, NULL, &n);
    assert_true(n.refused > 0);
    free(chain.filter);
    free(tree.filter);
}

static void test_network_off(void **state)
{
    (void)state;
    compare(0);
}

static void test_network_on(void **state)
{
    (void)state;
    compare(1);
}

static void test_parts_network_off(void **state)
{
    (void)state;
    compare_parts(0);
}

static void test_parts_network_on(void **state)
{
    (void)state;
    compare_parts(1);
}

/* The program a call gets (made at build time where the build can) is
 * the one libseccomp makes here from the same rules, instruction for
 * instruction: a rule changed without the build regenerating it, or a
 * different libseccomp at run time, shows up here. */
static void test_prebuilt_is_current(void **state)
{
    (void)state;
    for (int k = 0; k < 6; k++) {
        int network = k & 1, part = k >> 1;
        struct sock_fprog now, used;
        int rc = sandbox_seccomp_build_as(network, 1, part, &now);
        if (rc == VT_ERR_UNSUPPORTED)
            skip();
        assert_int_equal(rc, VT_OK);
        assert_int_equal(sandbox_seccomp_build(network, part, &used), VT_OK);
        assert_int_equal(used.len, now.len);
        assert_memory_equal(used.filter, now.filter, now.len * sizeof *now.filter);
        free(now.filter);
        free(used.filter);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_network_off),
        cmocka_unit_test(test_network_on),
        cmocka_unit_test(test_parts_network_off),
        cmocka_unit_test(test_parts_network_on),
        cmocka_unit_test(test_watch_network_off),
        cmocka_unit_test(test_watch_network_on),
        cmocka_unit_test(test_prebuilt_is_current),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
