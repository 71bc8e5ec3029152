/* Decision throughput of the permission engine with 1,000 global rules
 * and 1,000 agent rules: a compound command of 10 simple commands and a
 * 50-path patch.  Prints microseconds per decision against the 50 us
 * target.  Usage: bench_perm [iterations] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "permission.h"
#include "subjects.h"
#include "../../support/perm_tools.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_rules(cJSON *arr, const char *kind, int from, int to)
{
    for (int i = from; i < to; i++) {
        char r[128];
        switch (i % 4) {
        case 0: snprintf(r, sizeof r, "exec_command(tool%d %s *)", i, kind); break;
        case 1: snprintf(r, sizeof r, "apply_patch(/dir%d/**)", i); break;
        case 2: snprintf(r, sizeof r, "exec_command(tool%d)", i); break;
        default: snprintf(r, sizeof r, "apply_patch(/mod%d/src/*.c)", i); break;
        }
        cJSON_AddItemToArray(arr, cJSON_CreateString(r));
    }
}

static void bench(const char *label, const perm_request *req, int iters)
{
    char *msg = NULL;
    int rc = permission_check(req, &msg);
    if (rc != 0) {
        fprintf(stderr, "%s: not allowed: %s\n", label, msg ? msg : "?");
        exit(1);
    }
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < iters; i++)
        permission_check(req, &msg);
    double us = (clock_s(CLOCK_MONOTONIC) - w0) * 1e6 / iters;
    double cpu = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6 / iters;
    /* CPU time too: the wall clock includes waiting for a shared CPU */
    printf("%-32s %8.2f us/decision wall (%6.2f us CPU)  %9.0f decisions/s  "
           "target 50 us: %s\n", label, us, cpu, 1e6 / us, us < 50.0 ? "met" : "missed");
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    char ws[] = "/tmp/bench_perm_XXXXXX";
    if (!mkdtemp(ws))
        return 1;
    char *root = realpath(ws, NULL);

    /* 1,000 global rules: 300 deny, 300 ask, 400 allow */
    cJSON *cfg = cJSON_CreateObject();
    cJSON *perms = cJSON_AddObjectToObject(cfg, "permissions");
    add_rules(cJSON_AddArrayToObject(perms, "deny"), "deny", 0, 300);
    add_rules(cJSON_AddArrayToObject(perms, "ask"), "ask", 300, 600);
    add_rules(cJSON_AddArrayToObject(perms, "allow"), "allow", 600, 1000);

    /* 1,000 agent rules: 250 deny, 250 ask, 100 auto, 400 allow, plus the
     * rules the measured calls need (in the allow list) */
    char path[512];
    snprintf(path, sizeof path, "%s/.vtcode", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/.vtcode/agents", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/.vtcode/agents/bench.md", root);
    FILE *f = fopen(path, "w");
    fprintf(f, "---\npermissions:\n  default: ask\n");
    const char *buckets[] = {"deny", "ask", "auto", "allow"};
    int sizes[] = {250, 250, 100, 390};
    int n = 2000;
    for (int b = 0; b < 4; b++) {
        fprintf(f, "  %s:\n", buckets[b]);
        for (int i = 0; i < sizes[b]; i++, n++) {
            switch (n % 3) {
            case 0: fprintf(f, "    - exec_command(tool%d %s *)\n", n, buckets[b]); break;
            case 1: fprintf(f, "    - apply_patch(/dir%d/**)\n", n); break;
            default: fprintf(f, "    - \"apply_patch(*.ext%d)\"\n", n); break;
            }
        }
    }
    /* the 10 rules the measured calls use */
    const char *needed[] = {"exec_command(git status)", "exec_command(git diff *)",
                            "exec_command(ls *)", "exec_command(cargo check *)",
                            "exec_command(grep *)", "exec_command(wc -l *)",
                            "exec_command(sort *)", "exec_command(head *)",
                            "apply_patch(/src/**)", "apply_patch(/tests/**)"};
    for (int i = 0; i < 10; i++)
        fprintf(f, "    - \"%s\"\n", needed[i]);
    fprintf(f, "---\n");
    fclose(f);

    char *err = NULL;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    permission_declare_tools(test_tool_decl, sizeof test_tool_decl / sizeof *test_tool_decl);
    permission_set_embedded_policy(test_embedded_policy);
    if (permission_init_with(cfg, "bench.toml", "bench", root, &err) != 0) {
        fprintf(stderr, "init: %s\n", err);
        return system(cmd) == 0 ? 1 : 2;
    }

    tool_entry exec;
    memset(&exec, 0, sizeof exec);
    exec.t.name = "exec_command";
    exec.t.effects = VT_EFFECT_EXECUTES;
    vt_subjects cmds;
    subjects_init(&cmds);
    const char *simple[] = {"git status", "git diff --stat", "ls -la src", "cargo check --all",
                            "grep -rn TODO src", "wc -l src/main.c", "sort -u list.txt",
                            "head -n 20 README.md", "ls tests", "git diff HEAD~1"};
    for (int i = 0; i < 10; i++)
        subjects_add(&cmds, VT_SUBJECT_COMMAND, simple[i]);
    perm_request rq = {&exec, NULL, NULL, &cmds, NULL};
    bench("compound of 10 simple commands", &rq, iters);

    tool_entry patch;
    memset(&patch, 0, sizeof patch);
    patch.t.name = "apply_patch";
    patch.t.effects = VT_EFFECT_MUTATES_WORKSPACE;
    vt_subjects paths;
    subjects_init(&paths);
    char p[256];
    snprintf(p, sizeof p, "%s/src", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/src/mod", root);
    mkdir(p, 0755);
    for (int i = 0; i < 50; i++) {
        snprintf(p, sizeof p, "src/mod/file%02d.c", i);
        char full[512];
        snprintf(full, sizeof full, "%s/%s", root, p);
        if (i % 2 == 0) { /* half exist (updates), half are new files */
            FILE *g = fopen(full, "w");
            fclose(g);
        }
        subjects_add(&paths, VT_SUBJECT_PATH_EDIT, p);
    }
    perm_request rp = {&patch, NULL, NULL, &paths, NULL};
    bench("patch touching 50 paths", &rp, iters / 10 ? iters / 10 : 1);

    subjects_free(&cmds);
    subjects_free(&paths);
    permission_fini();
    cJSON_Delete(cfg);
    free(root);
    return system(cmd) == 0 ? 0 : 1;
}
