/* The permission engine's first stage: a call's subjects prepared for
 * matching (commands normalised with their variants, paths resolved
 * lexically and through links, protected and policy paths marked). */
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_match.h"
#include "perm_protect.h"
#include "perm_rules.h"
#include "strbuf.h"
#include "subjects.h"
#include "ws_conftab.h"
#include "ws_gitconf.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/grow.h>

static int is_edit(vt_subject_kind k)
{
    return k >= VT_SUBJECT_PATH_EDIT && k <= VT_SUBJECT_PATH_DELETE;
}

/* The hook directories and included config files the repositories'
 * configuration names (ws_gitconf.h), taken once per decision: a patch's
 * hundreds of paths are tested against one list instead of each asking
 * for it again (each ask re-validates the configuration files). */
typedef struct gitconf_list {
    cJSON *paths; /* NULL: not taken yet, or taken without memory */
    int taken;
} gitconf_list;

static int gitconf_protected(gitconf_list *g, const char *abs)
{
    if (!g->taken) {
        g->paths = ws_gitconf_protected_paths(); /* NULL without memory: asked per path */
        g->taken = 1;
    }
    return ws_gitconf_protected_in(g->paths, abs);
}

/* 1 when `abs` is a protected path of the workspace: a name of the
 * host's table of what starts programs outside the sandbox when a person
 * or another program later works in the workspace (ws_conftab.h:
 * repositories, vthost's own directory, IDE and agent configuration), at
 * any depth; or a hook directory or included config file a repository's
 * configuration names (ws_gitconf.h). */
static int perm_path_protected(gitconf_list *g, const char *workspace, const char *abs)
{
    const char *rel = perm_path_below(workspace, abs);
    if (!rel)
        return 0;
    const char *p = rel;
    while (*p) {
        size_t len = strcspn(p, "/");
        if (ws_conftab_protected_name(p, len))
            return 1;
        p += len;
        while (*p == '/')
            p++;
    }
    return gitconf_protected(g, abs);
}

/* ---- preparation ------------------------------------------------------ */

/* Resolved directories of one decision: a patch's paths share a few
 * directories, so each is resolved once.  When a decision has many
 * paths, a directory is also listed once (d_type says which entries are
 * symlinks) instead of one lstat per path. */
typedef struct dir_entry {
    char *dir, *real;
    int listed;   /* links[] is complete for this directory */
    char **links; /* names of symlinks (or entries of unknown type) */
    size_t nlinks;
} dir_entry;

typedef struct dir_cache {
    dir_entry e[16];
    size_t n;
    int list_dirs;
    gitconf_list gitconf; /* the decision's protected repository paths */
} dir_cache;

static void dir_cache_free(dir_cache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->e[i].dir);
        free(c->e[i].real);
        perm_strings_free(c->e[i].links, c->e[i].nlinks);
    }
    cJSON_Delete(c->gitconf.paths);
}

static void list_links(dir_entry *e)
{
    DIR *d = opendir(e->real);
    if (!d)
        return;
    struct dirent *de;
    size_t seen = 0, cap = 0;
    int ok = 1;
    while (ok && (de = readdir(d))) {
        if (++seen > 4096) {
            ok = 0; /* a huge directory: per-path lstat is cheaper */
            break;
        }
        if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
            continue;
        if (VT_GROW(&e->links, &cap, e->nlinks + 1) != 0) {
            ok = 0;
            break;
        }
        if (!(e->links[e->nlinks] = strdup(de->d_name)))
            ok = 0;
        else
            e->nlinks++;
    }
    closedir(d);
    e->listed = ok;
}

static int has_dotdot(const char *p)
{
    for (const char *q = strstr(p, ".."); q; q = strstr(q + 1, ".."))
        if ((q == p || q[-1] == '/') && (q[2] == 0 || q[2] == '/'))
            return 1;
    return 0;
}

static char *resolve(dir_cache *c, const char *base, const char *raw, const char *lex)
{
    const char *slash = strrchr(lex, '/');
    if (has_dotdot(raw) || !slash || slash == lex)
        return perm_path_resolved(base, raw);
    size_t dl = (size_t)(slash - lex);
    dir_entry *e = NULL;
    for (size_t i = 0; i < c->n && !e; i++)
        if (strlen(c->e[i].dir) == dl && memcmp(c->e[i].dir, lex, dl) == 0)
            e = &c->e[i];
    if (!e) {
        char *d = strndup(lex, dl);
        char *r = d ? perm_path_resolved("/", d) : NULL;
        if (!d || !r || c->n == 16) {
            free(d);
            free(r);
            return perm_path_resolved(base, raw);
        }
        e = &c->e[c->n++];
        memset(e, 0, sizeof *e);
        e->dir = d;
        e->real = r;
        if (c->list_dirs)
            list_links(e);
    }
    int link = 0;
    if (e->listed) {
        for (size_t i = 0; i < e->nlinks && !link; i++)
            link = strcmp(e->links[i], slash + 1) == 0;
    } else {
        struct stat st;
        link = lstat(lex, &st) == 0 && S_ISLNK(st.st_mode);
    }
    if (link)
        return perm_path_resolved(base, raw);
    size_t rl = strcmp(e->real, "/") == 0 ? 0 : strlen(e->real), ll = strlen(slash);
    char *out = malloc(rl + ll + 1);
    if (!out)
        return NULL;
    memcpy(out, e->real, rl);
    memcpy(out + rl, slash, ll + 1);
    return out;
}

/* Escalation and the call's directory, from the subjects and the
 * arguments.  *cwd is the first directory subject, or NULL. */
static void prepare_escalation(perm_eval *ev, const vt_subjects *subjects, const cJSON *args,
                               const char **cwd)
{
    size_t n = subjects ? subjects->count : 0;
    *cwd = NULL;
    for (size_t i = 0; i < n; i++) {
        const subject *s = &subjects->items[i];
        if (s->kind == VT_SUBJECT_CWD && !*cwd)
            *cwd = s->value;
        if (s->kind == VT_SUBJECT_ESCALATION) {
            ev->escalated = 1;
            ev->justification = s->value;
        }
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(args, "sandbox_permissions");
    if (cJSON_IsString(sp) && !strcmp(sp->valuestring, "with_additional_permissions"))
        ev->extends_sandbox = ev->escalated;
    if (cJSON_IsString(sp) && (!strcmp(sp->valuestring, "require_escalated") ||
                               !strcmp(sp->valuestring, "bypass_sandbox"))) {
        ev->escalated = 1;
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(args, "justification");
        if (!ev->justification && cJSON_IsString(j))
            ev->justification = j->valuestring;
    }
}

/* A command subject: normalised, its wrapper look-through forms, and for
 * an exec tool the policy file a known writer names (or an opaque one). */
static int prepare_command(perm_eval *ev, perm_subj *d, const char *value)
{
    d->norm = perm_command_normalise(value);
    if (!d->norm || perm_command_variants(d->norm, &d->variants, &d->nvariants) < 0)
        return VT_ERR_NOMEM;
    if (ev->is_exec && perm_command_writes(ev->st, ev->cwd_lex, value, &d->policy, &d->opaque) < 0)
        return VT_ERR_NOMEM;
    return 0;
}

/* A path subject: its lexical and resolved forms, where they are, and
 * whether the edit is protected or changes a policy file. */
static int prepare_path(perm_eval *ev, dir_cache *dc, perm_subj *d, vt_subject_kind kind,
                        const char *value)
{
    const perm_settings *st = ev->st;
    const char *p = value;
    if (ev->is_exec) {
        /* a redirect target as the shell sees it: literal, or
         * opaque when it expands ($X, ~, globs, braces, $'..') */
        int lit = perm_shell_word(value, &d->lit);
        if (lit < 0 || !d->lit)
            return VT_ERR_NOMEM;
        d->opaque = !lit;
        p = d->lit;
    }
    d->lex = perm_path_lexical(ev->cwd_lex, p);
    d->res = d->lex ? resolve(dc, ev->cwd_lex, p, d->lex) : NULL;
    if (!d->lex || !d->res)
        return VT_ERR_NOMEM;
    d->rel_lex = perm_path_below(ev->cwd_lex, d->lex);
    d->rel_res = perm_path_below(ev->cwd_res, d->res);
    d->inside = perm_path_within(st->workspace, d->lex) && perm_path_within(st->workspace, d->res);
    d->protect = is_edit(kind) && (perm_path_protected(&dc->gitconf, st->workspace, d->lex) ||
                                   perm_path_protected(&dc->gitconf, st->workspace, d->res));
    if (is_edit(kind))
        d->policy = perm_policy_hit(st, d->lex, d->res);
    return 0;
}

int perm_eval_prepare(perm_eval *ev, const perm_settings *st, const perm_agent *agent,
                      const char *tool, uint32_t effects, const vt_subjects *subjects,
                      const cJSON *args)
{
    memset(ev, 0, sizeof *ev);
    ev->st = st;
    ev->agent = agent;
    ev->tool = tool;
    ev->effects = effects;
    ev->is_exec = perm_tool_command(st->tools, tool) || (effects & VT_EFFECT_EXECUTES);
    size_t n = subjects ? subjects->count : 0;
    const char *cwd;
    prepare_escalation(ev, subjects, args, &cwd);
    size_t any_path = 0;
    for (size_t i = 0; i < n; i++)
        any_path += perm_kind_is_path(subjects->items[i].kind) != 0;
    ev->cwd_lex = perm_path_lexical(st->workspace, cwd ? cwd : ".");
    /* the workspace root is canonical already; other directories matter
     * only to path subjects */
    ev->cwd_res = any_path && cwd ? perm_path_resolved(st->workspace, cwd)
                                  : (ev->cwd_lex ? strdup(ev->cwd_lex) : NULL);
    ev->subj = calloc(n ? n : 1, sizeof *ev->subj);
    if (!ev->cwd_lex || !ev->cwd_res || !ev->subj)
        return VT_ERR_NOMEM;
    dir_cache dc = {0};
    dc.list_dirs = any_path >= 8;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const subject *s = &subjects->items[i];
        perm_subj *d = &ev->subj[ev->nsubj++];
        d->kind = s->kind;
        d->raw = s->value;
        if (s->kind == VT_SUBJECT_COMMAND)
            rc = prepare_command(ev, d, s->value);
        else if (perm_kind_is_path(s->kind))
            rc = prepare_path(ev, &dc, d, s->kind, s->value);
    }
    dir_cache_free(&dc);
    return rc;
}

void perm_eval_free(perm_eval *ev)
{
    for (size_t i = 0; i < ev->nsubj; i++) {
        perm_subj *d = &ev->subj[i];
        free(d->norm);
        perm_strings_free(d->variants, d->nvariants);
        free(d->lex);
        free(d->res);
        free(d->lit);
    }
    free(ev->subj);
    free(ev->cwd_lex);
    free(ev->cwd_res);
    free(ev->steps);
    rx_match_data_free(ev->md);
    memset(ev, 0, sizeof *ev);
}
