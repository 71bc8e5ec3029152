/* .gitignore / .ignore rules of one file, matched with PCRE2. */
#ifndef CS_IGNORE_H
#define CS_IGNORE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>

typedef struct cs_rule {
    pcre2_code *re;
    unsigned char negate;   /* "!pattern": re-include */
    unsigned char dir_only; /* "pattern/": directories only */
} cs_rule;

typedef struct cs_ignore {
    cs_rule *v;
    size_t n, cap;
} cs_ignore;

/* Parse gitignore text, appending rules.  Bad patterns are skipped, as
 * git does.  Returns 0 or VT_ERR_NOMEM. */
int cs_ignore_parse(cs_ignore *ig, const char *text, size_t len);
/* Load the rules of the file `name` of the directory open at `dirfd`; a
 * missing file gives no rules. */
int cs_ignore_load(cs_ignore *ig, int dirfd, const char *name);
/* `rel` is relative to the directory holding the rules.  Returns 1 when
 * the last matching rule ignores it, 0 when it re-includes it, -1 when no
 * rule matches.  md comes from cs_ignore_md(). */
int cs_ignore_match(const cs_ignore *ig, const char *rel, size_t len, int is_dir,
                    pcre2_match_data *md);
pcre2_match_data *cs_ignore_md(void);
void cs_ignore_free(cs_ignore *ig);

#endif
