/* The configuration keys the exec plugin reads, and what an untrusted
 * workspace's vtcode.toml may do with each: lower a limit, drop an
 * allowed domain, add a denied one; nothing else.  The limits' defaults
 * are the ones sandbox_config_parse and netproxy_rules_parse apply, so a
 * value is judged against what is really in force.  sandbox.mode and
 * sandbox.network_access are the host's keys (it judges them itself). */
#include "exec_config.h"
#include "netproxy_rules.h"
#include "sandbox.h"

const vt_config_key exec_config_keys[] = {
    {"sandbox", "fallback", VT_CONFIG_TRUSTED, 0, NULL},
    {"sandbox", "writable_roots", VT_CONFIG_TRUSTED, 0, NULL},
    {"sandbox", "max_processes", VT_CONFIG_SMALLER, SANDBOX_DEFAULT_PROCESSES, NULL},
    {"sandbox", "cpu_time_seconds", VT_CONFIG_SMALLER_NONZERO, SANDBOX_DEFAULT_CPU_SECONDS, NULL},
    {"sandbox", "max_memory_mb", VT_CONFIG_SMALLER_NONZERO, SANDBOX_DEFAULT_MEMORY_MB, NULL},
    {"sandbox", "max_file_size_mb", VT_CONFIG_SMALLER_NONZERO, SANDBOX_DEFAULT_FILE_SIZE_MB, NULL},
    {"sandbox.env", "include", VT_CONFIG_TRUSTED, 0, NULL},
    {"sandbox.env", "exclude", VT_CONFIG_TRUSTED, 0, NULL},
    {"sandbox.env", "set", VT_CONFIG_TRUSTED, 0, NULL},
    {"sandbox.network", "allowed_domains", VT_CONFIG_SUBSET, 0, NULL},
    {"sandbox.network", "denied_domains", VT_CONFIG_SUPERSET, 0, NULL},
    {"sandbox.network", "max_connections", VT_CONFIG_SMALLER, NETPROXY_DEFAULT_CONNECTIONS, NULL},
    {"pty", "default_rows", VT_CONFIG_TRUSTED, 0, NULL},
    {"pty", "default_cols", VT_CONFIG_TRUSTED, 0, NULL},
    {0},
};
