/* The SIGBUS guard of mapped reads (see cs_guard.h).
 *
 * The handler must be safe in a process shared with the host and other
 * plugins, on any thread: it reads only a fixed table of atomics (no
 * thread-local storage, whose first use in a dlopen'ed library may
 * allocate), jumps only for a fault of the thread that armed a slot and
 * inside the range it armed, and hands every other SIGBUS to the handler
 * it replaced, or restores the default action and lets it kill as it
 * would have.  The guarded code touches the mapping and nothing that
 * takes a lock or allocates, so the jump leaves nothing half done. */
#include "cs_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#define SLOTS 64

typedef struct slot {
    atomic_uintptr_t owner; /* pthread_self() of the holder, 0 when free */
    atomic_uintptr_t lo, hi;
    _Atomic(sigjmp_buf *) jb;
} slot;

static slot slots[SLOTS];
static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed;

static void pass_on(int sig, siginfo_t *si, void *uc)
{
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction)
            previous.sa_sigaction(sig, si, uc);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
        return;
    }
    /* The default action, as without us: a fault repeats on return and
     * kills; a SIGBUS sent by kill() is raised again. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0)
        raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr, self = (uintptr_t)pthread_self();
    for (int i = 0; si->si_code > 0 && i < SLOTS; i++) {
        slot *s = &slots[i];
        if (atomic_load(&s->owner) != self)
            continue;
        sigjmp_buf *jb = atomic_load(&s->jb);
        if (jb && a >= atomic_load(&s->lo) && a < atomic_load(&s->hi))
            siglongjmp(*jb, 1);
    }
    pass_on(sig, si, uc);
}

static void install(void)
{
    struct sigaction sa = {.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    installed = sigaction(SIGBUS, &sa, &previous) == 0;
}

int cs_guard_claim(cs_guard *g)
{
    g->slot = -1;
    pthread_once(&once, install);
    if (!installed)
        return -1;
    uintptr_t self = (uintptr_t)pthread_self();
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t free_owner = 0;
        if (atomic_compare_exchange_strong(&slots[i].owner, &free_owner, self)) {
            g->slot = i;
            return 0;
        }
    }
    return -1;
}

void cs_guard_release(cs_guard *g)
{
    if (g->slot < 0)
        return;
    cs_guard_disarm(g);
    atomic_store(&slots[g->slot].owner, 0);
    g->slot = -1;
}

void cs_guard_arm(cs_guard *g, const void *p, size_t n)
{
    slot *s = &slots[g->slot];
    atomic_store(&s->lo, (uintptr_t)p);
    atomic_store(&s->hi, (uintptr_t)p + n);
    atomic_store(&s->jb, &g->jb);
}

void cs_guard_disarm(cs_guard *g)
{
    slot *s = &slots[g->slot];
    atomic_store(&s->jb, NULL);
    atomic_store(&s->lo, 0);
    atomic_store(&s->hi, 0);
}

void cs_guard_recovered(cs_guard *g)
{
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
    cs_guard_disarm(g);
}

void cs_guard_uninstall(void)
{
    /* Only when ours is still the handler: one installed after it has
     * chained to us or replaced us knowingly. */
    struct sigaction cur;
    if (!installed || sigaction(SIGBUS, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) ||
        cur.sa_sigaction != on_sigbus)
        return;
    sigaction(SIGBUS, &previous, NULL);
}
