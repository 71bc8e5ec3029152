/* What vthost knows about commands, in one table: wrappers that run
 * another program (and how many words their options take), programs
 * whose global options come before a subcommand (git -C DIR push), the
 * programs that write files and how their arguments name them, and the
 * options that make a build or test program verify nothing.  The
 * permission matcher (perm_match.c), the policy-file check
 * (perm_protect.c) and the anti-blind-editing guard (call/guard_match.c)
 * all read it here, so a program they disagree about cannot exist. */
#ifndef VTHOST_PERM_COMMANDS_H
#define VTHOST_PERM_COMMANDS_H

#include <stddef.h>

/* How a wrapper's words lead to the program it runs. */
typedef struct perm_wrapper {
    const char *name;
    /* options that take the next word as their value (NULL-ended) */
    const char *const *arg_opts;
    /* options whose value is a shell command string (su -c CMD): the
     * rest of the words are the command (NULL-ended, or NULL) */
    const char *const *cmd_opts;
    int positional;    /* non-option words before the program (timeout 5) */
    int only_flagless; /* looked through only without options (xargs) */
    int assignments;   /* NAME=VALUE words after the options (env) */
    int joined;        /* the words after the options are one command line
                          joined by blanks (watch, su's user) */
} perm_wrapper;

/* The wrapper called `name` (a base name, `len` bytes), or NULL. */
const perm_wrapper *perm_cmd_wrapper(const char *name, size_t len);

/* Add a wrapper from configuration ([permissions] wrappers, trusted
 * layers only): "NAME" or "NAME -o --opt ..." where the options listed
 * take the next word as their value.  A name already known is left as
 * it is.  Called while the permission engine starts (one thread).
 * VT_ERR_INVALID with *err (malloc'd) for a malformed entry. */
int perm_cmd_add_wrapper(const char *spec, char **err);
/* Forget the configured wrappers (the engine's fini). */
void perm_cmd_clear_wrappers(void);

/* Whether option `opt` of wrapper `w` takes the next word (1), is a
 * command option whose value is the command (2), or neither (0). */
int perm_cmd_wrapper_opt(const perm_wrapper *w, const char *opt, size_t len);

/* The program behind a chain of wrappers and NAME=VALUE words in argv:
 * its index, or argc when there is none (a wrapper alone).  A command
 * option's value (su -c 'rm x') is not an argv word of a program: *text
 * receives it (borrowed from argv) and the index returned is argc. */
size_t perm_cmd_unwrap(char *const *argv, size_t argc, const char **text);

/* A program with global options before its subcommand.  Both lists
 * also cover the one-word form --OPT=VALUE. */
typedef struct perm_global_opts {
    const char *name;
    const char *const *arg_opts;  /* take the next word (-C DIR) */
    const char *const *flag_opts; /* take none (--no-pager) */
    int plus_word;                /* a leading +WORD is an option (cargo +nightly) */
} perm_global_opts;

/* The entry for program `name` (`len` bytes), or NULL. */
const perm_global_opts *perm_cmd_global_opts(const char *name, size_t len);

/* What the global option `opt` (`len` bytes) of `g` is: 1 when it takes
 * the next word as its value, 0 when it is known and takes none (or has
 * it after '='), -1 when the table does not know it (it may take a
 * value: the matcher then fails closed for deny and ask rules). */
int perm_cmd_global_opt(const perm_global_opts *g, const char *opt, size_t len);

/* Files a writer's arguments name. */
typedef enum perm_write_mode {
    PERM_W_NONE = 0,
    PERM_W_ALL = 1,     /* every operand (tee, touch) */
    PERM_W_LAST = 2,    /* the last operand (cp, install, ln) */
    PERM_W_INPLACE = 3, /* every operand, only with -i (sed, perl) */
    PERM_W_DD = 4,      /* of=FILE */
    PERM_W_MOVE = 5,    /* the last operand, and the sources go away (mv) */
    PERM_W_TREE = 6,    /* like ALL, and a directory above a file reaches it (rm) */
} perm_write_mode;

/* How program `base` (a base name) writes, PERM_W_NONE when it does not. */
perm_write_mode perm_cmd_writer(const char *base);

/* For PERM_W_INPLACE programs: whether `arg` turns in-place editing on
 * (-i, -i.bak, -Ei, -pi, --in-place). */
int perm_cmd_in_place(const char *base, const char *arg);

/* 1 when git's subcommand `sub` changes the work tree (checkout, reset,
 * apply, ...). */
int perm_cmd_git_writer(const char *sub);

/* 1 when this run of a build or test program cannot be a verification
 * whatever the rules say: it prints and stops (--version, --help), only
 * pretends (-n, --dry-run), runs text instead of the project's build
 * (make --eval, -E, -f -, -f /dev/stdin, -f /dev/null), runs a tool
 * instead of the build (ninja -t), or has no build file to run (make or
 * ninja with none in `cwd`, NULL: not checked).  argv[0] is the program
 * (after perm_cmd_unwrap). */
int perm_cmd_not_verifying(char *const *argv, size_t argc, const char *cwd);

#endif
