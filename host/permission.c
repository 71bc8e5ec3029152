/* Placeholder decision step: allows what the profile exposes.  Replaced
 * by the permission engine. */
#include "permission.h"

int permission_init(const cJSON *config, const char *config_path,
                    const char *default_agent, char **err)
{
    (void)config; (void)config_path; (void)default_agent; (void)err;
    return 0;
}

void permission_fini(void) {}

int permission_check(const perm_request *req, char **message)
{
    (void)req; (void)message;
    return 0;
}

int permission_explain(const perm_request *req, cJSON **out)
{
    (void)req;
    *out = cJSON_CreateObject();
    cJSON_AddStringToObject(*out, "decision", "allow");
    cJSON_AddArrayToObject(*out, "trace");
    return 0;
}
