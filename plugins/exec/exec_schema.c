/* The exec_command tool's descriptions (one per shell profile) and its
 * input schema, as the plugin's descriptor publishes them. */
#include "exec_schema.h"

const char EXEC_DESC_UNIX[] =
    "Runs a shell command through the active shell profile (Unix-like: $SHELL -c, "
    "else bash, else sh). Returns the output (stdout and stderr merged), exit_code "
    "once the command has exited, else a session_id: feed or poll a running command "
    "with write_stdin. Set tty for programs that need an interactive terminal. Long "
    "output is cut to max_output_tokens; the complete text is kept at spool_path.\n"
    "Example: {\"cmd\":\"rg -n \\\"ToolProfile\\\" vtcode-core\",\"workdir\":\"/repo\"}";

const char EXEC_DESC_PWSH[] =
    "Runs a command through the active shell profile (PowerShell: pwsh -NoProfile "
    "-Command). Use native PowerShell syntax. Returns the output, exit_code once the "
    "command has exited, else a session_id: feed or poll a running command with "
    "write_stdin. Set tty for programs that need an interactive terminal. Long output "
    "is cut to max_output_tokens; the complete text is kept at spool_path.\n"
    "Example: {\"cmd\":\"Select-String -Path vtcode-core/**/*.rs -Pattern "
    "ToolProfile\",\"workdir\":\"C:\\\\repo\"}";

const char EXEC_SCHEMA[] =
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
    "\"with_additional_permissions\",\"require_escalated\",\"bypass_sandbox\"],"
    "\"description\":\"require_escalated (alias bypass_sandbox) asks to run outside the "
    "sandbox; with_additional_permissions asks to run in the sandbox extended by "
    "additional_permissions (default use_default).\"},"
    "\"additional_permissions\":{\"type\":\"object\",\"description\":\"With "
    "with_additional_permissions: what the sandbox adds for this call.\",\"properties\":{"
    "\"file_system\":{\"type\":\"object\",\"properties\":{\"write\":{\"type\":"
    "\"array\",\"items\":{\"type\":\"string\"},\"description\":\"Existing directories "
    "or files (absolute, or relative to the workspace) made writable.\"}},"
    "\"additionalProperties\":false},"
    "\"network\":{\"type\":\"object\",\"properties\":{\"enabled\":{\"type\":"
    "\"boolean\",\"description\":\"true: network access for this call.\"}},"
    "\"additionalProperties\":false}},\"additionalProperties\":false},"
    "\"justification\":{\"type\":\"string\",\"description\":\"Why escalation or the "
    "additional permissions are needed; required with every value but use_default.\"}"
    "},\"required\":[\"cmd\"],\"additionalProperties\":false}";
