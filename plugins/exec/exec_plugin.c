/* The exec plugin: the exec_command tool, its permission hook, and the
 * services (command splitter, live sessions) other modules reach. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>

#include <vthost/services.h>
#include "exec_args.h"
#include "exec_config.h"
#include "exec_netproxy.h"
#include "exec_schema.h"
#include "execwatch.h"
#include "extra_approved.h"
#include "plainexec.h"
#include "sandbox.h"
#include "session.h"
#include "shellenv.h"
#include "splitter.h"
#include "splitter_service.h"

#define YIELD_DEFAULT_MS 10000
#define YIELD_MIN_MS 250
#define YIELD_MAX_MS 30000

/* Shared with session.c (session.h); set by the host before init. */
VT_PLUGIN_API(api);
static sandbox_config sandbox_cfg;
static env_policy env_pol;     /* [sandbox.env], read at init */
static sandbox *sandbox_state; /* NULL: danger-full-access or fallback */
static char *sandbox_warning;  /* what this machine cannot protect */
static char *sandbox_error;    /* why sandboxed commands cannot run */
static shell_profile profile;
static unsigned short pty_rows = 24, pty_cols = 80;

static int enforce; /* run-time enforcement of every execve (execwatch.h) */

/* What a start that runs no command (vthost tools, a search, a patch)
 * does not need is done once, on first use: the run-time checks' filter
 * (it decides `enforce`) on the first exec_command permission question or
 * run; the sandbox (namespace probe forks, cgroup search, Landlock
 * ruleset check, seccomp filters) and the sessions' reaper thread on the
 * first run.  What they warn about goes to the log once, then, and into
 * every sandboxed call's result as before. */
static pthread_mutex_t lazy_mu = PTHREAD_MUTEX_INITIALIZER;
static int checks_ready, sandbox_ready, sessions_ready;

static void checks_ensure(void)
{
    pthread_mutex_lock(&lazy_mu);
    if (!checks_ready) {
        /* Run-time enforcement needs the host's exec policy (ABI 1.1) and
         * a kernel that can continue trapped calls; without it the static
         * check stays conservative (opaque texts are not pre-approved). */
        if (VT_HAS(api, exec_policy) && execwatch_prepare() == VT_OK)
            enforce = !getenv("VTHOST_NO_EXEC_CHECKS");
        else
            api->log(VT_LOG_WARNING, "exec",
                     "run-time command checks are unavailable (Linux 5.5 and libseccomp 2.5 "
                     "needed): command rules hold only for the command text");
        checks_ready = 1;
    }
    pthread_mutex_unlock(&lazy_mu);
}

/* The sandbox is prepared once: commands only apply it.  A kernel
 * without Landlock is not a failure: sandboxed commands are refused with
 * sandbox_error, escalated ones still run. */
static void sandbox_ensure(void)
{
    pthread_mutex_lock(&lazy_mu);
    if (!sandbox_ready) {
        int prc = sandbox_prepare(&sandbox_cfg, api->workspace_root(), &sandbox_state,
                                  &sandbox_warning, &sandbox_error);
        if (prc != VT_OK && !sandbox_error)
            sandbox_error = strdup("cannot prepare the sandbox");
        /* the policy files besides the workspace's (ABI 1.3) */
        if (sandbox_state && VT_HAS(api, policy_paths) &&
            sandbox_protect_paths(sandbox_state, api->policy_paths()) != VT_OK && !sandbox_error)
            sandbox_error = strdup("out of memory while listing the policy files");
        /* The host's workspace index: the repositories without a walk,
         * and its own data kept read-only. */
        const vt_wsindex_v1 *ix = api->service_lookup(VT_WSINDEX_SERVICE);
        if (sandbox_state && ix && ix->struct_size >= sizeof(vt_wsindex_v1)) {
            sandbox_use_index(sandbox_state, ix);
            if (sandbox_protect_paths(sandbox_state, ix->host_data_paths()) != VT_OK &&
                !sandbox_error)
                sandbox_error = strdup("out of memory while listing the host's data");
        }
        /* The host's own data, masked in every session (a host without
         * the service lists nothing). */
        const vt_host_data_v1 *hd = api->service_lookup(VT_HOST_DATA_SERVICE);
        if (sandbox_state && hd && hd->struct_size >= sizeof(vt_host_data_v1))
            sandbox_use_host_data(sandbox_state, hd);
        /* What this machine cannot give, said once (and in every
         * sandboxed call's result). */
        if (sandbox_warning)
            api->log(VT_LOG_WARNING, "exec", "sandbox: %s", sandbox_warning);
        sandbox_ready = 1;
    }
    pthread_mutex_unlock(&lazy_mu);
}

/* The sessions' reaper thread, before the first session. */
static int sessions_ensure(void)
{
    int rc = VT_OK;
    pthread_mutex_lock(&lazy_mu);
    if (!sessions_ready && (rc = sessions_init()) == VT_OK)
        sessions_ready = 1;
    pthread_mutex_unlock(&lazy_mu);
    return rc;
}

/* Where a sandboxed command can write (NULL-terminated, malloc'd), or
 * NULL when it runs unconfined; with a call's additional write paths
 * (`extra_writable`, or NULL). */
static char **writable_dirs(int confined, const sandbox_extra *extra_writable)
{
    if (!confined)
        return NULL;
    const char *tmpdir = getenv("TMPDIR");
    size_t n = 0;
    size_t nextra = extra_writable ? extra_writable->nwrite : 0;
    char **v = calloc(sandbox_cfg.nwritable + nextra + 6, sizeof *v);
    if (!v)
        return NULL;
    const char *fixed[] = {api->workspace_root(), "/tmp", "/var/tmp", "/dev/shm",
                           tmpdir && tmpdir[0] == '/' ? tmpdir : NULL};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (fixed[i] && !(v[n++] = strdup(fixed[i])))
            goto oom;
    for (size_t i = 0; i < sandbox_cfg.nwritable; i++)
        if (!(v[n++] = strdup(sandbox_cfg.writable_roots[i])))
            goto oom;
    for (size_t i = 0; i < nextra; i++)
        if (!(v[n++] = strdup(extra_writable->write[i])))
            goto oom;
    return v;
oom:
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    return NULL;
}

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int exec_preflight(vt_call *call, const cJSON *args)
{
    const char *cmd = args_str(args, "cmd");
    if (!cmd || args_blank(cmd))
        return api->call_error(call, VT_ERR_INVALID, "cmd: must be a non-empty command");
    int level = args_level(args);
    if (level < 0)
        return api->call_error(call, VT_ERR_INVALID,
                               "sandbox_permissions: must be \"use_default\", "
                               "\"with_additional_permissions\", \"require_escalated\" or "
                               "\"bypass_sandbox\"");
    if (level > 0 && args_blank(args_str(args, "justification")))
        return api->call_error(call, VT_ERR_INVALID,
                               "justification: required and non-empty when "
                               "sandbox_permissions is \"%s\"",
                               args_str(args, "sandbox_permissions"));
    if (level != 1 && cJSON_GetObjectItemCaseSensitive(args, "additional_permissions"))
        return api->call_error(call, VT_ERR_INVALID,
                               "additional_permissions: only with sandbox_permissions "
                               "\"with_additional_permissions\"");
    if (level == 1) {
        sandbox_extra x;
        char *err = NULL;
        int rc = args_extra_parse(args, &x, &err);
        if (rc != VT_OK) {
            rc = api->call_error(call, rc, "%s", err ? err : "out of memory");
            free(err);
            return rc;
        }
        args_extra_free(&x);
    }
    const char *shell = args_str(args, "shell");
    if (shell && args_blank(shell))
        return api->call_error(call, VT_ERR_INVALID, "shell: must name a shell binary");
    return VT_OK;
}

static int exec_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    int rc = VT_OK;
    checks_ensure();
    /* The working directory first: relative paths below start from it. */
    const char *wd = args_str(args, "workdir");
    if (wd) {
        char *abs = NULL;
        if (api->resolve_path(wd, 0, &abs) == VT_OK && abs)
            rc = api->subject_add(out, VT_SUBJECT_CWD, abs);
        else
            rc = api->subject_add(out, VT_SUBJECT_CWD, wd);
        api->free(abs);
    }
    split_list l = {0};
    if (rc == VT_OK)
        rc = split_shell(args_str(args, "cmd") ? args_str(args, "cmd") : "", &l);
    static const vt_subject_kind kinds[] = {[SPLIT_COMMAND] = VT_SUBJECT_COMMAND,
                                            [SPLIT_OPAQUE] = VT_SUBJECT_OPAQUE,
                                            [SPLIT_WRITE] = VT_SUBJECT_PATH_EDIT,
                                            [SPLIT_READ] = VT_SUBJECT_PATH_READ};
    /* Under run-time enforcement an opaque part is judged program by
     * program as it runs; without it, nothing can approve it up front.
     * A changed environment stays opaque: it alters what an allowed
     * program does, which no execve check sees. */
    for (size_t k = 0; rc == VT_OK && k < l.count; k++)
        if (!(enforce && l.items[k].kind == SPLIT_OPAQUE &&
              !split_opaque_environment(l.items[k].text)))
            rc = api->subject_add(out, kinds[l.items[k].kind], l.items[k].text);
    split_list_free(&l);
    /* The shell is a subject: another interpreter turns the text into
     * code, and a workspace executable could be anything. */
    const char *shell = args_str(args, "shell");
    if (rc == VT_OK && shell) {
        char **wr = writable_dirs(1, NULL);
        int own = wr && shell_is_profile_shell(profile, shell, (const char *const *)wr);
        strv_free(wr);
        if (!own) {
            size_t n = strlen(shell) + 7;
            char *subj = malloc(n);
            if (!subj)
                return VT_ERR_NOMEM;
            snprintf(subj, n, "shell:%s", shell);
            rc = api->subject_add(out, VT_SUBJECT_COMMAND, subj);
            free(subj);
        }
    }
    const char *why = args_str(args, "justification");
    int level = args_level(args);
    if (rc == VT_OK && level == 2)
        rc = api->subject_add(out, VT_SUBJECT_ESCALATION, why ? why : "");
    if (rc == VT_OK && level == 1) {
        /* Asked like an escalation, naming exactly what is added. */
        sandbox_extra x;
        char *err = NULL;
        rc = args_extra_parse(args, &x, &err);
        free(err);
        char *what = rc == VT_OK ? args_extra_describe(&x, why) : NULL;
        if (rc == VT_OK)
            rc = what ? api->subject_add(out, VT_SUBJECT_ESCALATION, what) : VT_ERR_NOMEM;
        /* what the question shows is what the run may grant (a call
         * only explained never runs: nothing to keep) */
        if (rc == VT_OK && !(VT_HAS(api, call_explaining) && api->call_explaining(call)))
            extra_approved_remember(api->call_id(call), &x);
        free(what);
        args_extra_free(&x);
    }
    return rc;
}

static int clamp_yield(const cJSON *args)
{
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(args, "yield_time_ms");
    double v = cJSON_IsNumber(y) ? y->valuedouble : YIELD_DEFAULT_MS;
    if (v < YIELD_MIN_MS)
        return YIELD_MIN_MS;
    if (v > YIELD_MAX_MS)
        return YIELD_MAX_MS;
    return (int)v;
}

static int workdir_error(vt_call *call, const char *wd, int rc)
{
    switch (rc) {
    case VT_ERR_OUTSIDE:
        return api->call_error(call, VT_ERR_OUTSIDE, "workdir '%s' is outside the workspace (%s)",
                               wd, api->workspace_root());
    case VT_ERR_NOT_FOUND:
        return api->call_error(call, VT_ERR_NOT_FOUND, "workdir '%s' does not exist", wd);
    default:
        return api->call_error(call, rc < 0 ? rc : VT_ERR_INVALID,
                               "workdir '%s' is not a directory inside the workspace", wd);
    }
}

/* The policy's programs denied whatever their arguments (a host older
 * than 1.4 has none to offer). */
static const char *const *denied_programs(const vt_exec_policy *pol)
{
    size_t end = offsetof(vt_exec_policy, denied_programs) + sizeof pol->denied_programs;
    return pol && pol->struct_size >= end ? pol->denied_programs : NULL;
}

static int watch_start(vt_call *call, int confined, spawn_req *req, execwatch **w,
                       const char *const **denied)
{
    vt_exec_policy *pol = NULL;
    if (!VT_HAS(api, exec_policy) || api->exec_policy(call, &pol) != VT_OK)
        return api->call_error(call, VT_ERR_UNSUPPORTED,
                               "the host cannot judge the programs a command runs");
    *denied = denied_programs(pol); /* lives as long as the watcher */
    /* Unconfined commands can write more, but the user's own directories
     * (and everything, for root) would then name every program by path. */
    (void)confined;
    execwatch_opts o = {.api = api,
                        .policy = pol,
                        .writable = writable_dirs(1, req->extra),
                        .denied = *denied,
                        .shell_path = req->path,
                        .shell_argv = req->argv,
                        .direct_argv = req->direct_argv};
    if (execwatch_start(&o, w, &req->watch_sock) != VT_OK)
        return api->call_error(call, VT_ERR_IO, "cannot start the run-time command checks");
    req->shell_fd = execwatch_shell_fd(*w, &req->shell_script);
    return VT_OK;
}

/* Why a call's sandbox protects less than it should (a walk budget hit,
 * no cgroup for this session): in that call's result, and in the log
 * once per distinct reason. */
static void report_plan_warning(vt_call *call, const char *w)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char *logged;
    if (!w)
        return;
    api->call_warn(call, "%s", w);
    pthread_mutex_lock(&mu);
    if (!logged || strcmp(logged, w)) {
        api->log(VT_LOG_WARNING, "exec", "sandbox: %s", w);
        free(logged);
        logged = strdup(w);
    }
    pthread_mutex_unlock(&mu);
}

/* The command's working directory, absolute: workdir resolved inside the
 * workspace, or the workspace root. */
static int resolve_workdir(vt_call *call, const char *wd, char **abs)
{
    *abs = NULL;
    if (wd) {
        int rc = api->resolve_path(wd, VT_RESOLVE_MUST_EXIST | VT_RESOLVE_DIRECTORY, abs);
        if (rc != VT_OK) {
            api->free(*abs);
            *abs = NULL;
            return workdir_error(call, wd, rc);
        }
    } else if (!(*abs = api->strdup(api->workspace_root()))) {
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    return VT_OK;
}

/* What must hold before a command starts: the approved additional
 * permissions read (level 1), the sessions running, a sandbox for a
 * command that is not escalated. */
static int prepare_run(vt_call *call, const cJSON *args, int level, spawn_req *req,
                       sandbox_extra *extra)
{
    int rc = VT_OK;
    if (level == 1) {
        char *err = NULL;
        if ((rc = args_extra_parse(args, extra, &err)) != VT_OK)
            rc = api->call_error(call, rc, "%s", err ? err : "out of memory");
        free(err);
        req->extra = extra;
        /* The paths as the question named them, and what they were
         * then: resolved again now, a path swapped for a link since
         * would name the link's target. */
        int took = rc == VT_OK ? extra_approved_take(api->call_id(call), extra) : 1;
        if (took == 0 && extra->nwrite)
            rc = api->call_error(call, VT_ERR_DENIED,
                                 "the approval of additional write paths was not kept (too "
                                 "many questions open at once): nothing was granted; ask again");
        else if (took < 0)
            rc = api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    checks_ensure();
    sandbox_ensure();
    if (rc == VT_OK && sessions_ensure() != VT_OK)
        rc = api->call_error(call, VT_ERR_IO, "cannot start the exec plugin's sessions");
    if (rc == VT_OK && level != 2 && sandbox_error)
        rc = api->call_error(call, VT_ERR_UNSUPPORTED, "%s", sandbox_error);
    return rc;
}

/* *result is read only once the run succeeded (it is unset otherwise). */
static int result_exited(int rc, cJSON *const *result)
{
    return rc == VT_OK && *result &&
           cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*result, "is_exited"));
}

/* Runs the command (under the watcher when enforcing) between the
 * sandbox's checks before and after it. */
static int run_checked(vt_call *call, const cJSON *args, const char *cmd, spawn_req *req,
                       cJSON **result)
{
    int rc = VT_OK;
    execwatch *w = NULL;
    vt_exec_policy *mask_pol = NULL; /* without the watcher: for the masks only */
    if (enforce)
        rc = watch_start(call, req->sandbox != NULL, req, &w, &req->mask);
    else if (req->sandbox && VT_HAS(api, exec_policy) && api->exec_policy(call, &mask_pol) == VT_OK)
        req->mask = denied_programs(mask_pol);
    char *plan_warning = NULL;
    req->plan_warning = &plan_warning;
    if (rc == VT_OK) {
        execwatch_set_live(w, call);
        rc = session_run(call, req, cmd, w, clamp_yield(args), result);
        execwatch_set_live(w, NULL);
    }
    report_plan_warning(call, plan_warning);
    free(plan_warning);
    if (req->watch_sock > 2)
        close(req->watch_sock);
    if (result_exited(rc, result))
        execwatch_wait(w, 1000);
    cJSON *denied = execwatch_denied(w);
    if (rc == VT_OK && *result && denied)
        cJSON_AddItemToObject(*result, "denied_execs", denied);
    else
        cJSON_Delete(denied);
    execwatch_release(w);
    if (mask_pol)
        mask_pol->release(mask_pol);
    return rc;
}

/* The result's sandbox mode and, for a sandboxed call with additional
 * permissions, what its sandbox added as approved. */
static void add_sandbox_fields(cJSON *result, int escalated, const sandbox_extra *extra)
{
    cJSON_AddStringToObject(result, "sandbox",
                            escalated || !sandbox_state ? "none"
                                                        : sandbox_mode_name(sandbox_cfg.mode));
    if (!extra || !sandbox_state || escalated)
        return;
    cJSON *o = cJSON_AddObjectToObject(result, "additional_permissions");
    cJSON *w = o ? cJSON_AddArrayToObject(o, "write") : NULL;
    for (size_t i = 0; w && i < extra->nwrite; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(extra->write[i]));
    if (o)
        cJSON_AddBoolToObject(o, "network", extra->network);
}

static int exec_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *cmd = args_str(args, "cmd");
    const cJSON *tty_v = cJSON_GetObjectItemCaseSensitive(args, "tty");
    int tty = cJSON_IsTrue(tty_v);
    char *abs = NULL;
    int rc = resolve_workdir(call, args_str(args, "workdir"), &abs);
    if (rc != VT_OK)
        return rc;

    shell_cmd sh;
    const char *what = NULL;
    if (shell_resolve(profile, args_str(args, "shell"), cmd, &sh, &what) != VT_OK) {
        api->free(abs);
        return api->call_error(call, VT_ERR_NOT_FOUND,
                               "no such shell: %s was not found (as a path or on PATH)", what);
    }
    char **env = env_build(tty, &env_pol);
    if (!env) {
        shell_cmd_free(&sh);
        api->free(abs);
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    spawn_req req = {.path = sh.path,
                     .argv = sh.argv,
                     .envp = env,
                     .workdir = abs,
                     .tty = tty,
                     .rows = pty_rows,
                     .cols = pty_cols,
                     .client = VT_HAS(api, call_client_id) ? api->call_client_id(call) : 0};
    /* An escalated call, or one with additional permissions, reaches run
     * only once the user approved it: the permission engine always asks
     * for them. */
    int level = args_level(args);
    int escalated = level == 2;
    sandbox_extra extra = {0};
    netproxy *np = NULL;
    char **direct = NULL;
    rc = prepare_run(call, args, level, &req, &extra);
    if (rc == VT_OK && !escalated && sandbox_proxy(sandbox_state, req.extra))
        rc = exec_netproxy_begin(call, &sandbox_cfg.network, &req, &env, &np);
    if (rc == VT_OK) {
        req.sandbox = escalated ? NULL : sandbox_state;
        if (!escalated && sandbox_warning) {
            if (VT_HAS(api, call_warn_once))
                api->call_warn_once(call, "%s", sandbox_warning);
            else
                api->call_warn(call, "%s", sandbox_warning);
        }
        /* a shell the call names is run as asked */
        if (!args_str(args, "shell"))
            rc = plain_prepare(cmd, sh.path, abs, &env, &direct, &req.direct_under);
        if (rc != VT_OK)
            rc = api->call_error(call, rc, "out of memory");
        req.direct_argv = direct;
        req.envp = env;
    }
    if (rc == VT_OK)
        rc = run_checked(call, args, cmd, &req, result);
    exec_netproxy_end(call, np, &req, rc == VT_OK ? *result : NULL);
    if (rc == VT_OK && *result)
        add_sandbox_fields(*result, escalated, req.extra);
    args_extra_free(&extra);
    plain_words_free(direct);
    env_free(env);
    shell_cmd_free(&sh);
    api->free(abs);
    return rc;
}

/* ---- services ------------------------------------------------------------ */

static const vt_sessions_v1 sessions_service = {.struct_size = sizeof(vt_sessions_v1),
                                                .write_and_wait = exec_netproxy_write_and_wait,
                                                .live_count = sessions_live,
                                                .end_client = sessions_end_client,
                                                .client_count = sessions_client_count};

/* ---- descriptor ------------------------------------------------------------ */

/* Rules written for other agents (Claude Code's Bash) read the same. */
static const char *const rule_aliases[] = {"bash", "Bash", NULL};
/* A running command's session_id is a handle (opaque to 2026-07-28 clients). */
static const char *const handles[] = {"session_id", NULL};

/* The description follows the shell profile init read. */
static const char *describe(const char *tool)
{
    (void)tool;
    return profile == SHELL_POWERSHELL ? EXEC_DESC_PWSH : EXEC_DESC_UNIX;
}

static const vt_tool tools[] = {{.name = "exec_command",
                                 .description = EXEC_DESC_UNIX,
                                 .input_schema = EXEC_SCHEMA,
                                 .title = "Run a shell command",
                                 .output_schema = VT_SESSIONS_RESPONSE_SCHEMA,
                                 .effects = VT_EFFECT_EXECUTES,
                                 .flags = VT_TOOL_COMMAND_RULES,
                                 .rule_aliases = rule_aliases,
                                 .preflight = exec_preflight,
                                 .subjects = exec_subjects,
                                 .run = exec_run,
                                 .describe = describe,
                                 .handles = handles},
                                {0}};

static void read_pty_size(const cJSON *config)
{
    const cJSON *pty = cJSON_GetObjectItemCaseSensitive(config, "pty");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(pty, "default_rows");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(pty, "default_cols");
    if (cJSON_IsNumber(r) && r->valuedouble >= 2 && r->valuedouble <= 1000)
        pty_rows = (unsigned short)r->valuedouble;
    if (cJSON_IsNumber(c) && c->valuedouble >= 10 && c->valuedouble <= 1000)
        pty_cols = (unsigned short)c->valuedouble;
}

/* The [sandbox] settings are checked at init (a mistake refuses the
 * plugin); the sandbox itself is prepared on the first command
 * (sandbox_ensure). */
static int sandbox_setup(char **errmsg)
{
    char *err = NULL;
    if (sandbox_config_parse(api->config(), &sandbox_cfg, &err) != VT_OK) {
        *errmsg = api->strdup(err ? err : "invalid [sandbox] settings");
        free(err);
        return VT_ERR_INVALID;
    }
    if (env_policy_parse(api->config(), &env_pol, &err) != VT_OK) {
        *errmsg = api->strdup(err ? err : "invalid [sandbox.env] settings");
        free(err);
        sandbox_config_free(&sandbox_cfg);
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

static int exec_init(const vt_host_api *host, char **errmsg)
{
    (void)host; /* the same table as api */
    if (sandbox_setup(errmsg) != VT_OK)
        return VT_ERR_INVALID;
    /* The host's reading of [agent] shell_prompt_profile (it refused a
     * wrong value at start). */
    profile = strcmp(api->shell_profile(), "powershell") ? SHELL_UNIX_LIKE : SHELL_POWERSHELL;
    read_pty_size(api->config());
    int rc = spawn_init();
    if (rc == VT_OK)
        rc = api->service_publish(VT_SPLITTER_SERVICE, (void *)splitter_service());
    if (rc == VT_OK)
        rc = api->service_publish(VT_SESSIONS_SERVICE, (void *)&sessions_service);
    if (rc != VT_OK) {
        spawn_fini();
        *errmsg = api->strdup("cannot start the exec plugin's services");
    }
    return rc;
}

static void exec_fini(void)
{
    sessions_fini();
    netproxy_fini(); /* the sessions' proxies end with them */
    exec_netproxy_fini();
    spawn_fini();
    execwatch_fini();
    extra_approved_fini();
    enforce = 0;
    sandbox_free(sandbox_state);
    sandbox_mounts_fini();
    sandbox_names_fini();
    sandbox_paths_fini();
    sandbox_state = NULL;
    sandbox_config_free(&sandbox_cfg);
    env_policy_free(&env_pol);
    free(sandbox_warning);
    free(sandbox_error);
    sandbox_warning = sandbox_error = NULL;
    checks_ready = sandbox_ready = sessions_ready = 0;
}

static const vt_plugin descriptor = {
    VT_PLUGIN_HEADER,  .name = "exec",    .version = "0.1.0",
    .license = "MIT",  .api_slot = &api,  .tools = tools,
    .init = exec_init, .fini = exec_fini, .config_keys = exec_config_keys,
};

VT_PLUGIN_ENTRY(descriptor)
