/* The rule grammar and indexed rule sets.
 *   tool                      bare tool id, or an alias the tool declares
 *   tool(<command pattern>)   a tool declaring VT_TOOL_COMMAND_RULES
 *   tool(<path pattern>)      any other tool that reports paths
 *   tool(domain:host)         network-domain subjects; WebFetch = any tool
 *   mcp__server, mcp__server__*, prefix*    tool-name patterns          */
#ifndef VTHOST_PERM_RULES_H
#define VTHOST_PERM_RULES_H

#include "perm_types.h"

typedef struct perm_rule_env {
    const char *workspace;        /* canonical workspace root */
    const char *home;             /* $HOME, or NULL */
    const perm_tool_decls *tools; /* declarations of the known tools, or NULL */
} perm_rule_env;

/* 1 when `tool` declares that its rules take command patterns. */
int perm_tool_command(const perm_tool_decls *d, const char *tool);

/* Parse and compile `text`; `source` ("file:line") is copied.  On failure
 * *err is a malloc'd description (without the source). */
int perm_rule_parse(const char *text, const char *source, const perm_rule_env *env, perm_rule **out,
                    char **err);
void perm_rule_free(perm_rule *r);
/* The rule's tool part names an installed tool (`names`, n of them), an
 * alias a tool declares (env->tools), an mcp__ pattern, WebFetch(domain:...), or a
 * tool-name pattern matching an installed tool: 0.  A near miss of one of
 * those (case, or two edits): VT_ERR_INVALID and *err (malloc'd) with the
 * closest valid spelling.  Any other name: PERM_TOOL_ABSENT and *err the
 * warning to give (the rule matches no call until such a tool exists;
 * `deny` words it for a deny rule). */
#define PERM_TOOL_ABSENT 1
int perm_rule_check_tool(const perm_rule *r, const char *const *names, size_t n,
                         const perm_tool_decls *tools, int deny, char **err);

/* Rule sets: append rules, then seal once to build the lookup index. */
int perm_ruleset_add(perm_ruleset *set, perm_rule *r);
int perm_ruleset_seal(perm_ruleset *set);
void perm_ruleset_free(perm_ruleset *set);

/* Index kinds for perm_ruleset_lookup. */
enum {
    PIDX_BARE = 1,    /* bare exact tool rules; key unused */
    PIDX_CMD = 2,     /* command rules by literal first word */
    PIDX_CMD_ANY = 3, /* command rules starting with a wildcard */
    PIDX_ABS = 4,     /* absolute path rules by literal directory */
    PIDX_CWD = 5,     /* cwd-relative path rules by literal directory */
    PIDX_EXT = 6,     /* "*.ext" at any depth, by extension */
    PIDX_NAME = 7     /* "name" at any depth, by name */
};

/* Whether any rule of the set is filed under index kind `kind` (lets a
 * decision skip lookups that cannot find anything). */
static inline int perm_ruleset_has(const perm_ruleset *set, int kind)
{
    return set->lens[kind] != 0;
}

/* Whether some key of that kind has this length (modulo 64): most
 * ancestor lookups of a path stop here, without hashing. */
static inline int perm_ruleset_maybe(const perm_ruleset *set, int kind, size_t len)
{
    return (set->lens[kind] >> (len & 63)) & 1;
}

/* Rules of `tool` filed under (kind, key), in rule order.  Borrowed. */
void perm_ruleset_lookup(const perm_ruleset *set, int kind, const char *tool, const char *key,
                         size_t key_len, perm_rule *const **rules, size_t *count);
/* The first bare rule matching `tool` (exact or by tool-name pattern). */
const perm_rule *perm_ruleset_bare(const perm_ruleset *set, const char *tool);
/* Domain rules (any tool or a given one), in rule order.  Borrowed. */
void perm_ruleset_domains(const perm_ruleset *set, perm_rule *const **rules, size_t *count);
/* 1 when rule r's tool part matches tool name `tool`. */
int perm_rule_tool_matches(const perm_rule *r, const char *tool);

#endif
