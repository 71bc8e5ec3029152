#!/usr/bin/env bash
# vthost's command line: help, completion, plugins --format json, exit codes.
set -u
V=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
unset VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws" "$T/bin"
# `vthost` on PATH, as the completion scripts call it for tool names.
ln -s "$V" "$T/bin/vthost"
export PATH="$T/bin:$PATH"
cd "$T/ws"
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
for tool in jq zsh fish; do
    command -v $tool >/dev/null ||
        { echo "FAIL $tool is not installed (./setup.sh test installs it)"; exit 1; }
done

# ---- help -------------------------------------------------------------------
COMMANDS=(serve call explain tools plugins help completion)
out=$(vthost help); rc=$?
check_eq "help exit" 0 "$rc"
for c in "${COMMANDS[@]}"; do
    check "help lists $c" "  $c" "$out"
    out1=$(vthost help "$c"); rc=$?
    check_eq "help $c exit" 0 "$rc"
    check "help $c usage line" "Usage: vthost" "$out1"
    check "help $c names it" " $c" "$(head -1 <<<"$out1")"
    check "help $c exit codes" "Exit codes:" "$out1"
    out2=$(vthost "$c" --help); rc=$?
    check_eq "$c --help exit" 0 "$rc"
    check_eq "$c --help is help $c" "$out1" "$out2"
done
check "help call names --yes" "--yes" "$(vthost help call)"
check "help serve: no --yes" "" "$(vthost help serve | grep -e --yes)"
check "help tools: its formats" "--format: names mcp openai (default names)" "$(vthost help tools)"
check_eq "--help is help" "$(vthost help)" "$(vthost --help)"
out=$(vthost help nosuch 2>&1); rc=$?
check_eq "help of an unknown command exit" 2 "$rc"
check "help of an unknown command says so" "unknown command 'nosuch'" "$out"

# ---- exit codes: one row per outcome ------------------------------------
# expected-exit | message part | command...
rows=(
  "0||--version"
  "0||tools"
  "0||tools --format mcp"
  "0||--format openai tools"
  "0||plugins"
  "0||completion bash"
  "2|no command given|"
  "2|unknown command 'frobnicate'|frobnicate"
  "2|unknown command 'serv' (did you mean 'serve'?)|serv"
  "2|unknown command 'Tools' (did you mean 'tools'?)|Tools"
  "2|unknown command 'expalin' (did you mean 'explain'?)|expalin"
  "2|--catalog 'everything' is not auto, full or deferred|--catalog everything serve"
  "2|unrecognized option|--bogus tools"
  "2|wrong number of arguments for 'tools'|tools extra"
  "2|wrong number of arguments for 'call'|call"
  "2|wrong number of arguments for 'completion'|completion"
  "2|no completion for shell 'tcsh'|completion tcsh"
  "2|--yes does not apply to 'serve': the client answers permission prompts|serve --yes"
  "2|--no does not apply to 'serve'|--no serve"
  "2|--yes does not apply to 'tools'|tools --yes"
  "2|--yes does not apply to 'explain'|--yes explain exec_command"
  "2|--format does not apply to 'spool'|spool --format json"
  "2|--agent does not apply to 'tools'|--agent reviewer tools"
  "2|--agent does not apply to 'plugins'|plugins --agent reviewer"
  "2|--workspace does not apply to 'help'|--workspace /tmp help"
  "2|--profile does not apply to 'completion'|-p advanced completion bash"
  "2|--yes and --no exclude each other|--yes --no call exec_command"
  "2|unknown format 'xml' for tools|tools --format xml"
  "2|unknown format 'yaml' for plugins|plugins --format yaml"
  "2|unknown format 'names' for call|call --format names exec_command"
  "2|Unknown tool: nosuch|call nosuch"
  "2|cmd|call exec_command {\"cmd\":1}"
  "2|not valid JSON|call exec_command {nope"
  "1|denied|--no call exec_command {\"cmd\":\"echo\"}"
  "2|not a directory|--workspace $T/nonexistent tools"
)
for row in "${rows[@]}"; do
    IFS='|' read -r want msg cmdline <<<"$row"
    read -r -a argv <<<"$cmdline"
    out=$(vthost "${argv[@]}" 2>&1 </dev/null); rc=$?
    check_eq "exit $want: vthost $cmdline" "$want" "$rc"
    [ -n "$msg" ] && check "message: vthost $cmdline" "$msg" "$out"
done
# Options may follow the command.
check_eq "options after the command" "$(vthost --format mcp tools)" "$(vthost tools --format mcp)"

# ---- plugins --format json ----------------------------------------------
printf 'not an ELF file\n' >"$T/bin/broken.so"
chmod 0644 "$T/bin/broken.so"
chmod 0755 "$T/bin"
js=$(vthost --plugin-dir "$T/bin" plugins --format json); rc=$?
check_eq "plugins json with a refused extra module: exit 0" 0 "$rc"
check_eq "json: profile" "default" "$(jq -r .profile <<<"$js")"
check_eq "json: profile loaded" "true" "$(jq -r .profile_loaded <<<"$js")"
check_eq "json: exec_command listed" "listed" \
    "$(jq -r '.modules[] | select(.module == "exec") | .tools[] | select(.name == "exec_command") | .state' <<<"$js")"
check_eq "json: code_search gated in default" "gated" \
    "$(jq -r '.modules[] | select(.module == "code_search") | .tools[0].state' <<<"$js")"
check_eq "json: exec in the profile" "true" \
    "$(jq -r '.modules[] | select(.module == "exec") | .in_profile' <<<"$js")"
check_eq "json: license" "MIT" "$(jq -r '.modules[] | select(.module == "patch") | .license' <<<"$js")"
check_eq "json: the broken module refused" "refused" \
    "$(jq -r '.modules[] | select(.module == "broken") | .state' <<<"$js")"
check "json: with its reason" "broken.so" \
    "$(jq -r '.modules[] | select(.module == "broken") | .path + " " + .refusal' <<<"$js")"
check_eq "json: plugin dirs" "$T/bin" "$(jq -r '.plugin_dirs[-1]' <<<"$js")"
text=$(vthost --plugin-dir "$T/bin" plugins); rc=$?
check_eq "plugins text with a refused extra module: exit 0" 0 "$rc"
check "plugins text names the refusal" "refused  broken" "$text"

# A host with no plugins at all: the profile cannot load; plugins still
# lists (and says why), and exits 1.
mkdir -p "$T/lonely/bin"
cp "$V" "$T/lonely/bin/vthost"
js=$("$T/lonely/bin/vthost" plugins --format json 2>"$T/err"); rc=$?
check_eq "plugins without the profile's modules: exit 1" 1 "$rc"
check_eq "json parses and says the profile did not load" "false" "$(jq -r .profile_loaded <<<"$js")"
check "json error names the missing module" "exec.so" "$(jq -r .error <<<"$js")"
check "json error names the package" "vthost-plugin-exec" "$(jq -r .error <<<"$js")"
check "stderr says it too" "exec.so" "$(cat "$T/err")"
text=$("$T/lonely/bin/vthost" --plugin-dir "$T/bin" plugins 2>/dev/null); rc=$?
check_eq "plugins text without the profile's modules: exit 1" 1 "$rc"
check "text still lists what it found" "refused  broken" "$text"
check "text says the profile cannot load" "profile: default (cannot load)" "$text"
out=$("$T/lonely/bin/vthost" tools 2>&1); rc=$?
check_eq "tools without the profile's modules: exit 1" 1 "$rc"

# ---- completion -------------------------------------------------------------
for sh in bash zsh fish; do
    vthost completion $sh >"$T/vthost.$sh"; rc=$?
    check_eq "completion $sh exit" 0 "$rc"
done
bash -n "$T/vthost.bash" && echo "ok   bash -n accepts the bash script" ||
    { echo "FAIL bash -n"; fails=$((fails + 1)); }
zsh -n "$T/vthost.zsh" && echo "ok   zsh -n accepts the zsh script" ||
    { echo "FAIL zsh -n"; fails=$((fails + 1)); }
fish -n "$T/vthost.fish" && echo "ok   fish -n accepts the fish script" ||
    { echo "FAIL fish -n"; fails=$((fails + 1)); }

# bash: run the completion function as readline would.
bcomp() { # bcomp WORD... (the last one is being completed)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _vthost
             printf "%s\n" "${COMPREPLY[@]}"' _ "$T/vthost.bash" vthost "$@"
}
check "bash: commands" "serve" "$(bcomp se)"
check_eq "bash: help" "help" "$(bcomp hel)"
check "bash: call's tool names" "exec_command" "$(bcomp call exec)"
check_eq "bash: tools formats" $'names\nmcp\nopenai' "$(bcomp tools --format '')"
check_eq "bash: plugins formats" $'text\njson' "$(bcomp plugins --format '')"
check "bash: call options" "--yes" "$(bcomp call --y)"
check_eq "bash: serve has no --yes" "" "$(bcomp serve --y)"
check_eq "bash: shells" $'bash\nzsh\nfish' "$(bcomp completion '')"
check "bash: profiles" "advanced" "$(bcomp --profile a)"

# fish: its own completion engine on the generated script.
fcomp() { fish -c "source $T/vthost.fish; complete -C '$1'" | cut -f1; }
check "fish: commands" "serve" "$(fcomp 'vthost se')"
check "fish: call's tool names" "exec_command" "$(fcomp 'vthost call exec')"
check "fish: --format values" "openai" "$(fcomp 'vthost tools --format o')"
check "fish: shells" "zsh" "$(fcomp 'vthost completion z')"

# zsh: the script loads into the completion system and registers itself.
out=$(zsh -f -c "autoload -U compinit && compinit -u -D && source $T/vthost.zsh &&
                 print -r -- \$_comps[vthost]" 2>&1)
check_eq "zsh: compdef registers _vthost for vthost" "_vthost" "$out"

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
