/* Origin checks: see http_origin.h.
 *
 * A page can only name a loopback Origin when the browser loaded it from
 * this machine, so on a loopback listener (which nothing else reaches)
 * a local web inspector on any port is no rebinding attacker.  The match
 * is exact: scheme http, one of the three loopback hosts, an optional
 * port of digits, nothing after (http://localhost.evil.example does not
 * pass). */
#include <string.h>
#include "http_origin.h"

static int loopback_origin(const char *origin)
{
    static const char *const hosts[] = {"http://localhost", "http://127.0.0.1", "http://[::1]"};
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++) {
        size_t n = strlen(hosts[i]);
        if (strncmp(origin, hosts[i], n) != 0)
            continue;
        const char *p = origin + n;
        if (!*p)
            return 1;
        if (*p++ != ':' || !*p || strlen(p) > 5)
            return 0;
        return strspn(p, "0123456789") == strlen(p);
    }
    return 0;
}

int http_origin_allowed(const http_config *cfg, const char *origin)
{
    if (!origin)
        return 1; /* not a browser */
    for (char **o = cfg->origins; o && *o; o++)
        if (strcmp(*o, origin) == 0)
            return 1;
    return cfg->loopback && loopback_origin(origin);
}
