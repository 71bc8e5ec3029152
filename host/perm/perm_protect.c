/* Policy-file protection: which paths hold policy, the shell words that
 * name a path only after expansion (opaque), and the known writers whose
 * file arguments would change a policy file. */
#include "perm_commands.h"
#include "perm_match.h"
#include "perm_protect.h"
#include "services.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

/* `s` as a case-insensitive view of the filesystem may see it: NFKC
 * and Unicode case folding (ASCII folding when it is not valid UTF-8).
 * malloc'd, or NULL. */
static char *fold(const char *s)
{
    char *f = (char *)utf8proc_NFKC_Casefold((const utf8proc_uint8_t *)s);
    if (f)
        return f;
    f = strdup(s);
    for (char *p = f; p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return f;
}

int perm_policy_add(perm_settings *st, const char *path)
{
    if (!path || path[0] != '/')
        return 0;
    char *v[4] = {perm_path_lexical("/", path), NULL, NULL, NULL};
    v[1] = v[0] ? perm_path_resolved("/", v[0]) : NULL;
    v[2] = v[0] ? fold(v[0]) : NULL;
    v[3] = v[1] ? fold(v[1]) : NULL;
    /* one spare slot: the list stays NULL-ended (permission_policy_paths) */
    if (!v[0] || !v[1] || !v[2] || !v[3] ||
        VT_GROW(&st->policy, &st->cap_policy, st->npolicy + 3) != 0 ||
        VT_GROW(&st->policy_fold, &st->cap_fold, st->npolicy + 3) != 0) {
        for (int i = 0; i < 4; i++)
            free(v[i]);
        return VT_ERR_NOMEM;
    }
    char **np = st->policy, **nf = st->policy_fold;
    np[st->npolicy] = v[0];
    nf[st->npolicy++] = v[2];
    np[st->npolicy] = v[1];
    nf[st->npolicy++] = v[3];
    np[st->npolicy] = nf[st->npolicy] = NULL;
    return 0;
}

/* A file inside a policy directory (bounded walk) that is `want`. */
static int same_inode_below(int fd, const struct stat *want, int depth, size_t *budget)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    int found = 0;
    struct dirent *e;
    while (!found && *budget && (e = readdir(d))) {
        (*budget)--;
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(sb.st_mode))
            found = sb.st_dev == want->st_dev && sb.st_ino == want->st_ino;
        else if (S_ISDIR(sb.st_mode) && depth < 4) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                found = same_inode_below(sub, want, depth + 1, budget);
        }
    }
    closedir(d);
    return found;
}

/* The policy path (lexical form) `res`, an existing file with more than
 * one name, is a hard link of: writing through the other name changes
 * the policy as surely as writing the policy's own name. */
static const char *hard_link_hit(const perm_settings *st, const char *res)
{
    struct stat want;
    if (!res || stat(res, &want) != 0 || !S_ISREG(want.st_mode) || want.st_nlink < 2)
        return NULL;
    for (size_t i = 1; i < st->npolicy; i += 2) {
        struct stat sb;
        if (stat(st->policy[i], &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) && sb.st_dev == want.st_dev && sb.st_ino == want.st_ino)
            return st->policy[i - 1];
        size_t budget = 4096;
        int fd = S_ISDIR(sb.st_mode) ? open(st->policy[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (fd >= 0 && same_inode_below(fd, &want, 0, &budget))
            return st->policy[i - 1];
    }
    return NULL;
}

const char *perm_policy_hit(const perm_settings *st, const char *lex, const char *res)
{
    for (size_t i = 0; i < st->npolicy; i++)
        if ((lex && perm_path_within(st->policy[i], lex)) ||
            (res && perm_path_within(st->policy[i], res)))
            return st->policy[i & ~(size_t)1]; /* its lexical form */
    /* a case variant or a compatibility look-alike: the same file on a
     * case-insensitive filesystem, so it asks everywhere */
    char *fl = lex ? fold(lex) : NULL;
    char *fr = res ? fold(res) : NULL;
    const char *hit = NULL;
    for (size_t i = 0; !hit && i < st->npolicy && st->policy_fold; i++)
        if ((fl && perm_path_within(st->policy_fold[i], fl)) ||
            (fr && perm_path_within(st->policy_fold[i], fr)))
            hit = st->policy[i & ~(size_t)1];
    free(fl);
    free(fr);
    return hit ? hit : hard_link_hit(st, res);
}

/* ---- shell words -------------------------------------------------------- */

/* The words of a command the exec plugin reported, of the variants made
 * of it and of a raw redirect target are read by the splitter that
 * rendered them (vt_splitter_v1.words): one shell-word reader, not words
 * carried on subjects beside it (docs/internals.md, "Shell words").  Without it (no exec plugin, or one built before ABI 1.8) a
 * word counts as literal only when it holds nothing a shell reads
 * specially, so a quoted or expanding path is opaque: asked, never
 * passed. */
static const vt_splitter_v1 *word_reader(void)
{
    const vt_splitter_v1 *s = services_lookup(VT_SPLITTER_SERVICE);
    size_t end = offsetof(vt_splitter_v1, words) + sizeof s->words;
    return s && s->struct_size >= end && s->words ? s : NULL;
}

static int plain_word(const char *w)
{
    if (!*w || *w == '~')
        return 0;
    for (; *w; w++)
        if (!isalnum((unsigned char)*w) && !strchr("_@%+=:,./-~^]", *w))
            return 0;
    return 1;
}

typedef struct wargs {
    char **w;
    int *lit;
    size_t n, capw, caplit;
} wargs;

static void wargs_free(wargs *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->w[i]);
    free(a->w);
    free(a->lit);
}

static int wargs_add(wargs *a, const char *text, size_t len, int lit)
{
    int grown =
        VT_GROW(&a->w, &a->capw, a->n + 1) == 0 && VT_GROW(&a->lit, &a->caplit, a->n + 1) == 0;
    char *t = grown ? strndup(text, len) : NULL;
    if (!t)
        return VT_ERR_NOMEM;
    a->w[a->n] = t;
    a->lit[a->n++] = lit;
    return 0;
}

/* The words of `cmd`; text the reader cannot take as words is one
 * opaque word. */
static int split(const char *cmd, wargs *a)
{
    memset(a, 0, sizeof *a);
    const vt_splitter_v1 *sp = word_reader();
    int rc = 0;
    if (sp) {
        cJSON *arr = NULL;
        int r = sp->words(cmd, &arr);
        if (r == VT_ERR_NOMEM)
            return r;
        const cJSON *it, *list = r == VT_OK ? arr : NULL;
        cJSON_ArrayForEach(it, list)
        {
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "text");
            int lit = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "literal"));
            if (rc == 0 && cJSON_IsString(t))
                rc = wargs_add(a, t->valuestring, strlen(t->valuestring), lit);
        }
        cJSON_Delete(arr);
        if (r != VT_OK && rc == 0)
            rc = wargs_add(a, cmd, strlen(cmd), 0);
        return rc;
    }
    for (const char *p = cmd; rc == 0;) {
        p += strspn(p, " \t\n");
        if (!*p)
            break;
        size_t len = strcspn(p, " \t\n");
        char *w = strndup(p, len);
        rc = w ? wargs_add(a, p, len, plain_word(w)) : VT_ERR_NOMEM;
        free(w);
        p += len;
    }
    return rc;
}

int perm_shell_word(const char *raw, char **literal)
{
    wargs a;
    int rc = split(raw, &a);
    if (rc < 0) {
        wargs_free(&a);
        return rc;
    }
    /* more than one word, or none: not one literal path */
    int lit = a.n == 1 && a.lit[0];
    *literal = strdup(a.n ? a.w[0] : raw);
    wargs_free(&a);
    return *literal ? lit : VT_ERR_NOMEM;
}

/* ---- known writers ------------------------------------------------------- */

typedef struct wctx {
    const perm_settings *st;
    const char *cwd;
    const char *hit;
    int opaque;
} wctx;

/* A file argument: does it name (or lie inside) a policy path?  With
 * `tree`, a directory above a policy path counts too. */
static void check_path_tree(wctx *c, const char *word, int lit, int tree)
{
    if (!lit) {
        c->opaque = 1;
        return;
    }
    if (c->hit || !*word)
        return;
    char *lex = perm_path_lexical(c->cwd, word);
    char *res = lex ? perm_path_resolved(c->cwd, word) : NULL;
    c->hit = perm_policy_hit(c->st, lex, res);
    for (size_t i = 0; tree && !c->hit && i < c->st->npolicy; i++)
        if ((lex && perm_path_within(lex, c->st->policy[i])) ||
            (res && perm_path_within(res, c->st->policy[i])))
            c->hit = c->st->policy[i & ~(size_t)1];
    free(lex);
    free(res);
}

static void check_path(wctx *c, const char *word, int lit) { check_path_tree(c, word, lit, 0); }

static int is_dir(const char *cwd, const char *word)
{
    char *res = perm_path_resolved(cwd, word);
    struct stat sb;
    int d = res && stat(res, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(res);
    return d;
}

/* cp/mv/install/ln SRC... DIR writes DIR/basename(SRC): a source named
 * like a policy entry (or "." for a directory's contents) lands on it. */
static void check_into_dir(wctx *c, const wargs *a, size_t first, size_t dest)
{
    if (c->hit || !a->lit[dest] || !is_dir(c->cwd, a->w[dest]))
        return;
    for (size_t i = first; i < a->n && !c->hit; i++) {
        if (i == dest || a->w[i][0] == '-')
            continue;
        const char *w = a->w[i];
        size_t len = strlen(w);
        while (len > 1 && w[len - 1] == '/')
            len--;
        const char *base = w + len;
        while (base > w && base[-1] != '/')
            base--;
        size_t bl = (size_t)(w + len - base);
        int contents = !a->lit[i] || (bl == 1 && base[0] == '.');
        for (size_t k = 0; k < c->st->npolicy && !c->hit; k += 2) {
            const char *pp = c->st->policy[k];
            const char *pb = strrchr(pp, '/');
            if (!pb)
                continue;
            char *dirpath = strndup(pp, (size_t)(pb - pp) ? (size_t)(pb - pp) : 1);
            char *lex = dirpath ? perm_path_lexical(c->cwd, a->w[dest]) : NULL;
            char *res = lex ? perm_path_resolved(c->cwd, a->w[dest]) : NULL;
            int same = lex && res && (strcmp(lex, dirpath) == 0 || strcmp(res, dirpath) == 0);
            if (same && (contents || (strlen(pb + 1) == bl && memcmp(pb + 1, base, bl) == 0)))
                c->hit = pp;
            free(dirpath);
            free(lex);
            free(res);
        }
    }
}

static void check_writer(wctx *c, const wargs *a, size_t at)
{
    const char *prog = strrchr(a->w[at], '/');
    prog = prog ? prog + 1 : a->w[at];
    perm_write_mode how = perm_cmd_writer(prog);
    if (!how || !a->lit[at])
        return;
    size_t first = at + 1;
    if (how == PERM_W_INPLACE) {
        int inplace = 0;
        for (size_t i = first; i < a->n; i++)
            inplace |= perm_cmd_in_place(prog, a->w[i]);
        if (!inplace)
            return;
        how = PERM_W_ALL;
    }
    size_t last = 0;
    int have_last = 0, dashdash = 0;
    for (size_t i = first; i < a->n; i++) {
        const char *w = a->w[i];
        if (!dashdash && strcmp(w, "--") == 0) {
            dashdash = 1;
            continue;
        }
        if (!dashdash && w[0] == '-' && w[1]) {
            /* --target-directory=DIR, --output=FILE, -t DIR */
            const char *eq = strchr(w, '=');
            if (eq)
                check_path(c, eq + 1, a->lit[i]);
            if ((strcmp(w, "-t") == 0 || strcmp(w, "--target-directory") == 0) && i + 1 < a->n) {
                check_path(c, a->w[i + 1], a->lit[i + 1]);
                check_into_dir(c, a, first, i + 1);
                i++;
            }
            continue;
        }
        if (how == PERM_W_DD) {
            if (strncmp(w, "of=", 3) == 0)
                check_path(c, w + 3, a->lit[i]);
            continue;
        }
        if (how == PERM_W_ALL || how == PERM_W_MOVE || how == PERM_W_TREE)
            check_path_tree(c, w, a->lit[i], how == PERM_W_TREE);
        /* mv's sources: moving a directory above a policy file moves it */
        if (how == PERM_W_MOVE && have_last)
            check_path_tree(c, a->w[last], a->lit[last], 1);
        last = i;
        have_last = 1;
    }
    if ((how == PERM_W_LAST || how == PERM_W_MOVE) && have_last) {
        check_path(c, a->w[last], a->lit[last]);
        check_into_dir(c, a, first, last);
    }
}

int perm_command_writes(const perm_settings *st, const char *cwd, const char *cmd, const char **hit,
                        int *opaque)
{
    *hit = NULL;
    *opaque = 0;
    char **vars = NULL;
    size_t nvars = 0;
    int rc = perm_command_variants(cmd, &vars, &nvars);
    if (rc < 0)
        return rc;
    wctx c = {st, cwd, NULL, 0};
    for (size_t v = 0; v <= nvars && rc == 0; v++) {
        wargs a;
        rc = split(v == 0 ? cmd : vars[v - 1], &a);
        if (rc == 0 && a.n)
            check_writer(&c, &a, 0);
        wargs_free(&a);
    }
    perm_strings_free(vars, nvars);
    *hit = c.hit;
    *opaque = c.opaque;
    return rc;
}
