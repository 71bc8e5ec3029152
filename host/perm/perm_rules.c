/* Rule grammar parsing and the per-set lookup index.  Rules are compiled
 * once; the index files each rule under its tool and a literal key (the
 * first command word, or the literal leading directory of a path
 * pattern), so a decision looks at a handful of rules however many are
 * configured. */
#include "edit_distance.h"
#include "perm_match.h"
#include "perm_rules.h"
#include "perm_strict.h"
#include "strbuf.h"
#include "strutil.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* ---- index: open-addressing hash of "kind\x1ftool\x1fkey" -> rules ---- */

typedef struct idx_slot {
    char *key;
    size_t klen;
    uint64_t hash;
    perm_rule **rules;
    size_t n, cap;
} idx_slot;

struct perm_index {
    idx_slot *slots;
    size_t cap;            /* power of two */
    perm_rule **patterned; /* bare rules with a tool-name pattern */
    size_t npatterned;
    perm_rule **domains;
    size_t ndomains;
};

/* Word-at-a-time hash: keys are paths tens of bytes long and every
 * decision hashes a few of them per rule set. */
static uint64_t fnv(const char *s, size_t n, uint64_t h)
{
    h ^= n * 0x9E3779B97F4A7C15ull;
    while (n >= 8) {
        uint64_t k;
        memcpy(&k, s, 8);
        h = (h ^ (k * 0xBF58476D1CE4E5B9ull)) * 0x94D049BB133111EBull;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    uint64_t k = 0;
    memcpy(&k, s, n);
    h = (h ^ (k * 0xBF58476D1CE4E5B9ull)) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

static size_t make_key(char *buf, size_t size, int kind, const char *tool, const char *key,
                       size_t key_len)
{
    size_t tl = strlen(tool);
    if (2 + tl + 1 + key_len > size)
        return 0;
    size_t n = 0;
    buf[n++] = (char)kind;
    buf[n++] = 0x1f;
    memcpy(buf + n, tool, tl);
    n += tl;
    buf[n++] = 0x1f;
    memcpy(buf + n, key, key_len);
    n += key_len;
    return n;
}

static idx_slot *idx_find(const struct perm_index *ix, const char *k, size_t kl, uint64_t h)
{
    if (!ix || !ix->cap)
        return NULL;
    for (size_t i = h & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        idx_slot *s = &ix->slots[i];
        if (!s->key)
            return s;
        if (s->hash == h && s->klen == kl && memcmp(s->key, k, kl) == 0)
            return s;
    }
}

static int push_rule(perm_rule ***v, size_t *n, size_t *cap, perm_rule *r)
{
    if (VT_GROW(v, cap, *n + 1) != 0)
        return VT_ERR_NOMEM;
    (*v)[(*n)++] = r;
    return 0;
}

static int idx_add(perm_ruleset *set, struct perm_index *ix, int kind, const char *tool,
                   const char *key, perm_rule *r)
{
    if (kind < PIDX_BARE || kind > PIDX_NAME)
        return VT_ERR_INTERNAL;
    set->lens[kind] |= 1ull << (strlen(key) & 63);
    size_t kl = strlen(key);
    char *buf = malloc(strlen(tool) + kl + 4);
    if (!buf)
        return VT_ERR_NOMEM;
    size_t n = make_key(buf, strlen(tool) + kl + 4, kind, tool, key, kl);
    uint64_t h = fnv(buf, n, 1469598103934665603ull);
    idx_slot *s = idx_find(ix, buf, n, h);
    if (!s->key) {
        s->key = buf;
        s->klen = n;
        s->hash = h;
    } else {
        free(buf);
    }
    return push_rule(&s->rules, &s->n, &s->cap, r);
}

void perm_ruleset_lookup(const perm_ruleset *set, int kind, const char *tool, const char *key,
                         size_t key_len, perm_rule *const **rules, size_t *count)
{
    *rules = NULL;
    *count = 0;
    if (!set->index || !perm_ruleset_maybe(set, kind, key_len))
        return;
    char stack[1024], *buf = stack;
    size_t need = strlen(tool) + key_len + 4;
    if (need > sizeof stack && !(buf = malloc(need)))
        return;
    size_t n = make_key(buf, need, kind, tool, key, key_len);
    idx_slot *s = idx_find(set->index, buf, n, fnv(buf, n, 1469598103934665603ull));
    if (s && s->key) {
        *rules = s->rules;
        *count = s->n;
    }
    if (buf != stack)
        free(buf);
}

int perm_rule_tool_matches(const perm_rule *r, const char *tool)
{
    size_t l = strlen(r->tool);
    switch (r->tool_match) {
    case PTOOL_EXACT: return strcmp(r->tool, tool) == 0;
    case PTOOL_PREFIX: return strncmp(r->tool, tool, l) == 0;
    case PTOOL_SERVER:
        return strncmp(r->tool, tool, l) == 0 &&
               (tool[l] == 0 || (tool[l] == '_' && tool[l + 1] == '_'));
    case PTOOL_ANY: return 1;
    }
    return 0;
}

const perm_rule *perm_ruleset_bare(const perm_ruleset *set, const char *tool)
{
    perm_rule *const *v;
    size_t n;
    const perm_rule *best = NULL;
    perm_ruleset_lookup(set, PIDX_BARE, tool, "", 0, &v, &n);
    if (n)
        best = v[0];
    if (set->index)
        for (size_t i = 0; i < set->index->npatterned; i++) {
            perm_rule *r = set->index->patterned[i];
            if (best && r->order > best->order)
                break;
            if (perm_rule_tool_matches(r, tool)) {
                best = r;
                break;
            }
        }
    return best;
}

void perm_ruleset_domains(const perm_ruleset *set, perm_rule *const **rules, size_t *count)
{
    *rules = set->index ? set->index->domains : NULL;
    *count = set->index ? set->index->ndomains : 0;
}

int perm_ruleset_add(perm_ruleset *set, perm_rule *r)
{
    r->order = set->count;
    return push_rule(&set->rules, &set->count, &set->cap, r);
}

int perm_ruleset_seal(perm_ruleset *set)
{
    struct perm_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return VT_ERR_NOMEM;
    set->index = ix;
    ix->cap = 16;
    while (ix->cap < set->count * 2 + 2)
        ix->cap <<= 1;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
    if (!ix->slots)
        return VT_ERR_NOMEM;
    size_t pc = 0, dc = 0;
    for (size_t i = 0; i < set->count; i++) {
        perm_rule *r = set->rules[i];
        int rc = 0;
        if (r->spec == PSPEC_DOMAIN)
            rc = push_rule(&ix->domains, &ix->ndomains, &dc, r);
        else if (r->tool_match != PTOOL_EXACT)
            rc = push_rule(&ix->patterned, &ix->npatterned, &pc, r);
        else if (r->spec == PSPEC_NONE)
            rc = idx_add(set, ix, PIDX_BARE, r->tool, "", r);
        else if (r->spec == PSPEC_COMMAND)
            rc = r->key ? idx_add(set, ix, PIDX_CMD, r->tool, r->key, r)
                        : idx_add(set, ix, PIDX_CMD_ANY, r->tool, "", r);
        else
            rc = idx_add(set, ix, r->idx, r->tool, r->key, r);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void perm_ruleset_free(perm_ruleset *set)
{
    struct perm_index *ix = set->index;
    if (ix) {
        for (size_t i = 0; i < ix->cap && ix->slots; i++) {
            free(ix->slots[i].key);
            free(ix->slots[i].rules);
        }
        free(ix->slots);
        free(ix->patterned);
        free(ix->domains);
        free(ix);
    }
    for (size_t i = 0; i < set->count; i++)
        perm_rule_free(set->rules[i]);
    free(set->rules);
    memset(set, 0, sizeof *set);
}

/* ---- grammar ----------------------------------------------------------- */

/* The tool's declaration, or NULL (tool names are exact). */
static const perm_tool_decl *perm_tool_find(const perm_tool_decls *d, const char *tool)
{
    for (size_t i = 0; d && i < d->count; i++)
        if (strcmp(d->items[i].name, tool) == 0)
            return &d->items[i];
    return NULL;
}

int perm_tool_command(const perm_tool_decls *d, const char *tool)
{
    const perm_tool_decl *t = perm_tool_find(d, tool);
    return t && t->command_rules;
}

/* The tool that declares `alias` as a rule name, or NULL. */
static const char *alias_tool(const perm_tool_decls *d, const char *alias)
{
    for (size_t i = 0; d && i < d->count; i++)
        for (const char *const *a = d->items[i].aliases; a && *a; a++)
            if (strcmp(*a, alias) == 0)
                return d->items[i].name;
    return NULL;
}

/* A bare rule grants a command tool outright, or a tool-name pattern
 * (`exec_*`, `*`) covers one: either lets every command through. */
static int grants_commands(const perm_rule *r, const perm_tool_decls *d)
{
    if (r->tool_match == PTOOL_EXACT)
        return perm_tool_command(d, r->tool);
    if (r->tool_match != PTOOL_PREFIX)
        return 0;
    for (size_t i = 0; d && i < d->count; i++)
        if (d->items[i].command_rules && strncmp(d->items[i].name, r->tool, strlen(r->tool)) == 0)
            return 1;
    return 0;
}

static char *trimmed(const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s))
        s++, len--;
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    return strndup(s, len);
}

static int valid_tool(const char *t)
{
    if (!*t)
        return 0;
    for (const char *p = t; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("_.-*", *p)))
            return 0;
    return 1;
}

void perm_rule_free(perm_rule *r)
{
    if (!r)
        return;
    free(r->text);
    free(r->source);
    free(r->tool);
    free(r->key);
    free(r->domain);
    rx_code_free(r->re);
    free(r);
}

/* Broad by meaning, not spelling: a command pattern that matches every
 * probe command with arguments (`*`, `**`, `* *`, `* * *`, ...) grants
 * every command that matters. */
static int covers_every_command(const pcre2_code *re)
{
    static const char *const probes[] = {
        "rm -rf /",
        "curl https://example.com/x.sh -o x",
        "python3 -c pass",
        "sh -c x",
        "git push --force origin main",
        "x y",
        "a b c d e f",
        "/bin/rm -f x",
        "z' \\ \"q",
    };
    pcre2_match_data *md = rx_match_data_create(1);
    if (!md)
        return 1; /* cannot tell: treat as broad (it is only ever dropped) */
    int all = 1;
    for (size_t i = 0; all && i < sizeof probes / sizeof *probes; i++)
        all = perm_regex_match(re, probes[i], md) != 0;
    rx_match_data_free(md);
    return all;
}

/* The written rule holds more than one rule: a second rule after the
 * specifier's closing parenthesis, or a list of tool names. */
static int several_rules(const char *text)
{
    const char *open = strchr(text, '(');
    size_t tl = open ? (size_t)(open - text) : strlen(text);
    for (size_t i = 0; i < tl; i++)
        if (text[i] == ',' || text[i] == ';' || isspace((unsigned char)text[i]))
            return 1;
    if (!open)
        return 0;
    int depth = 0;
    char q = 0;
    for (const char *p = open; *p; p++) {
        if (q) {
            if (*p == q)
                q = 0;
            else if (*p == '\\' && q == '"' && p[1])
                p++;
            continue;
        }
        if (*p == '\'' || *p == '"')
            q = *p;
        else if (*p == '\\' && p[1])
            p++;
        else if (*p == '(')
            depth++;
        else if (*p == ')' && --depth == 0) {
            for (p++; *p; p++)
                if (!isspace((unsigned char)*p) && *p != ',' && *p != ';')
                    return strchr(p, '(') != NULL || isalpha((unsigned char)*p);
            return 0;
        }
    }
    return 0;
}

static int parse_spec(perm_rule *r, const char *spec, const perm_rule_env *env, char **err)
{
    if (strncmp(spec, "domain:", 7) == 0) {
        char *d = trimmed(spec + 7, strlen(spec + 7));
        if (!d)
            return VT_ERR_NOMEM;
        if (strncmp(d, "*.", 2) == 0)
            memmove(d, d + 2, strlen(d + 2) + 1);
        if (!*d || strpbrk(d, "/ :*")) {
            *err = str_printf("invalid domain in \"%s\"", r->text);
            free(d);
            return VT_ERR_INVALID;
        }
        for (char *p = d; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        r->spec = PSPEC_DOMAIN;
        r->domain = d;
        return 0;
    }
    if (r->tool_match == PTOOL_ANY) {
        *err = str_printf("WebFetch takes only domain:HOST in \"%s\"", r->text);
        return VT_ERR_INVALID;
    }
    if (r->tool_match != PTOOL_EXACT) {
        *err = str_printf("a tool-name pattern cannot take a specifier: \"%s\"", r->text);
        return VT_ERR_INVALID;
    }
    if (perm_tool_command(env->tools, r->tool)) {
        r->spec = PSPEC_COMMAND;
        int rc = perm_compile_command(spec, &r->re, &r->key, err);
        if (rc == 0)
            r->broad = covers_every_command(r->re);
        return rc;
    }
    r->spec = PSPEC_PATH;
    int rc = perm_compile_path(spec, env->workspace, env->home, &r->base, &r->re, &r->key, err);
    if (rc < 0)
        return rc;
    r->idx = r->base == PBASE_ABS ? PIDX_ABS : PIDX_CWD;
    char *fk = NULL;
    int kind = perm_path_floating_key(spec, &fk);
    if (kind) {
        free(r->key);
        r->key = fk;
        r->idx = kind == 'E' ? PIDX_EXT : PIDX_NAME;
    }
    return 0;
}

/* "Tool(spec)" into r->tool and *spec (malloc'd; NULL without one). */
static int rule_split(perm_rule *r, char **spec, char **err)
{
    *spec = NULL;
    if (several_rules(r->text)) {
        *err = str_printf("\"%s\" holds more than one rule: write each rule as its own string "
                          "in the list",
                          r->text);
        return VT_ERR_INVALID;
    }
    const char *open = strchr(r->text, '(');
    size_t tl = open ? (size_t)(open - r->text) : strlen(r->text);
    if (open) {
        size_t l = strlen(r->text);
        if (r->text[l - 1] != ')') {
            *err = str_printf("missing closing parenthesis in rule \"%s\"", r->text);
            return VT_ERR_INVALID;
        }
        *spec = trimmed(open + 1, l - (size_t)(open - r->text) - 2);
        if (!*spec)
            return VT_ERR_NOMEM;
        if (!**spec) {
            *err = str_printf("empty specifier in rule \"%s\"", r->text);
            return VT_ERR_INVALID;
        }
    }
    r->tool = trimmed(r->text, tl);
    if (!r->tool)
        return VT_ERR_NOMEM;
    if (!valid_tool(r->tool)) {
        *err = str_printf("invalid tool name in rule \"%s\"", r->text);
        return VT_ERR_INVALID;
    }
    return 0;
}

/* The tool part: an alias names its tool; "x*" is a prefix, "mcp__s" a
 * server's tools, WebFetch(spec) any tool fetching. */
static int rule_tool(perm_rule *r, const char *spec, const perm_rule_env *env, char **err)
{
    const char *canonical =
        perm_tool_find(env->tools, r->tool) ? NULL : alias_tool(env->tools, r->tool);
    if (canonical) {
        free(r->tool);
        if (!(r->tool = strdup(canonical)))
            return VT_ERR_NOMEM;
    }
    char *star = strchr(r->tool, '*');
    if (star) {
        if (star[1] != 0) {
            *err = str_printf("only a trailing * is allowed in a tool name: \"%s\"", r->text);
            return VT_ERR_INVALID;
        }
        *star = 0;
        r->tool_match = PTOOL_PREFIX;
    } else if (strncmp(r->tool, "mcp__", 5) == 0 && !strstr(r->tool + 5, "__")) {
        r->tool_match = PTOOL_SERVER;
    } else if (spec && strcmp(r->tool, "WebFetch") == 0) {
        r->tool_match = PTOOL_ANY;
    }
    return 0;
}

int perm_rule_parse(const char *text, const char *source, const perm_rule_env *env, perm_rule **out,
                    char **err)
{
    *out = NULL;
    *err = NULL;
    perm_rule *r = calloc(1, sizeof *r);
    if (!r)
        return VT_ERR_NOMEM;
    r->text = trimmed(text, strlen(text));
    r->source = strdup(source ? source : "");
    r->origin = "config";
    char *spec = NULL;
    int rc = r->text && r->source ? rule_split(r, &spec, err) : VT_ERR_NOMEM;
    if (rc == 0)
        rc = rule_tool(r, spec, env, err);
    if (rc == 0 && spec) {
        rc = parse_spec(r, spec, env, err);
        if (rc < 0 && !*err)
            *err = str_printf("invalid rule \"%s\"", r->text);
    } else if (rc == 0) {
        r->broad = grants_commands(r, env->tools);
    }
    free(spec);
    if (rc < 0) {
        perm_rule_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* ---- tool names ------------------------------------------------------- */

/* The tools of the plugins built from this tree and the Debian package
 * each comes in (sdk/packaging.cmake), for "install it" hints. */
static const struct {
    const char *tool, *package;
} tool_packages[] = {
    {"exec_command", "vthost-plugin-exec"},       {"write_stdin", "vthost-plugin-stdin"},
    {"apply_patch", "vthost-plugin-patch"},       {"search_tools", "vthost-plugin-search-tools"},
    {"code_search", "vthost-plugin-code-search"},
};

static const char *package_of(const char *tool)
{
    for (size_t i = 0; i < sizeof tool_packages / sizeof *tool_packages; i++)
        if (strcmp(tool, tool_packages[i].tool) == 0)
            return tool_packages[i].package;
    return NULL;
}

/* A typo rather than another tool: the same name but for case, or at
 * most two edits away. */
static int near_miss(const char *written, const char *name)
{
    static const edit_costs plain = {.case_change = 1, .edit = 1, .transpose = 1};
    return strcasecmp(written, name) == 0 || edit_distance(written, name, &plain) <= 2;
}

/* The text of an absent tool's warning (without the source). */
static char *absent_text(const perm_rule *r, const char *written, int deny)
{
    const char *pkg = package_of(written);
    const char *bare = strchr(r->text, '(') ? NULL : written;
    return str_printf("rule \"%s\" names no installed tool%s%s%s; it %s until a tool \"%s\" is "
                      "installed%s%s%s",
                      r->text, pkg ? " (" : "", pkg ? pkg : "", pkg ? " provides it)" : "",
                      deny ? "denies nothing" : "does nothing", written,
                      deny && bare ? " (to deny the command, write exec_command(" : "",
                      deny && bare ? bare : "", deny && bare ? " *))" : "");
}

int perm_rule_check_tool(const perm_rule *r, const char *const *names, size_t n,
                         const perm_tool_decls *tools, int deny, char **err)
{
    *err = NULL;
    if (r->tool_match == PTOOL_ANY || strncmp(r->tool, "mcp__", 5) == 0)
        return 0;
    if (r->tool_match == PTOOL_PREFIX) {
        for (size_t i = 0; i < n; i++)
            if (strncmp(names[i], r->tool, strlen(r->tool)) == 0)
                return 0;
        *err = str_printf("the tool-name pattern in \"%s\" matches no installed tool; the rule "
                          "does nothing until one is installed",
                          r->text);
        return *err ? PERM_TOOL_ABSENT : VT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], r->tool) == 0)
            return 0;
    /* the tool as written, for the suggestion */
    size_t tl = strcspn(r->text, "(");
    while (tl && isspace((unsigned char)r->text[tl - 1]))
        tl--;
    char *written = strndup(r->text, tl);
    size_t nalias = 0;
    for (size_t i = 0; tools && i < tools->count; i++)
        for (const char *const *a = tools->items[i].aliases; a && *a; a++)
            nalias++;
    const char **cands = calloc(n + nalias + 1, sizeof *cands);
    vt_strbuf list = VT_STRBUF_INIT; /* the aliases, for the message */
    if (!written || !cands) {
        free(written);
        free(cands);
        return VT_ERR_NOMEM;
    }
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        cands[nc++] = names[i];
    for (size_t i = 0; tools && i < tools->count; i++)
        for (const char *const *a = tools->items[i].aliases; a && *a; a++) {
            cands[nc++] = *a;
            strbuf_printf(&list, "%s%s", list.len ? ", " : "", *a);
        }
    cands[nc++] = "WebFetch";
    const char *near = perm_closest(written, cands, nc);
    int absent = 0;
    if (strcmp(written, "WebFetch") == 0)
        *err = str_printf("\"%s\": WebFetch is written WebFetch(domain:HOST)", r->text);
    else if (near && strcmp(near, "WebFetch") == 0)
        *err = str_printf("unknown tool \"%s\" in rule \"%s\"; did you mean "
                          "WebFetch(domain:HOST)?",
                          written, r->text);
    else if (near && near_miss(written, near))
        *err = str_printf("unknown tool \"%s\" in rule \"%s\"; did you mean \"%s\"?", written,
                          r->text, near);
    else {
        /* Not a typo: a tool that is not installed (a plugin removed, a
         * package not installed) can do no harm through a rule. */
        *err = absent_text(r, written, deny);
        absent = 1;
    }
    strbuf_reset(&list);
    free(written);
    free(cands);
    if (!*err)
        return VT_ERR_NOMEM;
    return absent ? PERM_TOOL_ABSENT : VT_ERR_INVALID;
}
