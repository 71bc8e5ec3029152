/* [agent] shell_prompt_profile, read in one place: the host validates
 * each configuration layer with it, tells the MCP client which shell
 * runs commands, and offers it to plugins (vt_host_api.shell_profile). */
#ifndef VTHOST_SHELL_PROFILE_H
#define VTHOST_SHELL_PROFILE_H

#include <cjson/cJSON.h>

/* The profile `config` (a vtcode.toml tree, may be NULL) names: *out is
 * "unix_like" or "powershell" (static), "auto" and an absent key giving
 * this platform's, "unix_like" on Linux.  VT_ERR_INVALID when the key is
 * not one of "auto", "unix_like", "powershell" (*out then "unix_like"). */
int shell_profile_read(const cJSON *config, const char **out);

#endif
