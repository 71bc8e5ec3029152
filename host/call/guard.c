/* Anti-blind-editing: count effective workspace mutations and, once
 * max_unverified_mutations of them happened without a verification run in
 * between, refuse further mutations until one completes.
 *
 * A mutation is an apply_patch-like tool's note (VT_NOTE_MUTATION), or a
 * command that changed workspace files: the workspace index's events
 * between a mark taken before the command and its end (ws_index.h;
 * creates, writes, renames, deletes and mode changes in any directory,
 * new ones included), or, where the index cannot follow the workspace by
 * events (no inotify, the watch limit), metadata snapshots taken before
 * and after the call (guard_snapshot.c).  A
 * verification is judged from what the command actually executed, as
 * the exec plugin reports it at exit (VT_NOTE_COMMAND_RAN): every program
 * the command text ran must be a verification run or neutral, at least
 * one a verification, none refused, and the command must have completed
 * (exited by itself, with require_success: with 0).
 *
 * Configuration, [tools.anti_blind_editing] in vtcode.toml:
 *   enabled = true
 *   max_unverified_mutations = 4
 *   verification_commands = [...]             replaces the defaults
 *   additional_verification_commands = [...]  extends them
 *   require_success = false     only runs that exit 0 verify
 *   detect_shell_edits = true   count what commands change in the workspace
 *   max_snapshot_entries = 100000 */
#include "guard.h"
#include "guard_config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/services.h>
#include "call.h"
#include "call_ops.h"
#include "guard_match.h"
#include "guard_output.h"
#include "guard_snapshot.h"
#include "guard_state.h"
#include "paths.h"
#include "services.h"
#include "strutil.h"
#include "subjects.h"
#include "text_escape.h"
#include "ws_index.h"

#define NAMES_SHOWN 5
/* Paths a command changed that are looked at one by one (is a
 * verification's change a source or build output?); beyond them a
 * verification is not trusted. */
#define NAMES_READ 4096

struct guard_call {
    int locked; /* st is held for the whole run */
    guard_state st;
    int mutated;       /* the tool noted an effective mutation */
    int verified;      /* a command it finished was a verification */
    int exited;        /* its command ended within the call */
    size_t bg_sources; /* sources earlier calls' commands changed since the last look */
    long pending_before;
    guard_snapshot *before; /* commands without events: the workspace before */
    ws_index *index;        /* commands with events: the index and the mark */
    ws_mark mark;
};

/* A command that outlives its call (a session) goes on changing the
 * workspace: its changes are the index's events after the call, counted
 * at the next guarded call while any session lives. */
static struct background_watch {
    pthread_mutex_t mu;
    int on;
    ws_mark mark;
} bg_watch = {.mu = PTHREAD_MUTEX_INITIALIZER};

static guard_settings guard_cfg;

int guard_init(const cJSON *config, const char *workspace, char **err)
{
    guard_fini();
    guard_cfg.workspace = workspace;
    int rc = guard_settings_read(config, &guard_cfg, err);
    if (rc)
        guard_fini();
    return rc;
}

void guard_fini(void)
{
    guard_rules_free(guard_cfg.rules);
    guard_cfg.rules = NULL;
    guard_cfg.enabled = 0;
    guard_cfg.workspace = NULL;
    guard_state_reset_local();
}

/* ---- verification ------------------------------------------------------ */

/* A command text with nothing a shell would interpret: its words are
 * the one program it runs.  Only used when no watcher reported. */
static int plain_text(const char *s)
{
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    " _./:=,+@%-",
                    *s))
            return 0;
    return 1;
}

static int text_verifies(const char *cmd)
{
    if (!cmd || !plain_text(cmd))
        return 0;
    char **w;
    size_t n = guard_split_words(cmd, &w);
    int k = n ? guard_classify(guard_cfg.rules, w, n, guard_cfg.workspace) : -1;
    guard_free_words(w, n);
    return k == 1;
}

/* What a finished command ran (vt_command_ran): every program a
 * verification or neutral, at least one a verification, none refused,
 * the list complete.  Without a list, the command text alone. */
static int ran_verifies(const vt_command_ran *r)
{
    if (!r->programs)
        return text_verifies(r->command);
    if (!r->complete || r->refused > 0)
        return 0;
    int verifies = 0;
    for (size_t i = 0; r->programs[i]; i++) {
        size_t argc = 0;
        while (r->programs[i][argc])
            argc++;
        int k = argc ? guard_classify(guard_cfg.rules, (char *const *)r->programs[i], argc,
                                      guard_cfg.workspace)
                     : -1;
        if (k < 0)
            return 0;
        verifies |= k == 1;
    }
    return verifies;
}

/* The note's text form (VT_NOTE_COMMAND_RAN, from plugins built before
 * ABI 1.11), read into the struct: the one place the host parses it. */
typedef struct ran_text {
    cJSON *tree;         /* the parsed report: the words point into it */
    const char ***argvs; /* the programs' argv arrays, NULL-ended */
    const char **words;  /* every argv's words, each argv NULL-ended */
} ran_text;

/* A malformed report is read as one that does not verify. */
static void ran_from_text(const char *detail, long exit_code, ran_text *t, vt_command_ran *r)
{
    memset(r, 0, sizeof *r);
    memset(t, 0, sizeof *t);
    r->struct_size = sizeof *r;
    r->exit_code = exit_code;
    t->tree = cJSON_Parse(detail ? detail : "");
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(t->tree, "command");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(t->tree, "programs");
    r->command = cJSON_IsString(cmd) ? cmd->valuestring : NULL;
    r->complete = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(t->tree, "complete"));
    r->refused = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t->tree, "refused")) > 0;
    if (!list)
        return;
    size_t n = 0, nwords = 0;
    const cJSON *p, *a;
    cJSON_ArrayForEach(p, list)
    {
        n++;
        nwords += (size_t)cJSON_GetArraySize(p) + 1;
    }
    t->argvs = cJSON_IsArray(list) ? calloc(n + 1, sizeof *t->argvs) : NULL;
    t->words = t->argvs ? calloc(nwords ? nwords : 1, sizeof *t->words) : NULL;
    r->programs = (const char *const *const *)t->argvs;
    if (!t->words) {
        r->refused = 1; /* unreadable: not a verification */
        return;
    }
    size_t i = 0, w = 0;
    cJSON_ArrayForEach(p, list)
    {
        t->argvs[i++] = &t->words[w];
        r->refused += !cJSON_IsArray(p) || !cJSON_GetArraySize(p);
        cJSON_ArrayForEach(a, p)
        {
            r->refused += !cJSON_IsString(a);
            t->words[w++] = cJSON_IsString(a) ? a->valuestring : "";
        }
        t->words[w++] = NULL;
    }
}

static int text_report_verifies(const char *detail, long exit_code)
{
    ran_text t;
    vt_command_ran r;
    ran_from_text(detail, exit_code, &t, &r);
    int v = ran_verifies(&r);
    free(t.argvs);
    free(t.words);
    cJSON_Delete(t.tree);
    return v;
}

static int completed(long exit_code)
{
    /* 126/127: not runnable or not found; 128+N: ended by a signal. */
    return guard_cfg.require_success ? exit_code == 0 : exit_code >= 0 && exit_code < 126;
}

/* ---- would a command mutate? -------------------------------------------- */

static int inside_workspace(const char *cwd, const char *path)
{
    char *joined = path[0] == '/' ? strdup(path) : paths_join(cwd, path);
    char *out = NULL;
    int rc = joined ? paths_resolve(guard_cfg.workspace, joined, 0, &out) : VT_ERR_NOMEM;
    free(joined);
    free(out);
    return rc != VT_ERR_OUTSIDE;
}

/* What the call's subjects say it would change in the workspace: a
 * malloc'd description, or NULL. */
static char *would_mutate(const vt_subjects *subj)
{
    const char *cwd = guard_cfg.workspace ? guard_cfg.workspace : ".";
    for (size_t i = 0; subj && i < subj->count; i++) {
        const subject *s = &subj->items[i];
        if (s->kind == VT_SUBJECT_CWD) {
            cwd = s->value;
        } else if (s->kind == VT_SUBJECT_PATH_EDIT || s->kind == VT_SUBJECT_PATH_CREATE ||
                   s->kind == VT_SUBJECT_PATH_DELETE) {
            if (!guard_cfg.workspace || inside_workspace(cwd, s->value))
                return str_printf("it writes %s", s->value);
        } else if (s->kind == VT_SUBJECT_COMMAND) {
            char **w;
            size_t n = guard_split_words(s->value, &w);
            const char *what = NULL;
            char *why = n && guard_known_writer(w, n, &what)
                            ? str_printf("%s changes files (`%s`)", what, s->value)
                            : NULL;
            guard_free_words(w, n);
            if (why)
                return why;
        }
    }
    return NULL;
}

/* ---- the call ------------------------------------------------------------ */

static cJSON *blocked_response(const vt_call *call, long pending, const char *because)
{
    char *hint = str_printf(
        "%ld workspace changes since the last verification (the limit is %ld): run a "
        "verification command through exec_command (e.g. make, ctest, cmake --build, cargo "
        "test, go test, npm test, pytest) and let it complete, then retry. Reads, "
        "code_search, search_tools and commands that change no files stay allowed.",
        pending, guard_cfg.threshold);
    /* `because` quotes a file name or a command: one line, every byte visible */
    char *shown = text_escape(because, 0);
    char *error = shown ? str_printf("Blocked by anti-blind-editing: this command would "
                                     "change the workspace (%s); verify your changes first.",
                                     shown)
                        : NULL;
    free(shown);
    cJSON *r = cJSON_CreateObject();
    if (!r) {
        free(hint);
        free(error);
        return NULL;
    }
    cJSON_AddBoolToObject(r, "success", 0);
    cJSON_AddBoolToObject(r, "blocked", 1);
    cJSON_AddStringToObject(r, "failure_kind", "anti_blind_editing_verification_required");
    cJSON_AddStringToObject(r, "tool", call->tool->t.name ? call->tool->t.name : "");
    cJSON_AddNumberToObject(r, "pending_mutations", (double)pending);
    cJSON_AddNumberToObject(r, "max_unverified_mutations", (double)guard_cfg.threshold);
    cJSON_AddStringToObject(r, "error",
                            error ? error
                                  : "Blocked by anti-blind-editing: verify your "
                                    "changes first.");
    cJSON_AddStringToObject(r, "hint", hint ? hint : "run a verification command first");
    free(hint);
    free(error);
    return r;
}

static char *name_list(char **names, size_t shown, size_t total);

/* Before a command: a mark in the index's change log, or, when the index
 * cannot follow the workspace by events, a snapshot. */
static void watch_begin(vt_call *call, struct guard_call *g)
{
    ws_index *ix = ws_index_current();
    const char *why = NULL;
    if (ix && ws_index_refresh(ix, 1, &why) == VT_OK && ws_index_event_driven(ix)) {
        g->index = ix;
        g->mark = ws_index_mark(ix);
        return;
    }
    if (why)
        call_warn(call, "workspace index: %s", why);
    if (guard_snapshot_take(guard_cfg.workspace, guard_cfg.max_entries, &g->before) != VT_OK)
        g->before = NULL;
}

/* After it: how many workspace paths it changed, up to NAMES_READ named. */
static size_t watch_end(vt_call *call, struct guard_call *g, char **names)
{
    size_t changed = 0;
    if (g->index) {
        const char *why = NULL;
        ws_index_refresh(g->index, 1, &why);
        int complete = 1;
        changed = ws_index_changes(g->index, g->mark, 1, names, NAMES_READ, &complete);
        if (why)
            call_warn(call, "workspace index: %s", why);
        if (!complete && !names[0])
            names[0] = strdup("(too many changes to name: events were lost)");
    } else if (g->before) {
        guard_snapshot *after = NULL;
        if (guard_snapshot_take(guard_cfg.workspace, guard_cfg.max_entries, &after) == VT_OK)
            changed = guard_snapshot_diff(g->before, after, names, NAMES_READ);
        if (guard_snapshot_cut(g->before) || guard_snapshot_cut(after))
            call_warn(call,
                      "anti-blind-editing: the workspace has more than %zu entries "
                      "(max_snapshot_entries), so files made or removed beyond "
                      "them were not counted; raise the limit, or the inotify "
                      "watch limit so that changes are counted by events",
                      guard_cfg.max_entries);
        guard_snapshot_free(after);
        guard_snapshot_free(g->before);
    }
    return changed;
}

static int sessions_live(void)
{
    const vt_sessions_v1 *s = services_lookup(VT_SESSIONS_SERVICE);
    return s && s->struct_size >= sizeof(vt_sessions_v1) ? s->live_count() : 0;
}

/* What commands still running from earlier calls changed since the last
 * look (0 when none runs, or the index cannot say). */
static void free_names(char **names, size_t n);

/* *names: NULL when nothing runs, else NAMES_READ slots the caller frees. */
static size_t background_changes(char ***names)
{
    size_t n = 0;
    *names = NULL;
    pthread_mutex_lock(&bg_watch.mu);
    ws_index *ix = ws_index_current();
    if (bg_watch.on && ix && (*names = calloc(NAMES_READ, sizeof **names))) {
        int complete = 1;
        ws_index_refresh(ix, 1, NULL);
        n = ws_index_changes(ix, bg_watch.mark, 1, *names, NAMES_READ, &complete);
        bg_watch.mark = ws_index_mark(ix);
        if (!sessions_live())
            bg_watch.on = 0;
    }
    pthread_mutex_unlock(&bg_watch.mu);
    return n;
}

/* After a call: from now on, look again from here; a command that did
 * not end within its call is followed on. */
static void background_after(const struct guard_call *g)
{
    pthread_mutex_lock(&bg_watch.mu);
    ws_index *ix = ws_index_current();
    if (ix && (bg_watch.on || (g->index && !g->exited))) {
        bg_watch.on = 1;
        bg_watch.mark = ws_index_mark(ix);
    }
    pthread_mutex_unlock(&bg_watch.mu);
}

int guard_begin(vt_call *call, const vt_subjects *subjects, cJSON **blocked)
{
    *blocked = NULL;
    call->guard = NULL;
    uint32_t fx = call->tool ? call->tool->t.effects : 0;
    int mutator = fx & VT_EFFECT_MUTATES_WORKSPACE, runner = fx & VT_EFFECT_EXECUTES;
    if (!guard_cfg.enabled || !(mutator || runner))
        return 0;
    struct guard_call *g = calloc(1, sizeof *g);
    if (!g)
        return 0;
    guard_state_lock(guard_cfg.workspace, &g->st);
    char **bg;
    size_t nbg = background_changes(&bg);
    if (nbg) {
        /* a verification this call sees end must come after these */
        size_t named = nbg < NAMES_READ ? nbg : NAMES_READ;
        g->bg_sources =
            guard_output_sources(guard_cfg.workspace, bg, named, NULL, 0) + (nbg - named);
        size_t shown = nbg < NAMES_SHOWN ? nbg : NAMES_SHOWN;
        char *list = name_list(bg, shown, nbg);
        g->st.pending++;
        g->st.changed = 1;
        call_warn(call,
                  "anti-blind-editing: a command still running from an earlier "
                  "call changed the workspace (%s): counted as an unverified change",
                  list ? list : "");
        free(list);
    }
    free_names(bg, nbg);
    g->pending_before = g->st.pending;
    int over = g->st.pending >= guard_cfg.threshold;
    char *because = over && !mutator ? would_mutate(subjects) : NULL;
    if (over && (mutator || because)) {
        guard_state_unlock(&g->st);
        *blocked = blocked_response(call, g->pending_before, because);
        free(because);
        free(g);
        return *blocked != NULL;
    }
    if (mutator) {
        g->locked = 1; /* held until guard_end: check and count are one step */
    } else {
        guard_state_unlock(&g->st);
    }
    if (runner && guard_cfg.detect && guard_cfg.workspace)
        watch_begin(call, g);
    call->guard = g;
    return 0;
}

/* "a, b, c and 4 more" */
static char *name_list(char **names, size_t shown, size_t total)
{
    char *s = strdup("");
    for (size_t i = 0; s && i < shown; i++) {
        char *shown = text_escape(names[i] ? names[i] : "?", 0); /* a name may hold any byte */
        char *t = str_printf("%s%s%s", s, i ? ", " : "", shown ? shown : "?");
        free(shown);
        free(s);
        s = t;
    }
    if (s && total > shown) {
        char *t = str_printf("%s and %zu more", s, total - shown);
        free(s);
        s = t;
    }
    return s;
}

/* A verification run that changed sources made blind edits itself: it
 * counts as a change, not a verification.  Returns the sources' count
 * (names[] then starts with them) or 0. */
static size_t verification_sources(char **names, size_t changed)
{
    size_t named = changed < NAMES_READ ? changed : NAMES_READ;
    const char *src[NAMES_SHOWN] = {0};
    size_t n = guard_output_sources(guard_cfg.workspace, names, named, src, NAMES_SHOWN);
    if (changed > named)
        n += changed - named; /* not looked at: not excused */
    char *first[NAMES_SHOWN] = {0};
    for (size_t i = 0; i < NAMES_SHOWN; i++)
        first[i] = src[i] ? strdup(src[i]) : NULL;
    for (size_t i = 0; i < NAMES_SHOWN; i++) {
        free(names[i]);
        names[i] = first[i];
    }
    return n;
}

/* `names` as filled by a count of `n` (names are set from the first
 * slot on; the first may hold a note when none is counted). */
static void free_names(char **names, size_t n)
{
    size_t set = n < NAMES_READ ? n : NAMES_READ;
    for (size_t i = 0; names && i < (set ? set : 1); i++)
        free(names[i]);
    free(names);
}

void guard_end(vt_call *call)
{
    struct guard_call *g = call->guard;
    if (!g)
        return;
    call->guard = NULL;
    char **names = calloc(NAMES_READ, sizeof *names);
    if (!names) {
        free(g);
        return;
    }
    size_t changed = watch_end(call, g, names), named = changed;
    background_after(g);
    size_t sources = g->verified && changed ? verification_sources(names, changed) : 0;
    if (sources) {
        g->verified = 0;
        changed = sources;
    } else if (g->verified && g->bg_sources) {
        g->verified = 0; /* counted at the call's start already */
        call_warn(call, "anti-blind-editing: source files changed while this verification ran "
                        "(by a command of an earlier call), so it does not count as a "
                        "verification; run it again once nothing else changes the sources");
    }
    if (!g->locked)
        guard_state_lock(guard_cfg.workspace, &g->st);
    long before = g->st.pending;
    if (g->verified) {
        g->st.pending = 0;
    } else if (g->mutated || changed) {
        g->st.pending++;
    }
    g->st.changed = g->st.pending != before;
    long now = g->st.pending;
    guard_state_unlock(&g->st);
    if (changed && !g->verified) {
        size_t shown = changed < NAMES_SHOWN ? changed : NAMES_SHOWN;
        char *list = name_list(names, shown, changed);
        if (sources)
            call_warn(call,
                      "anti-blind-editing: this verification run changed source files "
                      "itself (%s), so it does not count as a verification: %ld unverified "
                      "changes (the limit is %ld); a verification must leave the sources as "
                      "they were (build output and ignored files aside)",
                      list ? list : "", now, guard_cfg.threshold);
        else if (g->pending_before >= guard_cfg.threshold)
            call_warn(call,
                      "anti-blind-editing: this command changed the workspace (%s) "
                      "while verification was required: %ld unverified changes "
                      "(the limit is %ld); run a verification command before "
                      "changing anything else",
                      list ? list : "", now, guard_cfg.threshold);
        else if (now >= guard_cfg.threshold)
            call_warn(call,
                      "anti-blind-editing: this command changed the workspace (%s); "
                      "%ld unverified changes reach the limit: further changes "
                      "are refused until a verification command completes",
                      list ? list : "", now);
        free(list);
    }
    free_names(names, named);
    free(g);
}

/* A verification that ended after its call (a session's): the sources
 * among what commands changed since the last look keep it from
 * counting; what it built is seen now and not counted again later. */
static size_t background_sources(void)
{
    size_t n = 0;
    pthread_mutex_lock(&bg_watch.mu);
    ws_index *ix = ws_index_current();
    char **names = bg_watch.on && ix ? calloc(NAMES_READ, sizeof *names) : NULL;
    if (names) {
        int complete = 1;
        ws_index_refresh(ix, 1, NULL);
        size_t changed = ws_index_changes(ix, bg_watch.mark, 1, names, NAMES_READ, &complete);
        n = changed ? verification_sources(names, changed) : 0;
        bg_watch.mark = ws_index_mark(ix);
        free_names(names, changed);
    }
    pthread_mutex_unlock(&bg_watch.mu);
    return n;
}

static void apply_now(int verified, int mutated)
{
    if (verified && background_sources()) {
        verified = 0;
        mutated = 1;
    }
    guard_state st;
    guard_state_lock(guard_cfg.workspace, &st);
    long before = st.pending;
    if (verified)
        st.pending = 0;
    else if (mutated)
        st.pending++;
    st.changed = st.pending != before;
    guard_state_unlock(&st);
}

void guard_note(vt_call *call, vt_note_kind kind, const char *detail, long value)
{
    if (!guard_cfg.enabled)
        return;
    struct guard_call *g = call ? call->guard : NULL;
    int mutated = kind == VT_NOTE_MUTATION && value > 0;
    int verified = 0;
    if (kind == VT_NOTE_COMMAND_RAN)
        verified = completed(value) && text_report_verifies(detail, value);
    else if (kind == VT_NOTE_COMMAND_EXIT)
        verified = completed(value) && text_verifies(detail);
    if (g && (kind == VT_NOTE_COMMAND_RAN || kind == VT_NOTE_COMMAND_EXIT))
        g->exited = 1;
    if (!mutated && !verified)
        return;
    if (g) {
        g->mutated |= mutated;
        g->verified |= verified;
    } else {
        apply_now(verified, mutated);
    }
}

void guard_command_ran(vt_call *call, const vt_command_ran *ran)
{
    if (!guard_cfg.enabled || !ran || ran->struct_size < sizeof(uint32_t))
        return;
    /* a smaller struct (a sender built later with fewer members cannot
     * exist, an older one may): what it lacks reads as zero, so an
     * incomplete list, which never verifies */
    vt_command_ran r = {0};
    memcpy(&r, ran, ran->struct_size < sizeof r ? ran->struct_size : sizeof r);
    struct guard_call *g = call ? call->guard : NULL;
    int verified = completed(r.exit_code) && ran_verifies(&r);
    if (g)
        g->exited = 1;
    if (!verified)
        return;
    if (g)
        g->verified = 1;
    else
        apply_now(1, 0);
}
