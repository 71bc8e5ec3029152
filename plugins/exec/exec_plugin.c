/* The exec plugin: the exec_command tool, its permission hook, and the
 * services (command splitter, live sessions) other modules reach. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>

#include <vthost/services.h>
#include "execwatch.h"
#include "sandbox.h"
#include "session.h"
#include "shellenv.h"
#include "splitter.h"

#define YIELD_DEFAULT_MS 10000
#define YIELD_MIN_MS 250
#define YIELD_MAX_MS 30000

/* Shared with session.c (session.h); set by the host before init. */
VT_PLUGIN_API(api);
static sandbox_config sandbox_cfg;
static sandbox *sandbox_state;   /* NULL: danger-full-access or fallback */
static char *sandbox_warning;    /* what this machine cannot protect */
static char *sandbox_error;      /* why sandboxed commands cannot run */
static shell_profile profile;
static unsigned short pty_rows = 24, pty_cols = 80;

static const char DESC_UNIX[] =
    "Runs a shell command through the active shell profile (Unix-like: $SHELL -c, "
    "else bash, else sh). Returns the output (stdout and stderr merged), exit_code "
    "once the command has exited, else a session_id: feed or poll a running command "
    "with write_stdin. Set tty for programs that need an interactive terminal. Long "
    "output is cut to max_output_tokens; the complete text is kept at spool_path.\n"
    "Example: {\"cmd\":\"rg -n \\\"ToolProfile\\\" vtcode-core\",\"workdir\":\"/repo\"}";

static const char DESC_PWSH[] =
    "Runs a command through the active shell profile (PowerShell: pwsh -NoProfile "
    "-Command). Use native PowerShell syntax. Returns the output, exit_code once the "
    "command has exited, else a session_id: feed or poll a running command with "
    "write_stdin. Set tty for programs that need an interactive terminal. Long output "
    "is cut to max_output_tokens; the complete text is kept at spool_path.\n"
    "Example: {\"cmd\":\"Select-String -Path vtcode-core/**/*.rs -Pattern "
    "ToolProfile\",\"workdir\":\"C:\\\\repo\"}";

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"cmd\":{\"type\":\"string\",\"description\":\"Command text, run through the active "
    "shell profile.\"},"
    "\"workdir\":{\"type\":\"string\",\"description\":\"Working directory, relative to the "
    "workspace root or absolute; it must be inside the workspace.\"},"
    "\"tty\":{\"type\":\"boolean\",\"description\":\"Allocate a PTY when the command needs "
    "an interactive terminal (default false).\"},"
    "\"yield_time_ms\":{\"type\":\"integer\",\"description\":\"How long to wait for output "
    "before returning (default 10000, clamped to 250..30000).\"},"
    "\"shell\":{\"type\":\"string\",\"description\":\"Shell binary to use instead of the "
    "profile's.\"},"
    "\"sandbox_permissions\":{\"type\":\"string\",\"enum\":[\"use_default\","
    "\"require_escalated\"],\"description\":\"require_escalated asks to run outside the "
    "sandbox (default use_default).\"},"
    "\"justification\":{\"type\":\"string\",\"description\":\"Why escalation is needed; "
    "required with require_escalated.\"}"
    "},\"required\":[\"cmd\"],\"additionalProperties\":false}";

static int enforce; /* run-time enforcement of every execve (execwatch.h) */

/* Where a sandboxed command can write (NULL-terminated, malloc'd), or
 * NULL when it runs unconfined. */
static char **writable_dirs(int confined)
{
    if (!confined)
        return NULL;
    const char *tmpdir = getenv("TMPDIR");
    size_t n = 0;
    char **v = calloc(sandbox_cfg.nwritable + 6, sizeof *v);
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

static const char *str_arg(const cJSON *args, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int blank(const char *s)
{
    for (; s && *s; s++)
        if (!strchr(" \t\r\n", *s))
            return 0;
    return 1;
}

static int exec_preflight(vt_call *call, const cJSON *args)
{
    const char *cmd = str_arg(args, "cmd");
    if (!cmd || blank(cmd))
        return api->call_error(call, VT_ERR_INVALID, "cmd: must be a non-empty command");
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(args, "sandbox_permissions");
    if (sp && !(cJSON_IsString(sp) && (!strcmp(sp->valuestring, "use_default") ||
                                       !strcmp(sp->valuestring, "require_escalated"))))
        return api->call_error(call, VT_ERR_INVALID,
                               "sandbox_permissions: must be \"use_default\" or "
                               "\"require_escalated\"");
    if (sp && !strcmp(sp->valuestring, "require_escalated") &&
        blank(str_arg(args, "justification")))
        return api->call_error(call, VT_ERR_INVALID,
                               "justification: required and non-empty when "
                               "sandbox_permissions is \"require_escalated\"");
    const char *shell = str_arg(args, "shell");
    if (shell && blank(shell))
        return api->call_error(call, VT_ERR_INVALID, "shell: must name a shell binary");
    return VT_OK;
}

static int exec_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    int rc = VT_OK;
    /* The working directory first: relative paths below start from it. */
    const char *wd = str_arg(args, "workdir");
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
        rc = split_shell(str_arg(args, "cmd") ? str_arg(args, "cmd") : "", &l);
    static const vt_subject_kind kinds[] = {
        [SPLIT_COMMAND] = VT_SUBJECT_COMMAND, [SPLIT_OPAQUE] = VT_SUBJECT_OPAQUE,
        [SPLIT_WRITE] = VT_SUBJECT_PATH_EDIT, [SPLIT_READ] = VT_SUBJECT_PATH_READ};
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
    const char *shell = str_arg(args, "shell");
    if (rc == VT_OK && shell) {
        char **wr = writable_dirs(1);
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
    const char *sp = str_arg(args, "sandbox_permissions");
    const char *why = str_arg(args, "justification");
    if (rc == VT_OK && sp && !strcmp(sp, "require_escalated"))
        rc = api->subject_add(out, VT_SUBJECT_ESCALATION, why ? why : "");
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
        return api->call_error(call, VT_ERR_OUTSIDE,
                               "workdir '%s' is outside the workspace (%s)", wd,
                               api->workspace_root());
    case VT_ERR_NOT_FOUND:
        return api->call_error(call, VT_ERR_NOT_FOUND, "workdir '%s' does not exist", wd);
    default:
        return api->call_error(call, rc < 0 ? rc : VT_ERR_INVALID,
                               "workdir '%s' is not a directory inside the workspace", wd);
    }
}

static int watch_start(vt_call *call, int confined, execwatch **w, int *sock)
{
    vt_exec_policy *pol = NULL;
    if (!VT_HAS(api, exec_policy) || api->exec_policy(call, &pol) != VT_OK)
        return api->call_error(call, VT_ERR_UNSUPPORTED,
                               "the host cannot judge the programs a command runs");
    /* Unconfined commands can write more, but the user's own directories
     * (and everything, for root) would then name every program by path. */
    (void)confined;
    execwatch_opts o = {.api = api, .policy = pol, .writable = writable_dirs(1)};
    if (execwatch_start(&o, w, sock) != VT_OK)
        return api->call_error(call, VT_ERR_IO, "cannot start the run-time command checks");
    return VT_OK;
}

static int exec_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *cmd = str_arg(args, "cmd");
    const char *wd = str_arg(args, "workdir");
    const cJSON *tty_v = cJSON_GetObjectItemCaseSensitive(args, "tty");
    int tty = cJSON_IsTrue(tty_v);
    char *abs = NULL;
    if (wd) {
        int rc = api->resolve_path(wd, VT_RESOLVE_MUST_EXIST | VT_RESOLVE_DIRECTORY, &abs);
        if (rc != VT_OK) {
            api->free(abs);
            return workdir_error(call, wd, rc);
        }
    } else if (!(abs = api->strdup(api->workspace_root()))) {
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }

    shell_cmd sh;
    const char *what = NULL;
    if (shell_resolve(profile, str_arg(args, "shell"), cmd, &sh, &what) != VT_OK) {
        api->free(abs);
        return api->call_error(call, VT_ERR_NOT_FOUND,
                               "no such shell: %s was not found (as a path or on PATH)", what);
    }
    char **env = env_build(tty);
    if (!env) {
        shell_cmd_free(&sh);
        api->free(abs);
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    spawn_req req = {.path = sh.path, .argv = sh.argv, .envp = env, .workdir = abs,
                     .tty = tty, .rows = pty_rows, .cols = pty_cols};
    /* An escalated call reaches run only once the user approved it: the
     * permission engine always asks for require_escalated. */
    const char *sp = str_arg(args, "sandbox_permissions");
    int escalated = sp && strcmp(sp, "require_escalated") == 0;
    int rc = VT_OK;
    if (!escalated && sandbox_error)
        rc = api->call_error(call, VT_ERR_UNSUPPORTED, "%s", sandbox_error);
    if (rc == VT_OK) {
        req.sandbox = escalated ? NULL : sandbox_state;
        if (!escalated && sandbox_warning)
            api->call_warn(call, "%s", sandbox_warning);
        execwatch *w = NULL;
        if (enforce)
            rc = watch_start(call, req.sandbox != NULL, &w, &req.watch_sock);
        if (rc == VT_OK) {
            execwatch_set_live(w, call);
            rc = session_run(call, &req, cmd, w, clamp_yield(args), result);
            execwatch_set_live(w, NULL);
        }
        if (req.watch_sock > 2)
            close(req.watch_sock);
        if (rc == VT_OK && *result &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*result, "is_exited")))
            execwatch_wait(w, 1000);
        cJSON *denied = execwatch_denied(w);
        if (rc == VT_OK && *result && denied)
            cJSON_AddItemToObject(*result, "denied_execs", denied);
        else
            cJSON_Delete(denied);
        execwatch_release(w);
    }
    if (rc == VT_OK && *result)
        cJSON_AddStringToObject(*result, "sandbox",
                                escalated || !sandbox_state ? "none"
                                                            : sandbox_mode_name(sandbox_cfg.mode));
    env_free(env);
    shell_cmd_free(&sh);
    api->free(abs);
    return rc;
}

/* ---- services ------------------------------------------------------------ */

static int splitter_split(const char *cmd, cJSON **out)
{
    split_list l = {0};
    *out = NULL;
    int rc = split_shell(cmd ? cmd : "", &l);
    cJSON *arr = rc == VT_OK ? cJSON_CreateArray() : NULL;
    for (size_t k = 0; arr && k < l.count; k++) {
        if (l.items[k].kind != SPLIT_COMMAND && l.items[k].kind != SPLIT_OPAQUE)
            continue;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "command", l.items[k].text) ||
            !cJSON_AddBoolToObject(o, "opaque", l.items[k].kind == SPLIT_OPAQUE) ||
            !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            arr = NULL;
        }
    }
    split_list_free(&l);
    if (!arr)
        return VT_ERR_NOMEM;
    *out = arr;
    return VT_OK;
}

static const vt_splitter_v1 splitter_service = {
    .struct_size = sizeof(vt_splitter_v1), .split = splitter_split};

static const vt_sessions_v1 sessions_service = {
    .struct_size = sizeof(vt_sessions_v1),
    .write_and_wait = session_write_and_wait,
    .live_count = sessions_live};

/* ---- descriptor ------------------------------------------------------------ */

/* Not const: the description follows the configured shell profile and is
 * set in init (the host copies descriptions after init). */
/* Rules written for other agents (Claude Code's Bash) read the same. */
static const char *const rule_aliases[] = {"bash", "Bash", NULL};

static vt_tool tools[] = {
    {.name = "exec_command",
     .description = DESC_UNIX,
     .input_schema = SCHEMA,
     .title = "Run a shell command",
     .output_schema = VT_SESSIONS_RESPONSE_SCHEMA,
     .effects = VT_EFFECT_EXECUTES,
     .flags = VT_TOOL_COMMAND_RULES,
     .rule_aliases = rule_aliases,
     .preflight = exec_preflight,
     .subjects = exec_subjects,
     .run = exec_run},
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

/* The sandbox is prepared once: commands only apply it.  A kernel
 * without Landlock is not an init failure: sandboxed commands are refused
 * with sandbox_error, escalated ones still run. */
static int sandbox_setup(char **errmsg)
{
    char *err = NULL;
    if (sandbox_config_parse(api->config(), &sandbox_cfg, &err) != VT_OK) {
        *errmsg = api->strdup(err ? err : "invalid [sandbox] settings");
        free(err);
        return VT_ERR_INVALID;
    }
    int rc = sandbox_prepare(&sandbox_cfg, api->workspace_root(), &sandbox_state,
                             &sandbox_warning, &sandbox_error);
    if (rc != VT_OK && rc != VT_ERR_UNSUPPORTED) {
        *errmsg = api->strdup(sandbox_error ? sandbox_error : "cannot prepare the sandbox");
        return rc;
    }
    return VT_OK;
}

static int exec_init(const vt_host_api *host, char **errmsg)
{
    (void)host; /* the same table as api */
    if (sandbox_setup(errmsg) != VT_OK)
        return VT_ERR_INVALID;
    if (shell_profile_from_config(api->config(), &profile) != VT_OK) {
        *errmsg = api->strdup("agent.shell_prompt_profile must be \"auto\", "
                              "\"unix_like\" or \"powershell\"");
        return VT_ERR_INVALID;
    }
    tools[0].description = profile == SHELL_POWERSHELL ? DESC_PWSH : DESC_UNIX;
    read_pty_size(api->config());
    /* Run-time enforcement needs the host's exec policy (ABI 1.1) and a
     * kernel that can continue trapped calls; without it the static
     * check stays conservative (opaque texts are not pre-approved). */
    if (VT_HAS(api, exec_policy) && execwatch_prepare() == VT_OK)
        enforce = !getenv("VTHOST_NO_EXEC_CHECKS");
    else
        api->log(VT_LOG_WARNING, "exec",
                 "run-time command checks are unavailable (Linux 5.5 and libseccomp 2.5 "
                 "needed): command rules hold only for the command text");
    int rc = sessions_init();
    if (rc == VT_OK)
        rc = spawn_init();
    if (rc == VT_OK)
        rc = api->service_publish(VT_SPLITTER_SERVICE, (void *)&splitter_service);
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
    spawn_fini();
    execwatch_fini();
    enforce = 0;
    sandbox_free(sandbox_state);
    sandbox_state = NULL;
    sandbox_config_free(&sandbox_cfg);
    free(sandbox_warning);
    free(sandbox_error);
    sandbox_warning = sandbox_error = NULL;
}

static const vt_plugin descriptor = {
    VT_PLUGIN_HEADER,
    .name = "exec",
    .version = "0.1.0",
    .license = "MIT",
    .api_slot = &api,
    .tools = tools,
    .init = exec_init,
    .fini = exec_fini,
};

VT_PLUGIN_ENTRY(descriptor)
