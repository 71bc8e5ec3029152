/* Agent specs: markdown files whose YAML front matter carries a
 * `permissions` block (default required; allow, ask, auto, deny lists).
 * Parsed with libyaml's document API, which keeps line marks for
 * messages and trace sources.  libyaml is opened on the first agent file
 * (opened_lib.h): a start with the embedded agent never maps it. */
#include "opened_lib.h"
#include "paths.h"
#include "perm_agent.h"
#include "perm_rules.h"
#include "perm_strict.h"
#include "strutil.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <vthost/grow.h>
#include <yaml.h>

static int fail(char **err, const char *file, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char **err, const char *file, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = str_vprintf(fmt, ap);
    va_end(ap);
    *err = str_printf("%s:%zu: %s", file, line, msg ? msg : "invalid agent spec");
    free(msg);
    return VT_ERR_INVALID;
}

/* Is this line the front matter fence `---` (trailing blanks allowed)? */
static int is_fence(const char *p, const char **next)
{
    if (strncmp(p, "---", 3) != 0 && strncmp(p, "...", 3) != 0)
        return 0;
    const char *q = p + 3;
    while (*q == ' ' || *q == '\t' || *q == '\r')
        q++;
    if (*q != '\n' && *q != 0)
        return 0;
    *next = *q ? q + 1 : q;
    return 1;
}

/* libyaml, bound once (every member or none). */
static struct libyaml_fns {
    __typeof__(yaml_parser_initialize) *parser_initialize;
    __typeof__(yaml_parser_set_input_string) *parser_set_input_string;
    __typeof__(yaml_parser_parse) *parser_parse;
    __typeof__(yaml_parser_load) *parser_load;
    __typeof__(yaml_parser_delete) *parser_delete;
    __typeof__(yaml_event_delete) *event_delete;
    __typeof__(yaml_document_get_root_node) *document_get_root_node;
    __typeof__(yaml_document_get_node) *document_get_node;
    __typeof__(yaml_document_delete) *document_delete;
} libyaml;
static pthread_once_t yaml_once = PTHREAD_ONCE_INIT;
static char *yaml_error;

static void bind_yaml(void)
{
    const opened_sym syms[] = {
        {"yaml_parser_initialize", (void **)&libyaml.parser_initialize},
        {"yaml_parser_set_input_string", (void **)&libyaml.parser_set_input_string},
        {"yaml_parser_parse", (void **)&libyaml.parser_parse},
        {"yaml_parser_load", (void **)&libyaml.parser_load},
        {"yaml_parser_delete", (void **)&libyaml.parser_delete},
        {"yaml_event_delete", (void **)&libyaml.event_delete},
        {"yaml_document_get_root_node", (void **)&libyaml.document_get_root_node},
        {"yaml_document_get_node", (void **)&libyaml.document_get_node},
        {"yaml_document_delete", (void **)&libyaml.document_delete},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_YAML_SONAME, syms, &yaml_error);
}

static const char *scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int parse_decision(const char *s, perm_decision *d)
{
    static const char *const names[] = {"allow", "ask", "auto", "deny"};
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *d = (perm_decision)i;
            return 0;
        }
    return -1;
}

static int add_rule(perm_agent *a, int bucket, const char *text, const char *file, size_t line,
                    const perm_settings *st, char **err)
{
    perm_rule_env env = {st->workspace, st->home, st->tools};
    char *src = NULL, *why = NULL;
    perm_rule *r = NULL;
    if ((line ? asprintf(&src, "%s:%zu", file, line) : asprintf(&src, "%s", file)) < 0)
        return VT_ERR_NOMEM;
    int rc = perm_rule_parse(text, src, &env, &r, &why);
    free(src);
    if (rc < 0) {
        if (asprintf(err, "%s:%zu: %s", file, line, why ? why : "invalid rule") < 0)
            *err = NULL;
        free(why);
        return rc;
    }
    r->origin = a->embedded ? "embedded" : "agent";
    /* an untrusted workspace's agent can only tighten */
    if (a->untrusted && (bucket == PB_ALLOW || bucket == PB_AUTO)) {
        if ((rc = perm_ruleset_add(&a->ignored, r)) < 0)
            perm_rule_free(r);
        return rc;
    }
    /* An auto agent's unrestricted exec allow would bypass review. */
    if (bucket == PB_ALLOW && r->broad && a->def == PERM_AUTO && st->drop_broad_allow_rules) {
        if (VT_GROW(&a->dropped, &a->capdropped, a->ndropped + 1) != 0) {
            perm_rule_free(r);
            return VT_ERR_NOMEM;
        }
        a->dropped[a->ndropped++] = r;
        return 0;
    }
    if ((rc = perm_ruleset_add(&a->sets[bucket], r)) < 0)
        perm_rule_free(r);
    return rc;
}

/* Line numbers: libyaml marks are 0-based from the front matter start. */
#define LINE(node) ((node)->start_mark.line + 1 + offset)

static int load_permissions(perm_agent *a, yaml_document_t *doc, yaml_node_t *key,
                            yaml_node_t *perms, const char *file, size_t offset,
                            const perm_settings *st, char **err)
{
    static const struct {
        const char *key;
        int bucket;
    } buckets[] = {{"deny", PB_DENY}, {"ask", PB_ASK}, {"auto", PB_AUTO}, {"allow", PB_ALLOW}};
    static const char *const keys[] = {"default", "allow", "ask", "auto", "deny"};
    yaml_node_pair_t *p;
    yaml_node_t *def = NULL;
    if (perms->type != YAML_MAPPING_NODE)
        return fail(err, file, LINE(perms), "%s", "permissions must be a mapping");
    for (p = perms->data.mapping.pairs.start; p < perms->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = libyaml.document_get_node(doc, p->key);
        const char *k = scalar(kn);
        if (!k)
            return fail(err, file, LINE(kn), "%s", "permissions keys must be plain names");
        int known = 0;
        for (size_t i = 0; i < 5; i++)
            known |= strcmp(k, keys[i]) == 0;
        if (!known) {
            const char *near = perm_closest(k, keys, 5);
            char *m =
                near ? str_printf("unknown key '%s' in permissions; did you mean '%s'?", k, near)
                     : str_printf("unknown key '%s' in permissions (known keys: default, "
                                  "allow, ask, auto, deny)",
                                  k);
            int rc = fail(err, file, LINE(kn), "%s", m ? m : "unknown key in permissions");
            free(m);
            return rc;
        }
        for (yaml_node_pair_t *q = perms->data.mapping.pairs.start; q < p; q++) {
            const char *k2 = scalar(libyaml.document_get_node(doc, q->key));
            if (k2 && strcmp(k2, k) == 0)
                return fail(err, file, LINE(kn),
                            "duplicate key '%s' in permissions (each bucket once)", k);
        }
        if (strcmp(k, "default") == 0)
            def = libyaml.document_get_node(doc, p->value);
    }
    if (!def)
        return fail(err, file, LINE(key), "%s",
                    "permissions.default is required (ask, allow, auto or deny)");
    if (parse_decision(scalar(def), &a->def) < 0)
        return fail(err, file, LINE(def),
                    "permissions.default must be ask, allow, auto or deny, not \"%s\"",
                    scalar(def) ? scalar(def) : "(not a scalar)");
    if (asprintf(&a->default_source, "%s:%zu", file, LINE(def)) < 0)
        return VT_ERR_NOMEM;
    if (a->untrusted && (a->def == PERM_ALLOW || a->def == PERM_AUTO)) {
        a->ignored_default = a->def == PERM_ALLOW ? "allow" : "auto";
        a->def = PERM_ASK;
    }
    for (size_t b = 0; b < sizeof buckets / sizeof *buckets; b++)
        for (p = perms->data.mapping.pairs.start; p < perms->data.mapping.pairs.top; p++) {
            const char *k = scalar(libyaml.document_get_node(doc, p->key));
            yaml_node_t *v = libyaml.document_get_node(doc, p->value);
            if (!k || strcmp(k, buckets[b].key) != 0 || !v)
                continue;
            int rc;
            if (v->type == YAML_SCALAR_NODE) {
                if (!*scalar(v)) /* `allow:` with nothing after it */
                    continue;
                if ((rc = add_rule(a, buckets[b].bucket, scalar(v), file, LINE(v), st, err)))
                    return rc;
                continue;
            }
            if (v->type != YAML_SEQUENCE_NODE)
                return fail(err, file, LINE(v), "permissions.%s must be a list of rules",
                            buckets[b].key);
            for (yaml_node_item_t *it = v->data.sequence.items.start;
                 it < v->data.sequence.items.top; it++) {
                yaml_node_t *n = libyaml.document_get_node(doc, *it);
                if (!scalar(n))
                    return fail(err, file, LINE(n), "permissions.%s entries must be strings",
                                buckets[b].key);
                if ((rc = add_rule(a, buckets[b].bucket, scalar(n), file, LINE(n), st, err)))
                    return rc;
            }
        }
    return 0;
}

/* Anchors, aliases and merge keys inside the permissions block: a rule
 * list must say what it means where it stands.  Checked on the event
 * stream, where they are still visible (the document API resolves them). */
static int check_events(const char *file, const char *body, size_t len, size_t offset, char **err)
{
    yaml_parser_t parser;
    yaml_event_t e;
    struct {
        int map, key_next;
    } st[64];
    int sp = 0, pending = 0, perm_depth = 0, rc = 0;
    if (!libyaml.parser_initialize(&parser))
        return VT_ERR_NOMEM;
    libyaml.parser_set_input_string(&parser, (const unsigned char *)body, len);
    while (rc == 0 && libyaml.parser_parse(&parser, &e)) {
        yaml_event_type_t t = e.type;
        size_t line = e.start_mark.line + 1 + offset;
        if (t == YAML_STREAM_END_EVENT) {
            libyaml.event_delete(&e);
            break;
        }
        if (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT || t == YAML_SEQUENCE_START_EVENT ||
            t == YAML_MAPPING_START_EVENT) {
            int at_key = sp && st[sp - 1].map && st[sp - 1].key_next;
            int inside = perm_depth > 0 || pending;
            const yaml_char_t *anchor =
                t == YAML_SCALAR_EVENT           ? e.data.scalar.anchor
                : t == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor
                : t == YAML_MAPPING_START_EVENT  ? e.data.mapping_start.anchor
                                                 : NULL;
            if (inside && t == YAML_ALIAS_EVENT)
                rc = fail(
                    err, file, line, "%s",
                    "YAML aliases (*name) are not allowed in permissions: write the rules out");
            else if (inside && anchor)
                rc = fail(
                    err, file, line, "%s",
                    "YAML anchors (&name) are not allowed in permissions: write the rules out");
            else if (inside && at_key && t == YAML_SCALAR_EVENT &&
                     strcmp((const char *)e.data.scalar.value, "<<") == 0)
                rc = fail(
                    err, file, line, "%s",
                    "YAML merge keys (<<) are not allowed in permissions: write the rules out");
            int was_pending = pending;
            pending = sp == 1 && at_key && t == YAML_SCALAR_EVENT &&
                      strcmp((const char *)e.data.scalar.value, "permissions") == 0;
            if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
                if (sp == 64) {
                    rc = fail(err, file, line, "%s", "front matter nested too deeply");
                } else {
                    if (was_pending)
                        perm_depth = sp + 1;
                    st[sp].map = t == YAML_MAPPING_START_EVENT;
                    st[sp].key_next = 1;
                    sp++;
                }
            } else if (sp && st[sp - 1].map) {
                st[sp - 1].key_next = !st[sp - 1].key_next;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            if (sp)
                sp--;
            if (perm_depth && sp < perm_depth)
                perm_depth = 0;
            if (sp && st[sp - 1].map)
                st[sp - 1].key_next = !st[sp - 1].key_next;
        }
        libyaml.event_delete(&e);
    }
    libyaml.parser_delete(&parser);
    return rc; /* syntax errors are reported by the loader */
}

static int parse_spec(perm_agent *a, const char *file, const char *text, const perm_settings *st,
                      char **err)
{
    const char *body;
    if (!is_fence(text, &body))
        return fail(err, file, 1, "%s",
                    "agent spec has no YAML front matter (a first line of ---)");
    const char *end = body, *after;
    size_t lines = 1;
    while (*end && !is_fence(end, &after)) {
        const char *nl = strchr(end, '\n');
        if (!nl) {
            end += strlen(end);
            break;
        }
        end = nl + 1;
        lines++;
    }
    if (!*end)
        return fail(err, file, lines, "%s", "YAML front matter is not closed with ---");
    size_t offset = 1; /* the fence line */
    pthread_once(&yaml_once, bind_yaml);
    if (!libyaml.parser_initialize) {
        *err = str_printf("%s: agent files need libyaml: %s", file,
                          yaml_error ? yaml_error : "it could not be opened");
        return VT_ERR_UNSUPPORTED;
    }
    int erc = check_events(file, body, (size_t)(end - body), offset, err);
    if (erc)
        return erc;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!libyaml.parser_initialize(&parser))
        return VT_ERR_NOMEM;
    libyaml.parser_set_input_string(&parser, (const unsigned char *)body, (size_t)(end - body));
    int rc = 0;
    if (!libyaml.parser_load(&parser, &doc)) {
        rc = fail(err, file, parser.problem_mark.line + 1 + offset, "YAML: %s",
                  parser.problem ? parser.problem : "syntax error");
        libyaml.parser_delete(&parser);
        return rc;
    }
    yaml_node_t *root = libyaml.document_get_root_node(&doc);
    yaml_node_t *perms = NULL, *perms_key = NULL;
    if (root && root->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
             p++) {
            yaml_node_t *kn = libyaml.document_get_node(&doc, p->key);
            const char *k = scalar(kn);
            if (k && strcmp(k, "permissions") == 0) {
                if (perms) {
                    rc = fail(err, file, LINE(kn), "%s",
                              "duplicate key 'permissions' (one permissions block per agent)");
                    break;
                }
                perms_key = kn;
                perms = libyaml.document_get_node(&doc, p->value);
            } else if (k && perm_near_miss(k, "permissions")) {
                rc = fail(err, file, LINE(kn), "unknown key '%s'; did you mean 'permissions'?", k);
                break;
            }
        }
    if (rc) {
        libyaml.document_delete(&doc);
        libyaml.parser_delete(&parser);
        return rc;
    }
    if (!perms)
        rc = fail(err, file, 1, "%s",
                  "agent spec has no permissions.default (ask, allow, auto or deny)");
    else
        rc = load_permissions(a, &doc, perms_key, perms, file, offset, st, err);
    libyaml.document_delete(&doc);
    libyaml.parser_delete(&parser);
    return rc;
}

static int seal(perm_agent *a)
{
    if (a->ignored.count && perm_ruleset_seal(&a->ignored) < 0)
        return VT_ERR_NOMEM;
    for (int i = 0; i < PB_COUNT; i++) {
        int rc = perm_ruleset_seal(&a->sets[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Parse `text` (from `file`) into `a` and seal it: *out = a, or `a` is
 * freed. */
static int parse_sealed(perm_agent *a, const char *file, const char *text, const perm_settings *st,
                        perm_agent **out, char **err)
{
    int rc = parse_spec(a, file, text, st, err);
    if (rc == 0)
        rc = seal(a);
    if (rc < 0) {
        perm_agent_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

int perm_agent_parse_text(const char *file, const char *text, const perm_settings *st,
                          perm_agent **out, char **err)
{
    *out = NULL;
    perm_agent *a = calloc(1, sizeof *a);
    if (!a || !(a->path = strdup(file)) || !(a->name = strdup(file))) {
        perm_agent_free(a);
        return VT_ERR_NOMEM;
    }
    return parse_sealed(a, file, text, st, out, err);
}

int perm_agent_name_valid(const char *name, const char **why)
{
    size_t len = strlen(name);
    *why = NULL;
    if (!len || len > 128)
        *why = "must be 1 to 128 characters";
    else if (strchr(name, '/') || strchr(name, '\\'))
        *why = "must not contain '/' or '\\'";
    else if (name[0] == '.')
        *why = "must not start with '.'";
    else if (strstr(name, ".."))
        *why = "must not contain '..'";
    else if (len >= 3 && strcasecmp(name + len - 3, ".md") == 0)
        *why = "is the agent's name, without the .md suffix";
    else
        for (const char *p = name; *p && !*why; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
                *why = "may hold only letters, digits, '_', '-' and '.'";
    return *why == NULL;
}

/* The spec file at `path`; `name` NULL: its base name without .md.  An
 * untrusted spec keeps only its deny and ask rules and asks instead of
 * a default of allow or auto. */
static int perm_agent_load_file(const char *path, const char *name, int trusted,
                                const perm_settings *st, perm_agent **out, char **err)
{
    *out = NULL;
    perm_agent *a = calloc(1, sizeof *a);
    if (!a || !(a->path = strdup(path))) {
        free(a);
        return VT_ERR_NOMEM;
    }
    if (name) {
        a->name = strdup(name);
    } else {
        const char *base = strrchr(path, '/');
        a->name = strdup(base ? base + 1 : path);
        size_t nl = a->name ? strlen(a->name) : 0;
        if (nl > 3 && strcmp(a->name + nl - 3, ".md") == 0)
            a->name[nl - 3] = 0;
    }
    if (!a->name) {
        perm_agent_free(a);
        return VT_ERR_NOMEM;
    }
    a->untrusted = !trusted;
    FILE *f = fopen(a->path, "rb");
    char *text = f ? file_read_all(f) : NULL;
    if (f)
        fclose(f);
    if (!text) {
        *err = str_printf("agent '%s': cannot read %s", a->name, a->path);
        perm_agent_free(a);
        return VT_ERR_NOT_FOUND;
    }
    int rc = parse_sealed(a, a->path, text, st, out, err);
    free(text);
    return rc;
}

static int readable(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* Whether `ws` (WORKSPACE/.vtcode/agents/NAME.md) may be read: .vtcode
 * and agents are directories and the spec a regular file, none of them a
 * link (a command or the repository could point them anywhere).  0 when
 * it does not exist, 1 when it may be read, -1 (with *err) when refused. */
static int plain_spec(const char *workspace, const char *ws, char **err)
{
    char *vt = str_printf("%s/.vtcode", workspace),
         *ag = str_printf("%s/.vtcode/agents", workspace);
    const char *const path[] = {vt, ag, ws};
    int rc = vt && ag ? 1 : -1;
    const char *refused = paths_vtcode_refusal(workspace);
    if (rc == 1 && refused) {
        *err = str_printf("%s is %s: it is refused as a policy source, and agent specs in it "
                          "are never read. Make it a plain directory of the workspace",
                          vt, refused);
        rc = -1;
    }
    for (int i = 0; rc == 1 && i < 3; i++) {
        struct stat st;
        if (lstat(path[i], &st) != 0)
            rc = 0;
        else if (i < 2 ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
            *err = str_printf(
                "%s is %s: a workspace's agent specs are never read through a "
                "link. Replace it with a plain %s",
                path[i], S_ISLNK(st.st_mode) ? "a symbolic link" : "not a plain file or directory",
                i < 2 ? "directory" : "file");
            rc = -1;
        }
    }
    free(vt);
    free(ag);
    return rc;
}

int perm_agent_load_name(const char *name, const perm_settings *st, perm_agent **out, char **err)
{
    *out = NULL;
    const char *why;
    if (!perm_agent_name_valid(name, &why)) {
        *err = str_printf("agent name '%s' %s (agents are .vtcode/agents/NAME.md in the "
                          "workspace or agents/NAME.md in the user's vtcode directory)",
                          name, why);
        return VT_ERR_INVALID;
    }
    char *ws = str_printf("%s/.vtcode/agents/%s.md", st->workspace, name);
    char *user = st->user_dir ? str_printf("%s/agents/%s.md", st->user_dir, name) : NULL;
    int rc;
    /* An untrusted workspace's agent never shadows the user's agent of
     * the same name: it would drop the user's deny rules. */
    int user_first = !st->workspace_trusted && user && readable(user);
    int plain = ws && !user_first ? plain_spec(st->workspace, ws, err) : 0;
    if (plain < 0)
        rc = VT_ERR_INVALID;
    else if (plain && readable(ws))
        rc = perm_agent_load_file(ws, name, st->workspace_trusted, st, out, err);
    else if (user && readable(user))
        rc = perm_agent_load_file(user, name, 1, st, out, err);
    else {
        *err = str_printf("agent '%s': no %s%s%s", name, ws ? ws : "workspace agent",
                          user ? " or " : "", user ? user : "");
        rc = VT_ERR_NOT_FOUND;
    }
    free(ws);
    free(user);
    return rc;
}

int perm_agent_load(const char *spec, const perm_settings *st, perm_agent **out, char **err)
{
    /* a path (the CLI user's own choice) is trusted; a name resolves */
    if (strchr(spec, '/'))
        return perm_agent_load_file(spec, NULL, 1, st, out, err);
    return perm_agent_load_name(spec, st, out, err);
}

int perm_agent_embedded(const perm_settings *st, perm_agent **out)
{
    /* default ask; what each approval preset allows is profile data
     * ([approval] in profiles/NAME.ini): read-only lookups, and under the
     * sandboxed presets what the sandbox bounds.  Deny and ask rules,
     * protected paths, policy files and escalation still ask. */
    int preset = st->approval >= 0 && st->approval < 3 ? st->approval : 0;
    const char *const *allow = st->embedded_allow[preset];
    perm_agent *a = calloc(1, sizeof *a);
    char *err = NULL;
    if (!a || !(a->name = strdup("default"))) {
        free(a);
        return VT_ERR_NOMEM;
    }
    a->embedded = 1;
    a->def = PERM_ASK;
    a->default_source = st->approval ? str_printf("embedded default agent (approval %s)",
                                                  st->approval == 1 ? "sandboxed" : "read-only")
                                     : strdup("embedded default agent");
    for (size_t i = 0; allow && allow[i]; i++)
        if (add_rule(a, PB_ALLOW, allow[i], "embedded default agent", 0, st, &err) < 0) {
            free(err);
            perm_agent_free(a);
            return VT_ERR_NOMEM;
        }
    int rc = seal(a);
    if (rc < 0) {
        perm_agent_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void perm_agent_free(perm_agent *a)
{
    if (!a)
        return;
    for (int i = 0; i < PB_COUNT; i++)
        perm_ruleset_free(&a->sets[i]);
    perm_ruleset_free(&a->ignored);
    for (size_t i = 0; i < a->ndropped; i++)
        perm_rule_free(a->dropped[i]);
    free(a->dropped);
    free(a->name);
    free(a->path);
    free(a->default_source);
    free(a);
}
