/* The permission engine's internal model: compiled rules, indexed rule
 * sets, agent policies and settings.  Everything here is built once at
 * init (or on first use of a per-call agent) and read-only afterwards, so
 * concurrent calls share it without locks. */
#ifndef VTHOST_PERM_TYPES_H
#define VTHOST_PERM_TYPES_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include "rx.h"

typedef enum perm_decision {
    PERM_ALLOW = 0,
    PERM_ASK = 1,
    PERM_AUTO = 2,
    PERM_DENY = 3
} perm_decision;

typedef enum perm_tool_match {
    PTOOL_EXACT = 0,  /* the tool name equals `tool` */
    PTOOL_PREFIX = 1, /* the tool name starts with `tool` (mcp__x__*) */
    PTOOL_SERVER = 2, /* mcp__server: exact, or mcp__server__... */
    PTOOL_ANY = 3     /* WebFetch(domain:...): any tool's domains */
} perm_tool_match;

typedef enum perm_spec_kind {
    PSPEC_NONE = 0,    /* bare tool rule */
    PSPEC_COMMAND = 1, /* tool(<command pattern>), a command tool */
    PSPEC_PATH = 2,    /* tool(<gitignore-style path pattern>) */
    PSPEC_DOMAIN = 3   /* tool(domain:host) */
} perm_spec_kind;

typedef enum perm_path_base {
    PBASE_ABS = 0, /* //, ~/ and / patterns: anchored to a known directory */
    PBASE_CWD = 1  /* path and ./path: relative to the call's directory */
} perm_path_base;

/* What the engine knows of a tool beyond its name, as the tool's
 * descriptor declares it (VT_TOOL_COMMAND_RULES, rule_aliases): the host
 * names no tool itself.  Strings are borrowed from the descriptor. */
typedef struct perm_tool_decl {
    const char *name;
    int command_rules;          /* rules take command patterns */
    const char *const *aliases; /* NULL-terminated, or NULL */
} perm_tool_decl;

typedef struct perm_tool_decls {
    const perm_tool_decl *items;
    size_t count;
} perm_tool_decls;

typedef struct perm_rule {
    char *text;          /* the rule as written */
    char *source;        /* "file:line", or the file when the line is
                            looked up lazily (cfg_key below) */
    const char *cfg_key; /* TOML dotted key of the array holding the rule */
    int cfg_index;       /* its index there */
    perm_tool_match tool_match;
    char *tool; /* canonical tool name (aliases resolved) */
    perm_spec_kind spec;
    perm_path_base base;
    char *key;          /* index key: first command word or literal dir */
    int idx;            /* PIDX_* kind the rule is filed under (path rules) */
    pcre2_code *re;     /* command or path pattern, anchored both ends */
    char *domain;       /* PSPEC_DOMAIN, lower case */
    int broad;          /* grants a command-running tool unrestricted */
    size_t order;       /* position in its rule set */
    const char *origin; /* layer it came from: "user", "workspace",
                            "config", "agent", "embedded" (static) */
} perm_rule;

struct perm_index;

/* One bucket of rules (e.g. global deny), indexed for lookup. */
typedef struct perm_ruleset {
    perm_rule **rules;
    size_t count, cap;
    struct perm_index *index; /* built by perm_ruleset_seal */
    /* per index kind (PIDX_*), bit (key length % 64) of the keys filed */
    unsigned long long lens[8];
} perm_ruleset;

enum { PB_DENY = 0, PB_ASK = 1, PB_AUTO = 2, PB_ALLOW = 3, PB_COUNT = 4 };

typedef struct perm_agent {
    char *name; /* "default" for the embedded agent */
    char *path; /* the spec file, or NULL when embedded */
    int embedded;
    perm_decision def;
    char *default_source;
    perm_ruleset sets[PB_COUNT];
    /* broad exec allow rules not applied (drop_broad_allow_rules) */
    perm_rule **dropped;
    size_t ndropped, capdropped;
    /* a workspace agent of an untrusted workspace: its allow and auto
     * rules are not applied, and a default of allow or auto asks */
    int untrusted;
    perm_ruleset ignored;        /* its allow and auto rules */
    const char *ignored_default; /* "allow"/"auto" replaced by ask, or NULL */
} perm_agent;

typedef struct perm_string_list {
    char **items;
    size_t count;
} perm_string_list;

typedef struct perm_settings {
    char *workspace;              /* canonical workspace root */
    char *home;                   /* $HOME, or NULL */
    char *config_path;            /* for messages; may be NULL */
    const perm_tool_decls *tools; /* the tools' declarations (borrowed) */
    /* the embedded default agent's allow rules under each approval
     * preset (profile data), NULL-terminated, or NULL (borrowed) */
    const char *const *embedded_allow[3];
    perm_ruleset global[PB_COUNT]; /* only deny, ask, allow are filled */
    /* approval preset of the embedded default agent: 0 ask,
     * 1 sandboxed, 2 read-only */
    int approval;
    /* layering and trust */
    int workspace_trusted;
    const char *trust_reason;   /* static text for explain */
    char *user_dir;             /* the user's vtcode directory, or NULL */
    perm_ruleset ignored_allow; /* an untrusted workspace's allow rules */
    /* an untrusted workspace's ask rules: they apply only where the
     * decision would otherwise be allow or auto (perm_engine.c) */
    perm_ruleset untrusted_ask;
    int ignored_settings; /* it also set approval/auto/non_interactive/... */
    char *ignored_keys;   /* those keys, dotted and ", "-joined, or NULL */
    char *ignored_file;   /* the file that set them, or NULL */
    cJSON *layers;        /* [{"layer","file","trusted"}] for explain */
    /* policy files: pairs of lexical and resolved absolute paths, ended
     * by NULL; policy_fold holds the same pairs case-folded */
    char **policy;
    char **policy_fold;
    size_t npolicy, cap_policy, cap_fold;
    int non_interactive_allow; /* [permissions] non_interactive */
    int audit_enabled;
    /* [permissions.auto] */
    char *model, *probe_model;
    long max_consecutive_denials, max_total_denials;
    int drop_broad_allow_rules;
    perm_string_list block_rules, allow_exceptions;
    char **command_argv; /* NULL-terminated, or NULL */
    long command_timeout_ms;
    /* [permissions.auto.environment] */
    perm_string_list trusted_paths, trusted_domains, trusted_git_hosts, trusted_git_orgs,
        trusted_services;
} perm_settings;

#endif
