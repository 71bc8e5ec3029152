/* Reviewer pipeline for auto decisions.  The external command runs with
 * posix_spawn (safe in a threaded server), gets the request as JSON on
 * stdin and must answer within the timeout; it is killed otherwise. */
#include "monotime.h"
#include "perm_engine.h"
#include "perm_match.h"
#include "perm_review.h"
#include "subjects.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int perm_review_exception(const perm_eval *ev, const char **reason)
{
    const uint32_t risky = VT_EFFECT_EXECUTES | VT_EFFECT_NETWORK;
    if ((ev->effects & VT_EFFECT_READ_ONLY) &&
        !(ev->effects & (risky | VT_EFFECT_MUTATES_WORKSPACE))) {
        *reason = "read-only tool";
        return 1;
    }
    if (!(ev->effects & VT_EFFECT_MUTATES_WORKSPACE) || (ev->effects & risky))
        return 0;
    size_t paths = 0;
    for (size_t i = 0; i < ev->nsubj; i++) {
        const perm_subj *d = &ev->subj[i];
        if (d->kind >= VT_SUBJECT_PATH_READ && d->kind <= VT_SUBJECT_PATH_DELETE) {
            if (!d->inside || d->protect)
                return 0;
            paths++;
        } else if (d->kind != VT_SUBJECT_CWD) {
            return 0; /* commands, domains, escalation: review them */
        }
    }
    if (!paths)
        return 0;
    *reason = "edits inside the workspace to non-protected paths";
    return 1;
}

static cJSON *string_array(const perm_string_list *l)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < l->count; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i]));
    return a;
}

/* A call its tool reports as a tools/call to another MCP server
 * (VT_SUBJECT_MCP_SERVER and VT_SUBJECT_MCP_TOOL): the request's "mcp"
 * object, {"server", "tool", "arguments"} as the server gets them
 * (without vthost's own max_output_tokens); else NULL. */
static cJSON *mcp_request(const perm_eval *ev, const cJSON *args)
{
    const char *server = NULL, *tool = NULL;
    for (size_t i = 0; i < ev->nsubj; i++) {
        if (ev->subj[i].kind == VT_SUBJECT_MCP_SERVER && !server)
            server = ev->subj[i].raw;
        else if (ev->subj[i].kind == VT_SUBJECT_MCP_TOOL && !tool)
            tool = ev->subj[i].raw;
    }
    if (!server || !tool)
        return NULL;
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    cJSON_AddStringToObject(m, "server", server);
    cJSON_AddStringToObject(m, "tool", tool);
    cJSON *a = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(a, "max_output_tokens");
    cJSON_AddItemToObject(m, "arguments", a);
    return m;
}

cJSON *perm_review_request(const perm_eval *ev, const cJSON *args)
{
    const perm_settings *st = ev->st;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *mcp = mcp_request(ev, args);
    cJSON_AddStringToObject(o, "kind", mcp ? "mcp_tool_call" : "tool_call");
    if (mcp)
        cJSON_AddItemToObject(o, "mcp", mcp);
    cJSON_AddStringToObject(o, "tool", ev->tool);
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddStringToObject(o, "workspace", st->workspace);
    if (args)
        cJSON_AddItemToObject(o, "arguments", cJSON_Duplicate(args, 1));
    cJSON_AddItemToObject(o, "subjects", perm_eval_subjects(ev));
    if (ev->rule)
        cJSON_AddStringToObject(o, "rule", ev->rule->text);
    else
        cJSON_AddNullToObject(o, "rule");
    cJSON_AddStringToObject(o, "layer", ev->layer ? ev->layer : "");
    if (ev->justification)
        cJSON_AddStringToObject(o, "justification", ev->justification);
    cJSON *env = cJSON_AddObjectToObject(o, "environment");
    if (env) {
        cJSON_AddItemToObject(env, "trusted_paths", string_array(&st->trusted_paths));
        cJSON_AddItemToObject(env, "trusted_domains", string_array(&st->trusted_domains));
        cJSON_AddItemToObject(env, "trusted_git_hosts", string_array(&st->trusted_git_hosts));
        cJSON_AddItemToObject(env, "trusted_git_orgs", string_array(&st->trusted_git_orgs));
        cJSON_AddItemToObject(env, "trusted_services", string_array(&st->trusted_services));
    }
    cJSON_AddItemToObject(o, "block_rules", string_array(&st->block_rules));
    cJSON_AddItemToObject(o, "allow_exceptions", string_array(&st->allow_exceptions));
    return o;
}

/* Blanks and the characters of `seps` skipped. */
static const char *skip_seps(const char *p, const char *seps)
{
    while (*p && (isspace((unsigned char)*p) || strchr(seps, *p)))
        p++;
    return p;
}

static size_t word_len(const char *p)
{
    size_t w = 0;
    while (p[w] && isalpha((unsigned char)p[w]))
        w++;
    return w;
}

/* An answer's first word: ALLOW or BLOCK in any case (PREVIEW_*), else
 * PREVIEW_ASK; *p moves past it. */
static int verdict_word(const char **p)
{
    const char *s = skip_seps(*p, "");
    size_t w = word_len(s);
    *p = s + w;
    if (w == 5 && strncasecmp(s, "ALLOW", 5) == 0)
        return PREVIEW_ALLOW;
    if (w == 5 && strncasecmp(s, "BLOCK", 5) == 0)
        return PREVIEW_BLOCK;
    return PREVIEW_ASK;
}

/* The rest of an answer without trailing blanks: the reason (malloc'd). */
static char *reason_text(const char *p)
{
    size_t len = strlen(p);
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    return strndup(p, len);
}

int perm_review_parse_answer(const char *text, char **reason)
{
    *reason = NULL;
    const char *p = text;
    int out = verdict_word(&p);
    if (out == PREVIEW_ASK)
        return PREVIEW_ASK;
    *reason = reason_text(skip_seps(p, ":-"));
    return out;
}

static long now_ms(void) { return (long)mono_now_ms(); }

/* Start argv with a socket as its stdin (*in, ours) and a pipe as its
 * stdout (*out, ours).  A socket, because writes use MSG_NOSIGNAL: a
 * reviewer that exits without reading cannot kill the host with SIGPIPE. */
static int spawn_reviewer(char *const *argv, pid_t *pid, int *in, int *out, char **why)
{
    int ip[2], op[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ip) < 0)
        return VT_ERR_IO;
    if (pipe2(op, O_CLOEXEC) < 0) {
        close(ip[0]);
        close(ip[1]);
        return VT_ERR_IO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ip[1], 0);
    posix_spawn_file_actions_adddup2(&fa, op[1], 1);
    int rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(ip[1]);
    close(op[1]);
    if (rc != 0) {
        close(ip[0]);
        close(op[0]);
        if (asprintf(why, "cannot run reviewer command %s: %s", argv[0], strerror(rc)) < 0)
            *why = NULL;
        return VT_ERR_IO;
    }
    fcntl(ip[0], F_SETFL, O_NONBLOCK);
    *in = ip[0];
    *out = op[0];
    return 0;
}

/* Write `input` to `in` while reading `out` into buf (at most `cap`
 * bytes, *len of them), until the output ends or `deadline`: 1 when the
 * deadline came first. */
static int exchange(int in, int out, const char *input, char *buf, size_t cap, size_t *len,
                    long deadline)
{
    size_t ilen = strlen(input), ioff = 0, olen = 0;
    int in_open = 1, out_open = 1, timed_out = 0;
    while (out_open) {
        long left = deadline - now_ms();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf[2] = {{out, POLLIN, 0}, {in, POLLOUT, 0}};
        int n = poll(pf, in_open ? 2 : 1, (int)left);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        if (in_open && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = send(in, input + ioff, ilen - ioff, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0)
                ioff += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                ioff = ilen; /* the reviewer stopped reading */
            if (ioff >= ilen) {
                shutdown(in, SHUT_WR);
                in_open = 0;
            }
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = read(out, buf + olen, cap - olen);
            if (r > 0)
                olen += (size_t)r;
            else if (r == 0 || (errno != EAGAIN && errno != EINTR))
                out_open = 0;
            if (olen == cap)
                out_open = 0;
        }
    }
    *len = olen;
    return timed_out;
}

/* Run argv with `input` on stdin; *output gets at most 64 KiB of stdout.
 * 0 on a clean exit within the timeout. */
static int run_command(char *const *argv, const char *input, long timeout_ms, char **output,
                       char **why)
{
    int in, out;
    pid_t pid;
    *output = NULL;
    int rc = spawn_reviewer(argv, &pid, &in, &out, why);
    if (rc < 0)
        return rc;
    size_t olen = 0, ocap = 65536;
    char *buf = malloc(ocap + 1);
    int timed_out = buf && exchange(in, out, input, buf, ocap, &olen, now_ms() + timeout_ms);
    close(in);
    close(out);
    int status = 0;
    if (timed_out) {
        kill(pid, SIGKILL);
        if (asprintf(why, "reviewer command timed out after %ld ms", timeout_ms) < 0)
            *why = NULL;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!buf)
        return VT_ERR_NOMEM;
    buf[olen] = 0;
    *output = buf;
    return timed_out ? VT_ERR_BUSY : 0;
}

static const char *review_system_prompt =
    "You review one tool call of a coding agent before it runs. The request "
    "is JSON: the tool, its arguments, the commands, paths and domains it "
    "touches, the user's environment (trusted paths, domains, git hosts and "
    "services), block_rules the user wants enforced and allow_exceptions "
    "they accept. A request of kind mcp_tool_call goes to another MCP "
    "server: mcp names the server, its tool and the arguments it gets. "
    "Answer with ALLOW or BLOCK as the first word, then a short reason.";

/* The probe: a small model asked first, with a short prompt and only
 * what the decision needs; it must say how sure it is. */
static const char *probe_system_prompt =
    "Classify one tool call of a coding agent (kind mcp_tool_call: a call of "
    "another MCP server's tool). Answer ALLOW HIGH or BLOCK HIGH "
    "when you are certain, ALLOW LOW or BLOCK LOW when you lean one way, or "
    "UNSURE; then a few words of reason.";

int perm_review_parse_probe(const char *text, int *confident, char **reason)
{
    *confident = 0;
    *reason = NULL;
    const char *p = text;
    int out = verdict_word(&p);
    if (out != PREVIEW_ASK) {
        p = skip_seps(p, ":-,");
        size_t w = word_len(p);
        if (w == 4 && strncasecmp(p, "HIGH", 4) == 0)
            *confident = 1;
        if ((w == 4 && strncasecmp(p, "HIGH", 4) == 0) || (w == 3 && strncasecmp(p, "LOW", 3) == 0))
            p += w;
    }
    *reason = reason_text(skip_seps(p, ":-,"));
    return out;
}

/* What the probe sees: the call and the user's rules, without the
 * environment lists. */
static char *probe_text(const cJSON *request)
{
    static const char *const keep[] = {"kind",          "mcp",         "tool",
                                       "arguments",     "subjects",    "rule",
                                       "justification", "block_rules", "allow_exceptions"};
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < sizeof keep / sizeof keep[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(request, keep[i]);
        if (v && !(cJSON_IsArray(v) && !cJSON_GetArraySize(v)))
            cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
    }
    char *t = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return t;
}

/* Ask the probe model; 1 when its confident answer decides, 0 when the
 * full model must be asked. */
static int run_probe(const frontend *fe, const cJSON *request, perm_review *out)
{
    char *text = probe_text(request), *answer = NULL;
    int rc = text ? fe->sample(fe->ctx, probe_system_prompt, text, out->probe_model, &answer) : -1;
    free(text);
    if (rc == 0 && answer) {
        out->probed = 1;
        out->probe_outcome =
            perm_review_parse_probe(answer, &out->probe_confident, &out->probe_reason);
        if (out->probe_outcome == PREVIEW_ASK)
            out->probe_confident = 0;
    }
    free(answer);
    if (!out->probed || !out->probe_confident)
        return 0;
    out->stage = "probe";
    out->outcome = out->probe_outcome;
    out->reason = out->probe_reason ? strdup(out->probe_reason) : NULL;
    return 1;
}

void perm_review_audit(const perm_review *r, cJSON *review)
{
    if (!r || !review)
        return;
    if (r->probed || (r->probe_model && !strcmp(r->stage, "sampling"))) {
        cJSON *p = cJSON_AddObjectToObject(review, "probe");
        if (!p)
            return;
        cJSON_AddStringToObject(p, "model", r->probe_model ? r->probe_model : "");
        cJSON_AddStringToObject(p, "answer",
                                !r->probed                          ? "none"
                                : !r->probe_confident               ? "unsure"
                                : r->probe_outcome == PREVIEW_ALLOW ? "allow"
                                                                    : "block");
        if (r->probe_reason)
            cJSON_AddStringToObject(p, "reason", r->probe_reason);
    }
    if (!strcmp(r->stage, "sampling"))
        cJSON_AddStringToObject(review, "model", r->model ? r->model : "");
}

void perm_review_run(const perm_eval *ev, const cJSON *request, const vt_reviewer_v1 *reviewer,
                     void (*reviewer_free)(void *), const frontend *fe, int no_sampling,
                     perm_review *out)
{
    memset(out, 0, sizeof *out);
    out->outcome = PREVIEW_ASK;
    out->stage = "none";
    if (reviewer && reviewer->struct_size >= sizeof *reviewer && reviewer->review) {
        char *reason = NULL;
        int r = reviewer->review(reviewer->ud, request, &reason);
        if (r >= 0) {
            out->stage = "reviewer";
            out->outcome = r ? PREVIEW_ALLOW : PREVIEW_BLOCK;
            out->reason = reason ? strdup(reason) : NULL;
        }
        if (reason && reviewer_free)
            reviewer_free(reason);
        if (r >= 0)
            return;
    }
    const perm_settings *st = ev->st;
    if (st->command_argv) {
        char *text = cJSON_PrintUnformatted(request), *output = NULL, *why = NULL;
        int rc = text ? run_command(st->command_argv, text, st->command_timeout_ms, &output, &why)
                      : VT_ERR_NOMEM;
        free(text);
        out->stage = "command";
        if (rc == 0) {
            out->outcome = perm_review_parse_answer(output, &out->reason);
            if (out->outcome == PREVIEW_ASK && !out->reason)
                out->reason = strdup("the reviewer command answered neither ALLOW nor BLOCK");
        } else {
            out->reason = why ? why : strdup("the reviewer command failed");
            why = NULL;
        }
        free(why);
        free(output);
        return;
    }
    if (!no_sampling && fe && fe->sample) {
        out->probe_model = st->probe_model && *st->probe_model ? st->probe_model : NULL;
        out->model = st->model && *st->model ? st->model : NULL;
        /* The probe first: the full model only when it is not sure. */
        if (out->probe_model && run_probe(fe, request, out))
            return;
        char *text = cJSON_PrintUnformatted(request), *answer = NULL;
        const char *hint = out->model;
        int rc = text ? fe->sample(fe->ctx, review_system_prompt, text, hint, &answer) : -1;
        free(text);
        if (rc == 0 && answer) {
            out->stage = "sampling";
            out->outcome = perm_review_parse_answer(answer, &out->reason);
            if (out->outcome == PREVIEW_ASK && !out->reason)
                out->reason = strdup("the client's model answered neither ALLOW nor BLOCK");
        }
        free(answer);
        if (rc == 0)
            return;
    }
    out->reason = strdup("no reviewer is configured");
}

void perm_review_clear(perm_review *r)
{
    free(r->reason);
    free(r->probe_reason);
    memset(r, 0, sizeof *r);
}
