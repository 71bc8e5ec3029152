/* libFuzzer target for the permission engine's parsers and matcher.  The
 * first byte picks the mode:
 *   0  rule grammar: each line is a rule (parsed, compiled, indexed)
 *   1  configuration: the rest is vtcode.toml text, loaded as [permissions]
 *   2  agent spec: the rest is a markdown file with YAML front matter
 *   3  decision: line 1 is a rule for every bucket, the other lines are
 *      subjects ("c cmd", "o opaque", "p path", "r read", "d domain",
 *      "w cwd", "e escalation") evaluated against it */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perm_agent.h"
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_rules.h"
#include "subjects.h"
#include "toml_reader.h"
#include "../../support/perm_tools.h"

static void settings(perm_settings *st)
{
    memset(st, 0, sizeof *st);
    perm_settings_defaults(st);
    st->workspace = strdup("/tmp");
    st->home = strdup("/root");
    TEST_DECLARE(st);
}

static void fuzz_rules(char *text)
{
    perm_rule_env env = {"/tmp", "/root", &test_tools};
    perm_ruleset set = {0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        perm_rule *r = NULL;
        char *err = NULL;
        if (perm_rule_parse(line, "fuzz:1", &env, &r, &err) == 0)
            perm_ruleset_add(&set, r);
        free(err);
    }
    perm_ruleset_seal(&set);
    perm_ruleset_free(&set);
}

static void fuzz_config(const char *text)
{
    cJSON *cfg = NULL;
    char *err = NULL;
    if (toml_read_string(text, "fuzz.toml", &cfg, &err) == 0) {
        perm_settings st;
        settings(&st);
        char *e2 = NULL;
        if (perm_config_load(&st, cfg, NULL, &e2) == 0)
            for (int i = 0; i < PB_COUNT; i++)
                perm_ruleset_seal(&st.global[i]);
        free(e2);
        perm_settings_free(&st);
    }
    free(err);
    cJSON_Delete(cfg);
}

static void fuzz_agent(const char *text)
{
    perm_settings st;
    settings(&st);
    perm_agent *a = NULL;
    char *err = NULL;
    if (perm_agent_parse_text("fuzz.md", text, &st, &a, &err) == 0)
        perm_agent_free(a);
    free(err);
    perm_settings_free(&st);
}

static void fuzz_decision(char *text)
{
    perm_settings st;
    settings(&st);
    perm_rule_env env = {"/tmp", "/root", &test_tools};
    char *nl = strchr(text, '\n');
    if (nl)
        *nl = 0;
    perm_agent *ag = NULL;
    if (perm_agent_embedded(&st, &ag) < 0) {
        perm_settings_free(&st);
        return;
    }
    for (int b = 0; b < PB_COUNT; b++) {
        perm_rule *r = NULL;
        char *err = NULL;
        if (perm_rule_parse(text, "fuzz:1", &env, &r, &err) == 0)
            perm_ruleset_add(&st.global[b], r);
        free(err);
        perm_ruleset_seal(&st.global[b]);
    }
    vt_subjects subj;
    subjects_init(&subj);
    for (char *line = nl ? strtok(nl + 1, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        if (strlen(line) < 2)
            continue;
        static const struct { char c; vt_subject_kind k; } kinds[] = {
            {'c', VT_SUBJECT_COMMAND}, {'o', VT_SUBJECT_OPAQUE}, {'p', VT_SUBJECT_PATH_EDIT},
            {'r', VT_SUBJECT_PATH_READ}, {'d', VT_SUBJECT_DOMAIN}, {'w', VT_SUBJECT_CWD},
            {'e', VT_SUBJECT_ESCALATION}};
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
            if (line[0] == kinds[i].c)
                subjects_add(&subj, kinds[i].k, line + 2);
    }
    const char *tools[] = {"exec_command", "apply_patch", "code_search"};
    for (int t = 0; t < 3; t++) {
        perm_eval ev;
        if (perm_eval_prepare(&ev, &st, ag, tools[t], t == 0 ? VT_EFFECT_EXECUTES : 0, &subj,
                              NULL) == 0) {
            perm_eval_run(&ev);
            cJSON_Delete(perm_eval_trace(&ev));
            free(perm_eval_suggest(&ev));
        }
        perm_eval_free(&ev);
    }
    subjects_free(&subj);
    perm_agent_free(ag);
    perm_settings_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    switch (data[0] % 4) {
    case 0: fuzz_rules(text); break;
    case 1: fuzz_config(text); break;
    case 2: fuzz_agent(text); break;
    default: fuzz_decision(text); break;
    }
    free(text);
    return 0;
}
