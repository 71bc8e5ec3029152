/* The HTTP front's files joined to the host's own data. */
#include "http_own_data.h"

#include <stdlib.h>
#include <vthost/plugin.h>
#include "host_data.h"
#include "strutil.h"

int http_own_data_register(const http_config *c)
{
    char *toml = c->config_dir ? str_printf("%s/http.toml", c->config_dir) : NULL;
    const char *const files[] = {
        c->token_file,     toml,         c->tls_cert, c->tls_key, c->oauth_jwks_file,
        c->oauth_key_file, c->access_log};
    int rc = c->config_dir ? host_data_add(c->config_dir, HOST_DATA_DIR) : VT_OK;
    /* shared: a stdio vthost of the same user masks them too, or its
     * commands could take this server's token */
    for (size_t i = 0; rc == VT_OK && i < sizeof files / sizeof *files; i++)
        if (files[i])
            rc = host_data_add(files[i], HOST_DATA_SHARED);
    free(toml);
    return rc;
}
