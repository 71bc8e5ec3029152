/* Anti-blind-editing: count effective workspace mutations (notes from
 * tools such as apply_patch) and, once max_unverified_mutations of them
 * happened without a verification command succeeding in between, block
 * tools that declare VT_EFFECT_MUTATES_WORKSPACE until one does.
 *
 * Configuration, [tools.anti_blind_editing] in vtcode.toml:
 *   enabled = true
 *   max_unverified_mutations = 4
 *   verification_commands = [...]             replaces the defaults
 *   additional_verification_commands = [...]  extends them
 * A rule is a command prefix in words ("cargo test" matches
 * "cargo test --all"; the program may be given as a path), or a PCRE2
 * pattern written "re:<pattern>" matched against the simple command. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../plugins/exec/exec_service.h"
#include "guard.h"
#include "services.h"

#define GUARD_DEFAULT_THRESHOLD 4

static const char *const default_rules[] = {
    "make", "gmake", "ninja", "ctest", "cmake --build", "meson test", "meson compile",
    "cargo check", "cargo build", "cargo test", "cargo clippy", "cargo nextest",
    "go build", "go test", "go vet",
    "npm test", "npm run test", "npm run build", "npm build",
    "pnpm test", "pnpm run test", "pnpm build", "pnpm run build",
    "yarn test", "yarn run test", "yarn build", "yarn run build",
    "pytest", "python -m pytest", "python3 -m pytest", "tsc", "npx tsc",
    "gradle", "gradlew", "mvn", "mvnw",
    NULL};

/* Commands that may stand beside a verification command without
 * spoiling it ("cd build && ctest"), but verify nothing alone. */
static const char *const neutral_commands[] = {"cd", "pushd", "popd", NULL};

typedef struct rule {
    char **words;     /* prefix rule */
    size_t nwords;
    pcre2_code *re;   /* or a pattern */
} rule;

static struct {
    pthread_mutex_t lock;
    int enabled;
    long threshold;
    long pending;     /* effective mutations since the last verification */
    rule *rules;
    size_t nrules;
} G = {PTHREAD_MUTEX_INITIALIZER, 0, GUARD_DEFAULT_THRESHOLD, 0, NULL, 0};

static int failf(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(char **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(err, fmt, ap) < 0)
        *err = NULL;
    va_end(ap);
    return VT_ERR_INVALID;
}

/* Split on blanks; returns the word count, *out malloc'd. */
static size_t split_words(const char *s, char ***out)
{
    size_t n = 0, cap = 4;
    char **v = malloc(cap * sizeof *v);
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (n == cap) {
            char **q = realloc(v, (cap *= 2) * sizeof *v);
            if (!q)
                break;
            v = q;
        }
        v[n++] = strndup(s, (size_t)(e - s));
        s = e;
    }
    *out = v;
    return v ? n : 0;
}

static void free_words(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_rules(void)
{
    for (size_t i = 0; i < G.nrules; i++) {
        free_words(G.rules[i].words, G.rules[i].nwords);
        pcre2_code_free(G.rules[i].re);
    }
    free(G.rules);
    G.rules = NULL;
    G.nrules = 0;
}

static int add_rule(const char *text, char **err)
{
    rule r = {0};
    if (strncmp(text, "re:", 3) == 0) {
        int ec;
        PCRE2_SIZE off;
        r.re = pcre2_compile((PCRE2_SPTR)(text + 3), PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &off,
                             NULL);
        if (!r.re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(ec, msg, sizeof msg);
            return failf(err, "[tools.anti_blind_editing] verification rule '%s': %s at "
                              "offset %zu", text, (char *)msg, (size_t)off);
        }
    } else {
        r.nwords = split_words(text, &r.words);
        if (r.nwords == 0) {
            free_words(r.words, 0);
            return failf(err, "[tools.anti_blind_editing] verification rule '%s' is empty", text);
        }
    }
    rule *q = realloc(G.rules, (G.nrules + 1) * sizeof *q);
    if (!q) {
        free_words(r.words, r.nwords);
        pcre2_code_free(r.re);
        return VT_ERR_NOMEM;
    }
    G.rules = q;
    G.rules[G.nrules++] = r;
    return 0;
}

static int add_rule_array(const cJSON *arr, const char *key, char **err)
{
    if (!cJSON_IsArray(arr))
        return failf(err, "[tools.anti_blind_editing] %s must be an array of strings", key);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it))
            return failf(err, "[tools.anti_blind_editing] %s must be an array of strings", key);
        int rc = add_rule(it->valuestring, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_config(const cJSON *sec, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, "enabled");
    if (v) {
        if (!cJSON_IsBool(v))
            return failf(err, "[tools.anti_blind_editing] enabled must be true or false");
        G.enabled = cJSON_IsTrue(v);
    }
    v = cJSON_GetObjectItemCaseSensitive(sec, "max_unverified_mutations");
    if (v) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble != (double)(long)v->valuedouble)
            return failf(err, "[tools.anti_blind_editing] max_unverified_mutations must be an "
                              "integer of at least 1");
        G.threshold = (long)v->valuedouble;
    }
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(sec, "verification_commands");
    int rc = 0;
    if (rules)
        rc = add_rule_array(rules, "verification_commands", err);
    else
        for (size_t i = 0; default_rules[i] && rc == 0; i++)
            rc = add_rule(default_rules[i], err);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(sec, "additional_verification_commands");
    if (rc == 0 && extra)
        rc = add_rule_array(extra, "additional_verification_commands", err);
    return rc;
}

int guard_init(const cJSON *config, char **err)
{
    guard_fini();
    pthread_mutex_lock(&G.lock);
    G.enabled = 1;
    G.threshold = GUARD_DEFAULT_THRESHOLD;
    G.pending = 0;
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(config, "tools");
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(tools, "anti_blind_editing");
    int rc;
    if (sec && !cJSON_IsObject(sec))
        rc = failf(err, "[tools.anti_blind_editing] must be a table");
    else
        rc = read_config(sec, err);
    if (rc)
        free_rules();
    pthread_mutex_unlock(&G.lock);
    return rc;
}

void guard_fini(void)
{
    pthread_mutex_lock(&G.lock);
    free_rules();
    G.pending = 0;
    pthread_mutex_unlock(&G.lock);
}

static const char *base_name(const char *w)
{
    const char *s = strrchr(w, '/');
    return s ? s + 1 : w;
}

static int is_assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return 0;
    for (const char *c = w; c < eq; c++)
        if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (c > w && *c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

static int rule_matches(const rule *r, const char *cmd, char **w, size_t nw)
{
    if (r->re) {
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(r->re, NULL);
        if (!md)
            return 0;
        int m = pcre2_match(r->re, (PCRE2_SPTR)cmd, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
        pcre2_match_data_free(md);
        return m >= 0;
    }
    if (nw < r->nwords)
        return 0;
    for (size_t i = 0; i < r->nwords; i++) {
        const char *word = i == 0 ? base_name(w[i]) : w[i];
        if (strcmp(word, r->words[i]) != 0)
            return 0;
    }
    return 1;
}

/* 1 verifies, 0 neutral, -1 neither.  Called with the lock held. */
static int classify(const char *cmd)
{
    char **w;
    size_t nw = split_words(cmd, &w);
    size_t skip = 0;
    while (skip < nw && is_assignment(w[skip]))
        skip++;
    int result = -1;
    for (size_t i = 0; i < G.nrules && result < 0; i++)
        if (rule_matches(&G.rules[i], cmd, w + skip, nw - skip))
            result = 1;
    for (size_t i = 0; result < 0 && skip < nw && neutral_commands[i]; i++)
        if (strcmp(w[skip], neutral_commands[i]) == 0)
            result = 0;
    free_words(w, nw);
    return result;
}

/* Every simple command verifies or is neutral, and at least one verifies.
 * An opaque part (one the splitter cannot see into) spoils it.  The
 * splitter is another plugin's code: it runs without the lock held. */
static int is_verification(const char *command)
{
    exec_splitter_v1 *sp = services_lookup(EXEC_SPLITTER_SERVICE);
    if (!sp || sp->struct_size < sizeof *sp || !sp->split || !command)
        return 0;
    cJSON *parts = NULL;
    if (sp->split(command, &parts) != 0 || !cJSON_IsArray(parts)) {
        cJSON_Delete(parts);
        return 0;
    }
    int verifies = 0, ok = cJSON_GetArraySize(parts) > 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, parts) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(p, "command");
        if (!cJSON_IsString(c) || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "opaque"))) {
            ok = 0;
            break;
        }
        pthread_mutex_lock(&G.lock);
        int k = classify(c->valuestring);
        pthread_mutex_unlock(&G.lock);
        if (k < 0) {
            ok = 0;
            break;
        }
        verifies |= k == 1;
    }
    cJSON_Delete(parts);
    return ok && verifies;
}

void guard_note(const tool_entry *tool, vt_note_kind kind, const char *detail, long value)
{
    (void)tool;
    if (kind == VT_NOTE_MUTATION && value > 0) {
        pthread_mutex_lock(&G.lock);
        G.pending++;
        pthread_mutex_unlock(&G.lock);
    } else if (kind == VT_NOTE_COMMAND_EXIT && value == 0) {
        pthread_mutex_lock(&G.lock);
        int enabled = G.enabled;
        pthread_mutex_unlock(&G.lock);
        if (enabled && is_verification(detail)) {
            pthread_mutex_lock(&G.lock);
            G.pending = 0;
            pthread_mutex_unlock(&G.lock);
        }
    }
}

int guard_check(const tool_entry *tool, const cJSON *args, cJSON **blocked_response)
{
    (void)args;
    *blocked_response = NULL;
    if (!tool || !(tool->t.effects & VT_EFFECT_MUTATES_WORKSPACE))
        return 0;
    pthread_mutex_lock(&G.lock);
    long pending = G.pending, threshold = G.threshold;
    int block = G.enabled && pending >= threshold;
    pthread_mutex_unlock(&G.lock);
    if (!block)
        return 0;
    char *hint = NULL;
    if (asprintf(&hint,
                 "%ld workspace changes since the last verification (the limit is %ld): run a "
                 "verification command through exec_command that exits 0 (e.g. make, ctest, "
                 "cmake --build, cargo test, go test, npm test, pytest), then retry. Reads, "
                 "code_search, search_tools and exec_command stay allowed.",
                 pending, threshold) < 0)
        hint = NULL;
    cJSON *r = cJSON_CreateObject();
    if (!r) {
        free(hint);
        return 0;
    }
    cJSON_AddBoolToObject(r, "success", 0);
    cJSON_AddBoolToObject(r, "blocked", 1);
    cJSON_AddStringToObject(r, "failure_kind", "anti_blind_editing_verification_required");
    cJSON_AddStringToObject(r, "tool", tool->t.name ? tool->t.name : "");
    cJSON_AddNumberToObject(r, "pending_mutations", (double)pending);
    cJSON_AddNumberToObject(r, "max_unverified_mutations", (double)threshold);
    cJSON_AddStringToObject(r, "error", "Blocked by anti-blind-editing: verify your changes first.");
    cJSON_AddStringToObject(r, "hint", hint ? hint : "run a verification command first");
    free(hint);
    *blocked_response = r;
    return 1;
}
