/* The workspace keeper's process (ws_keeper.h): one live index of its
 * workspace, a socket that callers ask, an end when idle or when the
 * workspace goes. */
#include "monotime.h"
#include "strbuf.h"
#include "ws_keeper.h"
#include "ws_keeper_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vthost/plugin.h>

typedef struct keeper {
    ws_index *ix;
    uint64_t id, saved_seq;
    int saved;
    wsk_files f;
    int lfd, sfd;
    struct stat sock_st, root_st;
    /* the rests of answers too long to send at once, each on a thread of
     * its own (send_rest) */
    pthread_mutex_t amu;
    pthread_cond_t acv;
    int asking;
} keeper;

#define WSK_MAX_ASKS 8
/* connections held at once, waiting for a request (each a descriptor) */
#define WSK_MAX_CONNS 32

/* The file stamped with this keeper and its change count, written when
 * the index moved since the last one.  Caller holds mu. */
static void save_stamped(keeper *k)
{
    ws_index *ix = k->ix;
    if (k->saved && k->saved_seq == ix->seq && !ix->dirty)
        return;
    ix->stamp_id = k->id;
    ix->stamp_seq = ix->seq;
    wsx_cache_save(ix);
    ix->dirty = 0;
    k->saved = 1;
    k->saved_seq = ix->seq;
}

/* All of p to fd by `deadline` (monotonic µs), or -1: a caller that
 * reads slowly or not at all cannot hold the answer's thread longer. */
static int send_by(int fd, const void *p, size_t n, uint64_t deadline)
{
    const char *s = p;
    while (n) {
        uint64_t now = mono_now_us();
        if (now >= deadline)
            return -1;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int r = poll(&pf, 1, (int)((deadline - now + 999) / 1000));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The answer: the head and the changes after `first - 1` (each path's
 * last one) as records.  Caller holds mu. */
static void put_answer(vt_strbuf *b, keeper *k, uint64_t first, int complete)
{
    ws_index *ix = k->ix;
    size_t nc = 0;
    for (uint64_t s = first; complete && s <= ix->seq; s++)
        nc += ix->log && wsx_log_at(ix, s)->path != NULL;
    strbuf_printf(b, WSK_PROTO " OK %llx %llu %d %zu\n", (unsigned long long)k->id,
                  (unsigned long long)ix->seq, complete, nc);
    for (uint64_t s = first; nc && s <= ix->seq; s++) {
        const wsx_change *c = wsx_log_at(ix, s);
        if (!c->path)
            continue;
        char h[3] = {(char)c->kind, (char)c->dir, (char)c->noise};
        strbuf_append(b, h, 3);
        strbuf_append(b, c->path, strlen(c->path) + 1);
    }
}

/* The answer to one request, "VTKEEP1 SYNC <id> <since>\n" (req, NUL
 * ended), into *out (malloc'd; NULL for want of memory: no answer).  It
 * is built under the index's lock and sent after it is released: the
 * draining thread (and every other caller) never waits on how fast a
 * caller reads. */
static size_t answer(keeper *k, const char *req, char **out)
{
    unsigned long long id = 0, since = 0;
    vt_strbuf b = VT_STRBUF_INIT;
    if (sscanf(req, WSK_PROTO " SYNC %llx %llu", &id, &since) != 2) {
        strbuf_append(&b, "NO request\n", 11);
    } else {
        const char *why = NULL;
        ws_index *ix = k->ix;
        ws_index_refresh(ix, 1, &why); /* the queue read dry: the barrier */
        pthread_mutex_lock(&ix->mu);
        if (ix->degraded || !ix->watching || why) {
            strbuf_append(&b, "NO degraded\n", 12);
        } else {
            save_stamped(k);
            uint64_t first = since + 1;
            int complete = id == k->id && since <= ix->seq && ix->dropped_seq < first;
            put_answer(&b, k, first, complete);
        }
        pthread_mutex_unlock(&ix->mu);
    }
    size_t len = b.len;
    *out = strbuf_take(&b);
    return *out ? len : 0;
}

/* What is left of one answer that could not be sent whole at once. */
typedef struct rest {
    keeper *k;
    int fd;
    char *out;
    size_t len, off;
} rest;

static void *rest_thread(void *arg)
{
    rest *a = arg;
    keeper *k = a->k;
    send_by(a->fd, a->out + a->off, a->len - a->off, mono_now_us() + WSK_TIMEOUT_MS * 1000u);
    close(a->fd);
    free(a->out);
    free(a);
    pthread_mutex_lock(&k->amu);
    k->asking--;
    pthread_cond_signal(&k->acv);
    pthread_mutex_unlock(&k->amu);
    return NULL;
}

/* The rest of an answer sent on a thread of its own (a caller that asks
 * and then reads slowly or not at all holds only that one); past
 * WSK_MAX_ASKS at once, or without a thread, it is dropped and its caller
 * checks the workspace itself. */
static void send_rest(keeper *k, int fd, char *out, size_t len, size_t off)
{
    rest *a = malloc(sizeof *a);
    pthread_attr_t at;
    pthread_t t;
    pthread_mutex_lock(&k->amu);
    int room = k->asking < WSK_MAX_ASKS && a;
    if (room)
        k->asking++;
    pthread_mutex_unlock(&k->amu);
    if (room) {
        *a = (rest){k, fd, out, len, off};
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        room = pthread_create(&t, &at, rest_thread, a) == 0;
        pthread_attr_destroy(&at);
        if (room)
            return;
        pthread_mutex_lock(&k->amu);
        k->asking--;
        pthread_mutex_unlock(&k->amu);
    }
    free(a);
    free(out);
    close(fd);
}

/* Connection `c`: its request answered, sent here when the answer fits
 * in the socket (the usual case), else the rest handed to a thread (which
 * closes it).  1: no request has arrived yet; 2: answered whole, the
 * connection kept for the caller's next ask; 0: closed or handed on. */
static int take_ask(keeper *k, int c)
{
    char req[128], *out = NULL;
    ssize_t n = recv(c, req, sizeof req - 1, MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN)
        return 1;
    if (n > 0) {
        req[n] = '\0';
        size_t len = answer(k, req, &out);
        ssize_t w = out ? send(c, out, len, MSG_DONTWAIT | MSG_NOSIGNAL) : -1;
        if (out && ((w >= 0 && (size_t)w < len) || (w < 0 && errno == EAGAIN))) {
            send_rest(k, c, out, len, w > 0 ? (size_t)w : 0);
            return 0;
        }
        free(out);
        if (w >= 0 && (size_t)w == len)
            return 2;
    }
    close(c);
    return 0;
}

/* The lock taken (another keeper: 1), the pid written into it. */
static int take_lock(keeper *k)
{
    k->lfd = open(k->f.lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (k->lfd < 0)
        return -1;
    if (flock(k->lfd, LOCK_EX | LOCK_NB) != 0)
        return 1;
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(k->lfd, 0) || pwrite(k->lfd, pid, (size_t)n, 0) != n)
        return -1;
    return 0;
}

static int bind_socket(keeper *k)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(k->f.sock) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, k->f.sock, strlen(k->f.sock) + 1);
    k->sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (k->sfd < 0)
        return -1;
    unlink(k->f.sock); /* a dead keeper's: the lock says none is alive */
    mode_t old = umask(077);
    int rc = bind(k->sfd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc || listen(k->sfd, 16) || lstat(k->f.sock, &k->sock_st))
        return -1;
    return 0;
}

/* Still the keeper: the workspace root and our socket are where they
 * were (a replaced or removed socket means callers cannot reach us). */
static int still_wanted(keeper *k)
{
    struct stat st;
    if (stat(k->ix->root, &st) || st.st_ino != k->root_st.st_ino || st.st_dev != k->root_st.st_dev)
        return 0;
    return lstat(k->f.sock, &st) == 0 && st.st_ino == k->sock_st.st_ino &&
           st.st_dev == k->sock_st.st_dev;
}

/* 1 when the index can no longer be kept by events or saved (degraded,
 * cut: the keeper ends, so that the next call starts one that can).  Events lost
 * to an overflow are made good here by a rebuild, not at the next ask,
 * whose caller would wait for it (a caller whose last ask predates the
 * loss is told the journal is incomplete either way). */
static int cannot_vouch(keeper *k)
{
    ws_index *ix = k->ix;
    pthread_mutex_lock(&ix->mu);
    int lost = ix->lost && !ix->degraded;
    pthread_mutex_unlock(&ix->mu);
    if (lost)
        ws_index_refresh(ix, 1, NULL);
    pthread_mutex_lock(&ix->mu);
    /* cut (a tree deeper than the index keeps): its file is never
     * written, so no caller could believe a word of it */
    int degraded = ix->degraded || !ix->watching || ix->cut;
    pthread_mutex_unlock(&ix->mu);
    return degraded;
}

/* Connections waiting for a request: new ones, and those answered and
 * kept for their caller's next ask.  Polled with the socket, each closed
 * WSK_TIMEOUT_MS after it was accepted or last answered (a caller that
 * connects and says nothing holds no one up; its caller dials again). */
typedef struct waiting {
    int fd[WSK_MAX_CONNS];
    uint64_t until[WSK_MAX_CONNS];
    int n;
} waiting;

static void unwait(waiting *w, int i)
{
    w->n--;
    w->fd[i] = w->fd[w->n];
    w->until[i] = w->until[w->n];
}

/* c waits for its next request; with the table full, the connection
 * nearest its deadline is closed to make room (its caller dials again),
 * so that idle kept connections never turn a new caller away. */
static void wait_on(waiting *w, int c)
{
    if (w->n == WSK_MAX_CONNS) {
        int old = 0;
        for (int i = 1; i < w->n; i++)
            if (w->until[i] < w->until[old])
                old = i;
        close(w->fd[old]);
        unwait(w, old);
    }
    w->fd[w->n] = c;
    w->until[w->n++] = mono_now_us() + WSK_TIMEOUT_MS * 1000u;
}

/* Entry i answered (`answer`: it is readable) or dropped (its time is
 * up).  An answered one kept goes to the end of the table. */
static void drop_waiting(waiting *w, int i, int answer, keeper *k)
{
    int c = w->fd[i];
    unwait(w, i);
    int rc = answer ? take_ask(k, c) : 1;
    if (rc == 1)
        close(c);
    else if (rc == 2)
        wait_on(w, c);
}

/* A new connection: a caller of this user, answered at once when its
 * request is there, else waited for. */
static void accept_one(keeper *k, waiting *w)
{
    int c = accept4(k->sfd, NULL, NULL, SOCK_CLOEXEC);
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (c < 0)
        return;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) || cr.uid != getuid()) {
        close(c);
        return;
    }
    if (take_ask(k, c) != 0)
        wait_on(w, c);
}

/* The poll's wait (ms): up to the nearest deadline, at most a second. */
static int poll_ms(const waiting *w)
{
    uint64_t now = mono_now_us(), next = now + 1000000u;
    for (int i = 0; i < w->n; i++)
        if (w->until[i] < next)
            next = w->until[i];
    return next > now ? (int)((next - now + 999) / 1000) : 0;
}

static void run(keeper *k, unsigned idle_s)
{
    uint64_t last = mono_now_us();
    waiting w = {.n = 0};
    while (still_wanted(k) && mono_now_us() - last < (uint64_t)idle_s * 1000000u &&
           !cannot_vouch(k)) {
        struct pollfd p[1 + WSK_MAX_CONNS] = {{.fd = k->sfd, .events = POLLIN}};
        for (int i = 0; i < w.n; i++)
            p[1 + i] = (struct pollfd){.fd = w.fd[i], .events = POLLIN};
        int r = poll(p, (nfds_t)(1 + w.n), poll_ms(&w));
        if (r < 0 && errno != EINTR)
            break;
        uint64_t now = mono_now_us();
        /* from the end: an entry moved into slot i, or one kept and put
         * last, has been looked at already */
        for (int i = w.n - 1; i >= 0; i--)
            if (r > 0 && p[1 + i].revents) {
                drop_waiting(&w, i, 1, k);
                last = now;
            } else if (now >= w.until[i]) {
                drop_waiting(&w, i, 0, k);
            }
        if (r > 0 && p[0].revents) {
            accept_one(k, &w);
            last = now;
        }
    }
    while (w.n)
        drop_waiting(&w, w.n - 1, 0, k);
}

int ws_keeper_main(int argc, char **argv)
{
    if (argc != 2 || argv[0][0] != '/')
        return 2;
    unsigned idle_s = (unsigned)strtoul(argv[1], NULL, 10);
    /* the caller waits for this process only: the keeper is its child,
     * left to init when it ends */
    pid_t child = fork();
    if (child != 0)
        return child < 0;
    keeper k = {.lfd = -1, .sfd = -1};
    pthread_mutex_init(&k.amu, NULL);
    pthread_cond_init(&k.acv, NULL);
    if (getrandom(&k.id, sizeof k.id, 0) != sizeof k.id)
        return 1;
    k.id |= 1; /* never 0: a call's own save */
    if (stat(argv[0], &k.root_st) || !S_ISDIR(k.root_st.st_mode) || wsk_paths(argv[0], 1, &k.f) ||
        take_lock(&k) != 0) {
        if (k.lfd >= 0)
            close(k.lfd);
        return 0;
    }
    int rc = 1;
    const char *why = NULL;
    if (ws_index_open(argv[0], WS_INDEX_LIVE, &k.ix) == VT_OK) {
        k.ix->cache_path = k.f.idx; /* its own: no call's save replaces it */
        if (ws_index_refresh(k.ix, 1, &why) == VT_OK && !why && ws_index_event_driven(k.ix) &&
            bind_socket(&k) == 0) {
            run(&k, idle_s ? idle_s : 1);
            rc = 0;
        }
    }
    struct stat st;
    if (k.sfd >= 0 && lstat(k.f.sock, &st) == 0 && st.st_ino == k.sock_st.st_ino)
        unlink(k.f.sock);
    if (k.sfd >= 0)
        close(k.sfd);
    /* the threads sending the rests of answers use this keeper (its
     * lock and condition): each ends by its deadline */
    pthread_mutex_lock(&k.amu);
    while (k.asking)
        pthread_cond_wait(&k.acv, &k.amu);
    pthread_mutex_unlock(&k.amu);
    pthread_cond_destroy(&k.acv);
    pthread_mutex_destroy(&k.amu);
    if (k.ix) {
        /* no last save: the workspace may be going (a file written into
         * a cache being removed), and the file stays what the last caller
         * was told */
        pthread_mutex_lock(&k.ix->mu);
        k.ix->degraded = 1;
        pthread_mutex_unlock(&k.ix->mu);
    }
    ws_index_close(k.ix);
    close(k.lfd);
    return rc;
}
