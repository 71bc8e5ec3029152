/* `vthost explain --format text`: the explanation's JSON read out as one
 * sentence per stage, for a person at a terminal.  The JSON stays the
 * default (scripts read it); this rendering adds nothing it lacks. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "text_escape.h"

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A value from the call or the configuration, quoted so that no byte of
 * it can pass for the sentence around it. */
static void put_quoted(const char *s)
{
    char *shown = text_escape(s ? s : "", 0);
    printf("\"%s\"", shown ? shown : "");
    free(shown);
}

static void say_subjects(const cJSON *ex)
{
    const cJSON *subj = cJSON_GetObjectItemCaseSensitive(ex, "subjects");
    printf("Subjects: ");
    put_quoted(str(ex, "tool"));
    if (!cJSON_GetArraySize(subj)) {
        printf(" reported nothing for the rules to match.\n");
        return;
    }
    printf(" reported");
    int i = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, subj)
    {
        printf("%s %s ", i++ ? "," : "", str(s, "kind") ? str(s, "kind") : "subject");
        put_quoted(str(s, "value"));
    }
    printf(".\n");
}

static void say_settings(const cJSON *ex)
{
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(ex, "layers");
    printf("Settings: ");
    if (!cJSON_GetArraySize(layers))
        printf("no vtcode.toml applies, only the built-in defaults");
    int i = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, layers)
    {
        printf("%slayer ", i++ ? "; " : "");
        put_quoted(str(l, "layer"));
        if (str(l, "file")) {
            printf(" from ");
            put_quoted(str(l, "file"));
        }
        printf(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "trusted")) ? " (trusted)"
                                                                            : " (not trusted)");
    }
    printf(".\n");
    printf("Trust: the workspace is %s",
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ex, "workspace_trusted")) ? "trusted"
                                                                                   : "not trusted");
    if (str(ex, "trust")) {
        printf(" (");
        put_quoted(str(ex, "trust"));
        printf(")");
    }
    printf(".\n");
}

/* One step of the trace: which layer spoke, by which rule, and why. */
static void say_step(const cJSON *s)
{
    printf("Rule: layer ");
    put_quoted(str(s, "layer"));
    if (str(s, "rule")) {
        printf(" matched rule ");
        put_quoted(str(s, "rule"));
    } else {
        printf(" applied no rule of its own");
    }
    if (str(s, "subject")) {
        printf(" for ");
        put_quoted(str(s, "subject"));
    }
    if (str(s, "source")) {
        printf(" (from ");
        put_quoted(str(s, "source"));
        printf(")");
    }
    if (str(s, "note")) {
        printf(": ");
        put_quoted(str(s, "note"));
    }
    printf(".\n");
}

static const char *meaning(const char *decision)
{
    if (!decision)
        return "no decision was reached";
    if (!strcmp(decision, "allow"))
        return "the call would run without asking";
    if (!strcmp(decision, "deny"))
        return "the call would be refused";
    if (!strcmp(decision, "ask"))
        return "the user would be asked first (vthost call: --yes or --no answers)";
    if (!strcmp(decision, "auto"))
        return "the automatic reviewer would decide";
    return "see the JSON form for what this means";
}

void cli_explain_text(const cJSON *ex)
{
    if (!cJSON_IsObject(ex))
        return;
    say_subjects(ex);
    say_settings(ex);
    const cJSON *trace = cJSON_GetObjectItemCaseSensitive(ex, "trace"), *s;
    cJSON_ArrayForEach(s, trace) say_step(s);
    const char *d = str(ex, "decision");
    printf("Decision: ");
    put_quoted(d ? d : "none");
    printf(" for agent ");
    put_quoted(str(ex, "agent") ? str(ex, "agent") : "default");
    printf(": %s.\n", meaning(d));
    if (str(ex, "ignored_config")) {
        printf("Ignored: ");
        put_quoted(str(ex, "ignored_config"));
        printf(".\n");
    }
}
