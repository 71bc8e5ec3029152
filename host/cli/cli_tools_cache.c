/* `vthost tools` from a cache validated by the state of its inputs.
 *
 * The key (cli_tools_key.c) is the state of every input file after the
 * options and environment that place them.  The cache file holds the
 * whole key, compared byte for byte, then the listing: a different key,
 * a missing file or one that is not the user's own private regular file
 * is a miss, and the start runs as always. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/own_file.h>
#include <vthost/plugin.h>
#include "cli_tools_cache.h"
#include "cli_tools_key.h"
#include "fd_write.h"
#include "host_data.h"
#include "log.h"
#include "monotime.h"
#include "paths.h"
#include "strbuf.h"
#include "strutil.h"

#define MAGIC "vthost-tools 3"
#define MAX_CACHE_FILE (1u << 20)
/* A change within one timestamp tick of the last one leaves the same
 * times behind: a listing made from files this fresh is not kept. */
#define UNSTABLE_NS (2 * 1000000000LL)

static struct {
    char *file; /* where the listing goes, or NULL: nothing to store */
    char *key;  /* bytes, NULs among them */
    size_t klen;
    int64_t newest_ns;      /* the latest mtime or ctime among the inputs */
    unsigned long warnings; /* said before the lookup */
    unsigned long allowed;  /* said since, between said_begin and _end */
    unsigned long before;
    vt_strbuf said; /* what those warnings wrote to stderr */
} C;

static void forget(void)
{
    free(C.file);
    free(C.key);
    strbuf_reset(&C.said);
    memset(&C, 0, sizeof C);
}

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The decimal number at *p followed by `end`, past which *p moves; -1
 * when there is none or it does not fit. */
static int parse_size(const char **p, const char *limit, char end, size_t *v)
{
    const char *s = *p;
    size_t n = 0;
    if (s >= limit || *s < '0' || *s > '9')
        return -1;
    for (; s < limit && *s >= '0' && *s <= '9'; s++) {
        if (n > (SIZE_MAX - 9) / 10)
            return -1;
        n = n * 10 + (size_t)(*s - '0');
    }
    if (s >= limit || *s != end)
        return -1;
    *p = s + 1;
    *v = n;
    return 0;
}

/* Prints the listing of `text` when its key is `key`; 1 when printed. */
static int replay(const char *text, size_t len, const char *key, size_t key_len)
{
    const char *p = text, *limit = text + len;
    size_t klen, olen, slen;
    if (len < sizeof MAGIC || memcmp(p, MAGIC " ", sizeof MAGIC) != 0)
        return 0;
    p += sizeof MAGIC;
    if (parse_size(&p, limit, ' ', &klen) || parse_size(&p, limit, ' ', &olen) ||
        parse_size(&p, limit, '\n', &slen))
        return 0;
    size_t off = (size_t)(p - text);
    if (klen > len - off || olen > len - off - klen || slen != len - off - klen - olen ||
        key_len != klen || memcmp(text + off, key, klen) != 0)
        return 0;
    const char *out = text + off + klen, *said = out + olen;
    if (slen && fd_write_all(STDERR_FILENO, said, slen) != 0)
        return 0;
    return fd_write_all(STDOUT_FILENO, out, olen) == 0;
}

/* <dir>/tools/<the identity's hash in hex> */
static char *cache_file(const char *dir, const char *ident, size_t len)
{
    char name[6 + 16 + 1] = "tools/";
    uint64_t h = fnv(ident, len);
    for (int i = 15; i >= 0; i--, h >>= 4)
        name[6 + i] = "0123456789abcdef"[h & 15];
    name[22] = '\0';
    return paths_join(dir, name);
}

int tools_cache_lookup(const host_options *ho, const char *format)
{
    forget();
    /* an agent's file or a verbose log are more than this key follows */
    if (ho->agent || ho->log_level < VT_LOG_WARNING)
        return 0;
    /* where host_data_cache_dir keeps it; made only when a listing is
     * stored (a lookup makes nothing) */
    char *dir = paths_xdg_vthost("XDG_CACHE_HOME", ".cache");
    tools_key k = {.text = VT_STRBUF_INIT};
    if (!dir || tools_key_build(&k, ho, format ? format : "names") != 0) {
        strbuf_reset(&k.text);
        free(dir);
        return 0;
    }
    C.file = cache_file(dir, k.text.data, k.ident_len);
    free(dir);
    C.klen = k.text.len;
    C.key = strbuf_take(&k.text);
    C.newest_ns = k.newest_ns;
    size_t len = 0;
    char *text = NULL;
    if (C.file && C.key)
        vt_own_file_read(C.file, 077, 1, MAX_CACHE_FILE, &text, &len);
    int hit = text && replay(text, len, C.key, C.klen);
    free(text);
    if (hit) /* nothing to store */
        forget();
    else /* nothing was said while the key was made: what is said from here on is counted */
        C.warnings = host_log_warnings();
    return hit;
}

void tools_cache_said_begin(void)
{
    if (!C.file)
        return;
    C.before = host_log_warnings();
    host_log_copy_to(&C.said);
}

void tools_cache_said_end(void)
{
    if (!C.file)
        return;
    host_log_copy_to(NULL);
    C.allowed += host_log_warnings() - C.before;
}

void tools_cache_store(const char *text)
{
    char *tmp = NULL;
    if (!C.file || !C.key || !text || C.said.failed ||
        host_log_warnings() - C.warnings != C.allowed || wall_now_ns() - C.newest_ns < UNSTABLE_NS)
        goto out;
    char *dir = NULL;
    int ok = host_data_cache_dir(&dir) == VT_OK; /* made 0700 when missing */
    char *slash = strrchr(C.file, '/');
    *slash = '\0';
    ok = ok && paths_mkdirs(C.file, 0700) == VT_OK;
    *slash = '/';
    free(dir);
    tmp = ok ? str_printf("%s.%d", C.file, (int)getpid()) : NULL;
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        goto out;
    }
    size_t klen = C.klen, olen = strlen(text), slen = C.said.len;
    int w = fprintf(f, MAGIC " %zu %zu %zu\n", klen, olen, slen) > 0 &&
            fwrite(C.key, 1, klen, f) == klen && fwrite(text, 1, olen, f) == olen &&
            (!slen || fwrite(C.said.data, 1, slen, f) == slen);
    if (fclose(f) != 0 || !w || rename(tmp, C.file) != 0)
        unlink(tmp);
out:
    free(tmp);
    forget();
}
