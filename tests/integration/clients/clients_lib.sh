# Shared by clients.sh and turn.sh: the page's blocks and command lines,
# and scratch homes and projects under $T.  Needs DOC, T, V, BIN.

# The block after a "`NAME`:" line of the page.
doc_file() {
    awk -v want="\`$1\`:" '
        $0 == want { armed = 1; next }
        armed && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }
    ' "$DOC"
}
# A command line of the page's ```sh blocks, by its start.
doc_command() {
    awk -v start="$1" '
        /^```sh/ { sh = 1; next } /^```/ { sh = 0 }
        sh && index($0, start) == 1 { sub(/ +#.*/, ""); print; exit }
    ' "$DOC"
}

# vthost as the page installs it: `vthost` on PATH.
mkdir -p "$T/bin"
ln -s "$V" "$T/bin/vthost"
export PATH="$T/bin:$BIN:$PATH"
# A user's own home, as the agent CLIs see it: they start vthost with an
# environment of their own, without the cache and state homes ctest sets,
# so vthost run by hand here must use the same places under HOME.
fresh_home() {
    export HOME="$T/home-$1" XDG_CONFIG_HOME="$T/home-$1/.config"
    unset XDG_CACHE_HOME XDG_STATE_HOME
    mkdir -p "$HOME"
}
project() { mkdir -p "$T/$1" && cd "$T/$1"; }
