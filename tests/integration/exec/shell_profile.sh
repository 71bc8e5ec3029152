#!/usr/bin/env bash
# [agent] shell_prompt_profile picks exec_command's description (Unix-like
# or PowerShell example) and the shell that runs commands.
set -u
VTHOST=${1:?usage: shell_profile.sh path/to/vthost}
WS=$(mktemp -d /tmp/vthost-exec-profile-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fail=0
run() { "$VTHOST" ${VTHOST_TEST_PROFILE:+--profile "$VTHOST_TEST_PROFILE"} --workspace "$WS" --config "$WS/vtcode.toml" "$@"; }
check() { # description: want-substring reject-substring profile
    printf '[agent]\nshell_prompt_profile = "%s"\n[permissions]\nallow = ["exec_command"]\n' "$3" \
        > "$WS/vtcode.toml"
    local tools
    tools=$(run tools --format mcp 2>&1)
    if [[ $tools != *"$1"* || $tools == *"$2"* ]]; then
        echo "FAIL: profile $3: description should show '$1', not '$2'"; fail=1
    else
        echo "ok: profile $3 shows its own example"
    fi
}
check 'rg -n' 'Select-String' unix_like
check 'rg -n' 'Select-String' auto
check 'Select-String' 'rg -n' powershell

# powershell runs pwsh: without it, a clear error rather than a crash
printf '[agent]\nshell_prompt_profile = "powershell"\n[permissions]\nallow = ["exec_command"]\n' \
    > "$WS/vtcode.toml"
if ! command -v pwsh >/dev/null; then
    out=$(run call exec_command '{"cmd":"Get-Date"}' 2>&1)
    if [ $? -ne 1 ] || [[ $out != *"no such shell: pwsh"* ]]; then
        echo "FAIL: powershell without pwsh: $out"; fail=1
    else
        echo "ok: powershell without pwsh is a clear error"
    fi
fi

# unix_like runs $SHELL -c
printf '[agent]\nshell_prompt_profile = "unix_like"\n[permissions]\nallow = ["exec_command"]\n' \
    > "$WS/vtcode.toml"
out=$(SHELL=/bin/sh run call exec_command '{"cmd":"echo $0"}' 2>&1)
if [[ $out != *'"output":"/bin/sh\n"'* && $out != *'"output":"/usr/bin/dash\n"'* && $out != *'dash\n'* ]]; then
    echo "FAIL: SHELL=/bin/sh did not run sh: $out"; fail=1
else
    echo "ok: \$SHELL runs the command"
fi

# a wrong value refuses the plugin with a message naming the key
printf '[agent]\nshell_prompt_profile = "fish"\n' > "$WS/vtcode.toml"
out=$(run plugins 2>&1; run call exec_command '{"cmd":"true"}' 2>&1)
if [[ $out != *"shell_prompt_profile"* ]]; then
    echo "FAIL: a wrong shell_prompt_profile is not reported: $out"; fail=1
else
    echo "ok: a wrong shell_prompt_profile is reported"
fi
exit $fail
