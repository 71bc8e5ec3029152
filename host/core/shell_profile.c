/* [agent] shell_prompt_profile (shell_profile.h). */
#include "shell_profile.h"

#include <string.h>
#include <vthost/plugin.h>

int shell_profile_read(const cJSON *config, const char **out)
{
    *out = "unix_like";
    const cJSON *agent = cJSON_GetObjectItemCaseSensitive(config, "agent");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(agent, "shell_prompt_profile");
    if (!p)
        return VT_OK;
    if (!cJSON_IsString(p))
        return VT_ERR_INVALID;
    if (!strcmp(p->valuestring, "powershell"))
        *out = "powershell";
    else if (strcmp(p->valuestring, "auto") && strcmp(p->valuestring, "unix_like"))
        return VT_ERR_INVALID;
    return VT_OK;
}
