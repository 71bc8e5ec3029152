/* Per file: the literal search finds every match first; only files with a
 * match are lexed, and each match then takes its category from the token
 * it covers: a declaration's name, an identifier, or anything else. */
#include "cs.h"
#include "cs_decls.h"
#include "cs_file.h"
#include "cs_snippet.h"
#include "cs_types.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define BUF_SLACK 64 /* bytes after a read file's data, zeroed */

#define BINARY_PROBE 8192
#define BIG_READ (8u << 20)  /* read into a buffer of its own */
#define BIG_MAX (1ull << 30) /* not searched from this size on */
#define FIRST_READ (256u << 10)

int cs_worker_init(cs_worker *w, const cs_query *q)
{
    memset(w, 0, sizeof *w);
    w->dirfd = -1;
    return cs_matcher_init(&w->m, q);
}

void cs_worker_free(cs_worker *w)
{
    cs_matcher_free(&w->m);
    free(w->sp);
    cs_toks_free(&w->toks);
    free(w->buf);
    if (w->dirfd >= 0)
        close(w->dirfd);
    free(w->dir);
    memset(w, 0, sizeof *w);
    w->dirfd = -1;
}

void cs_file_hits_free(cs_file_hits *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->v[i].snippet);
        free(h->v[i].name);
    }
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* The identifier token exactly covering [s, e), or NULL. */
static const cs_tok *token_at(const cs_toks *t, uint32_t s, uint32_t e)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->v[mid].start < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Zero-length markers ('L', 'Q', ...) may share the start. */
    for (; lo < t->n && t->v[lo].start == s; lo++)
        if (t->v[lo].kind == 'i' || t->v[lo].kind == 'D')
            return t->v[lo].end == e ? &t->v[lo] : NULL;
    return NULL;
}

/* Must the lexed tokens be marked for declarations?  Not when every
 * match is sure to be a usage or text: marking costs as much as lexing,
 * and a common word is mostly used, seldom declared.  Unmarked tokens
 * keep def 0.  Only C and C++ have such a test (their headers are where
 * common type names abound). */
static int decl_needed(const cs_worker *w, const char *buf, size_t len, int lexer, cs_raw_enum *re)
{
    if (lexer != CS_LEX_C && lexer != CS_LEX_CPP)
        return 1;
    /* The raw pre-check may already know the file never says enum. */
    cs_raw_enum tre;
    cs_raw_enum_init(&tre, lexer);
    if (re->state == 0)
        tre.state = 0;
    for (size_t i = 0; i < w->nsp; i++) {
        const cs_tok *tk = token_at(&w->toks, w->sp[i].start, w->sp[i].end);
        if (tk && cs_decl_clike_possible(buf, len, &w->toks, (size_t)(tk - w->toks.v), &tre))
            return 1;
    }
    return 0;
}

/* Could [s, e) be a whole identifier token?  Not when an identifier
 * character touches either end ('$' joins identifiers in JS/TS only). */
static int word_bounded(const char *buf, size_t len, cs_span sp, int lexer)
{
    int dollar =
        lexer == CS_LEX_JS || lexer == CS_LEX_JSX || lexer == CS_LEX_TS || lexer == CS_LEX_TSX;
    if (sp.start > 0) {
        unsigned char c = (unsigned char)buf[sp.start - 1];
        if (cs_id_char(c) || (dollar && c == '$'))
            return 0;
    }
    if (sp.end < len) {
        unsigned char c = (unsigned char)buf[sp.end];
        if (cs_id_char(c) || (dollar && c == '$'))
            return 0;
    }
    return 1;
}

/* Can lexing be skipped?  When no hit but a definition can still be kept
 * (usages and text are no longer live: other files hold enough of them)
 * and no match of a C or C++ file can be a declaration by the bytes
 * around it, every match would only be noticed; set *dropped as the full
 * classification would.  Not when usages are requested without text:
 * whether a match is a usage (counts) or a comment (does not) needs the
 * lexer. */
static int lexing_needless(const char *buf, size_t len, const cs_span *sp, size_t n, int lexer,
                           unsigned cats, unsigned live, cs_raw_enum *re, int *dropped)
{
    unsigned use = 1u << CS_USE, text = 1u << CS_TEXT;
    if ((lexer != CS_LEX_C && lexer != CS_LEX_CPP) || (live & cats & (use | text)) ||
        ((cats & use) && !(cats & text)))
        return 0;
    for (size_t i = 0; i < n && (cats & (1u << CS_DEF)); i++)
        if (word_bounded(buf, len, sp[i], lexer) &&
            cs_decl_clike_raw_possible(buf, len, sp[i].start, sp[i].end, re))
            return 0;
    *dropped = (cats & text) != 0;
    return 1;
}

/* Every match (up to limit; 0: all) in w->sp, none in a binary file.  A
 * byte search first looks for one match (most files of a search have
 * none, and the binary probe would be wasted on them), probes, then goes
 * on from that match: one pass over the file.  The folding search, slow
 * on binary bytes, probes first. */
static int find_matches(cs_worker *w, const char *buf, size_t len, size_t limit)
{
    size_t probe = len < BINARY_PROBE ? len : BINARY_PROBE;
    int probed = w->m.q->fold_lines;
    w->nsp = 0;
    if (probed && memchr(buf, '\0', probe))
        return 0;
    int rc = cs_match_all(&w->m, buf, len, probed ? limit : 1, &w->sp, &w->nsp, &w->capsp);
    if (rc < 0 || w->nsp == 0 || probed)
        return rc;
    if (memchr(buf, '\0', probe)) {
        w->nsp = 0;
        return 0;
    }
    if (limit == 1)
        return 0;
    cs_span first = w->sp[0];
    size_t from = first.end > first.start ? first.end : first.start + 1;
    return cs_match_from(&w->m, buf, len, from, limit, &w->sp, &w->nsp, &w->capsp);
}

int cs_buf_scan(cs_worker *w, const char *buf, size_t len, int lexer, unsigned cats, unsigned live,
                size_t cap, cs_file_hits *out)
{
    memset(out, 0, sizeof *out);
    unsigned code = (1u << CS_DEF) | (1u << CS_USE);
    int classify = lexer != CS_LEX_NONE && (cats & code);
    /* Without code categories every match is text: stop at the cap. */
    size_t limit = classify ? 0 : cap;
    if (!classify && !(cats & (1u << CS_TEXT)))
        return 0;
    int rc = find_matches(w, buf, len, limit);
    if (rc < 0 || w->nsp == 0)
        return rc;
    /* Lexing only decides between identifier and text: skip it when no
     * match can be a whole identifier. */
    if (classify) {
        classify = 0;
        for (size_t i = 0; i < w->nsp && !classify; i++)
            classify = word_bounded(buf, len, w->sp[i], lexer);
    }
    cs_raw_enum re; /* the raw pre-check's scan, and whether the file says enum */
    cs_raw_enum_init(&re, lexer);
    if (classify && lexing_needless(buf, len, w->sp, w->nsp, lexer, cats, live, &re, &out->dropped))
        return 0;
    if (classify) {
        if ((rc = cs_lex(lexer, buf, len, &w->toks)) < 0)
            return rc;
        if (decl_needed(w, buf, len, lexer, &re) && (rc = cs_decl_mark(lexer, buf, &w->toks)) < 0)
            return rc;
    }
    out->v = calloc(w->nsp < 3 * cap ? w->nsp : 3 * cap, sizeof *out->v);
    if (!out->v)
        return VT_ERR_NOMEM;
    size_t line = 1, ls = 0, pos = 0;
    for (size_t i = 0; i < w->nsp; i++) {
        cs_span s = w->sp[i];
        int cat = CS_TEXT;
        const cs_tok *tk = classify ? token_at(&w->toks, s.start, s.end) : NULL;
        if (tk)
            cat = tk->def ? CS_DEF : CS_USE;
        /* One text set: a match that is not returned as a definition or a
         * usage (not requested) is text, whatever else is requested. */
        if (!(cats & (1u << cat))) {
            cat = CS_TEXT;
            tk = NULL;
            if (!(cats & (1u << CS_TEXT)))
                continue;
        }
        if (!(live & (1u << cat)) || out->counts[cat] >= cap) {
            out->dropped = 1;
            continue;
        }
        /* Lines are counted incrementally: spans come in order. */
        while (pos < s.start) {
            const char *nl = memchr(buf + pos, '\n', s.start - pos);
            if (!nl) {
                pos = s.start;
                break;
            }
            line++;
            pos = (size_t)(nl - buf) + 1;
            ls = pos;
        }
        size_t le = cs_scan_eol(buf, len, s.start);
        cs_hit *h = &out->v[out->n];
        h->cat = (unsigned char)cat;
        h->line = (uint32_t)line;
        h->col = (uint32_t)(s.start - ls + 1);
        h->snippet = cs_snippet(buf + ls, le - ls, s.start - ls);
        if (tk)
            h->name = strndup(buf + s.start, s.end - s.start);
        out->n++;
        out->counts[cat]++;
        if (!h->snippet || (tk && !h->name))
            return VT_ERR_NOMEM;
    }
    return 0;
}

/* The content index entry of the file just read (fd, its len bytes in
 * buf), made while the bytes are in the cache: its trigrams and the
 * names it declares.  Lexing and marking a file for its names costs
 * about 1.25 times hashing its trigrams (/usr/include), so such an entry
 * is charged 2.25 times its length: a search spends on entries the
 * share of its time it did before names were kept, and the index takes
 * about twice as many searches to complete. */
#define NAMES_COST_X4 9u

static void note(cs_worker *w, int fd, const char *buf, size_t len, int lexer)
{
    if (!w->fresh)
        return;
    uint64_t cost = lexer == CS_LEX_NONE ? len : (uint64_t)len * NAMES_COST_X4 / 4;
    cs_index_note(w->fresh, w->old, fd, buf, len, cost, w->limit, w->budget);
    if (w->fresh->state == 2 && !(w->fresh->flags & CS_IX_BINARY))
        (void)cs_decls_make(w->fresh, lexer, buf, len, &w->toks);
}

/* Room for `size` bytes and the zeroed slack in w->buf.  The slack
 * matters: vectorised searches read whole 16-byte blocks, which must stay
 * inside the allocation. */
static int worker_buf(cs_worker *w, size_t size)
{
    if (size + BUF_SLACK <= w->bufcap)
        return 0;
    char *nb = realloc(w->buf, size + BUF_SLACK);
    if (!nb)
        return VT_ERR_NOMEM;
    w->buf = nb;
    w->bufcap = size + BUF_SLACK;
    return 0;
}

/* A file of `size` bytes (>= BIG_READ) read into a buffer of its own,
 * freed at once so one huge file does not pin its size in a worker.  A
 * mapping would save the copy, but a file truncated while it is scanned
 * would raise SIGBUS and take the whole server down. */
static int scan_big(cs_worker *w, int fd, size_t got, size_t size, int lexer, unsigned cats,
                    unsigned live, size_t cap, cs_file_hits *out)
{
    char *buf = malloc(size + BUF_SLACK);
    if (!buf)
        return VT_ERR_NOMEM;
    memcpy(buf, w->buf, got);
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    memset(buf + got, 0, BUF_SLACK);
    int rc = cs_buf_scan(w, buf, got, lexer, cats, live, cap, out);
    free(buf); /* no index entry: a file this big is always read */
    return rc;
}

/* A file larger than the first read (the `got` bytes already in w->buf):
 * the rest is read after them, into the worker's buffer or, for a big
 * file, a buffer of its own.  Files of BIG_MAX or more are not searched:
 * no source file is that large, and reading one would cost its size in
 * memory per worker. */
static int scan_large(cs_worker *w, int fd, size_t got, int lexer, unsigned cats, unsigned live,
                      size_t cap, cs_file_hits *out)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= BIG_MAX)
        return 0;
    size_t size = (size_t)st.st_size;
    if (size < got)
        size = got; /* it shrank meanwhile: what was read */
    if (size >= BIG_READ)
        return scan_big(w, fd, got, size, lexer, cats, live, cap, out);
    if (worker_buf(w, size) < 0)
        return VT_ERR_NOMEM;
    while (got < size) {
        ssize_t r = read(fd, w->buf + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    memset(w->buf + got, 0, BUF_SLACK);
    note(w, fd, w->buf, got, lexer);
    return cs_buf_scan(w, w->buf, got, lexer, cats, live, cap, out);
}

int cs_file_scan(cs_worker *w, int dirfd, const char *name, int lexer, unsigned cats, unsigned live,
                 size_t cap, cs_file_hits *out)
{
    memset(out, 0, sizeof *out);
    /* Non-blocking: a FIFO put in a file's place must not hang the scan. */
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    if (worker_buf(w, FIRST_READ) < 0) {
        close(fd);
        return VT_ERR_NOMEM;
    }
    /* Most files fit in one read, and a regular file's read comes back
     * short only at its end: no fstat for them.  A directory or FIFO in
     * a file's place fails or reads nothing. */
    ssize_t r = read(fd, w->buf, FIRST_READ);
    int rc = 0;
    if (r == (ssize_t)FIRST_READ) {
        rc = scan_large(w, fd, FIRST_READ, lexer, cats, live, cap, out);
    } else if (r >= 0) {
        memset(w->buf + r, 0, BUF_SLACK);
        note(w, fd, w->buf, (size_t)r, lexer);
        if (r > 0)
            rc = cs_buf_scan(w, w->buf, (size_t)r, lexer, cats, live, cap, out);
    }
    close(fd);
    return rc;
}

/* Make w->dirfd the directory `rel` (length n) below `rootfd`: -1 when
 * it cannot be opened (its files then give no hits, like unreadable
 * ones). */
static int worker_dir(cs_worker *w, int rootfd, const char *rel, size_t n)
{
    if (w->dir && w->dirlen == n && memcmp(w->dir, rel, n) == 0)
        return 0;
    if (w->dirfd >= 0)
        close(w->dirfd);
    w->dirfd = -1;
    w->dirlen = (size_t)-1; /* no directory yet */
    if (VT_GROW(&w->dir, &w->dircap, n + 1) != 0)
        return VT_ERR_NOMEM;
    memcpy(w->dir, rel, n);
    w->dir[n] = '\0';
    w->dirlen = n;
    /* Relative to the root, opened once for the whole search: the root's
     * own components are not walked again for every directory. */
    w->dirfd = openat(rootfd, n ? w->dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    return 0;
}

int cs_worker_scan(cs_worker *w, int rootfd, const char *rel, int lexer, unsigned cats,
                   unsigned live, size_t cap, cs_file_hits *out)
{
    memset(out, 0, sizeof *out);
    const char *slash = strrchr(rel, '/');
    size_t n = slash ? (size_t)(slash - rel) : 0;
    int rc = worker_dir(w, rootfd, rel, n);
    if (rc < 0 || w->dirfd < 0)
        return rc;
    return cs_file_scan(w, w->dirfd, slash ? slash + 1 : rel, lexer, cats, live, cap, out);
}

int cs_worker_unchanged(cs_worker *w, int rootfd, const char *rel, const cs_ientry *old)
{
    const char *slash = strrchr(rel, '/');
    size_t n = slash ? (size_t)(slash - rel) : 0;
    struct stat st;
    if (worker_dir(w, rootfd, rel, n) < 0 || w->dirfd < 0 ||
        fstatat(w->dirfd, slash ? slash + 1 : rel, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
        return 0;
    cs_ident id;
    cs_ident_of(&st, &id);
    return cs_ident_eq(&id, &old->id);
}
