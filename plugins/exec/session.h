/* The live sessions of exec_command: a bounded table of running
 * commands, waited on by exec_command and by write_stdin (through the
 * exec.sessions service). */
#ifndef VTHOST_EXEC_SESSION_H
#define VTHOST_EXEC_SESSION_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <vthost/plugin.h>
#include "execwatch.h"
#include "spawn.h"

#define SESSIONS_MAX 64
#define SESSIONS_WARN 60
#define SESSIONS_PROTECTED 8 /* most recently used, never pruned */
/* A client's share of the table (vt_host_api.call_client_id; the HTTP
 * server's client sessions): past it the client's own least recently
 * used session is pruned, never another client's.  The stdio front end
 * (client 0) has the whole table. */
#define SESSIONS_PER_CLIENT 16

/* The plugin's host API table (exec_plugin.c), set before init. */
extern const vt_host_api *api;

int sessions_init(void);
/* End every session's process group (TERM, grace, KILL) and reap. */
void sessions_fini(void);
int sessions_live(void);
/* vt_sessions_v1.end_client: end every session of `client`. */
void sessions_end_client(uint64_t client);
/* Sessions of `client` in the table. */
int sessions_client_count(uint64_t client);

/* Start `req` as a new session and wait up to yield_ms for it: the
 * exec_command run.  `cmd` and `workdir` are borrowed (copied); `watch`
 * (may be NULL) is the command's run-time watcher: the session keeps a
 * reference, to report the programs the command ran when it exits. */
int session_run(vt_call *call, const spawn_req *req, const char *cmd, execwatch *watch,
                int yield_ms, cJSON **result);

/* write_stdin: see vt_sessions_v1.write_and_wait. */
int session_write_and_wait(vt_call *call, int64_t id, const char *chars, size_t len, int yield_ms,
                           cJSON **result);

#endif
