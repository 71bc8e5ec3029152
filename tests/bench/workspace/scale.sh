#!/usr/bin/env bash
# What a command costs as the workspace grows: exec_command `true`
# through `vthost serve` (median of RUNS calls after the first) and
# through one-shot `vthost call` (median of RUNS), in an empty git
# repository and in trees of 10,000 and 100,000 files (10 per
# directory: 1,000 and 10,000 directories), with the guard's shell-edit detection on and off.
# Prints the medians, each one's ratio to the empty workspace, the
# server's RSS and the workspace index's own figures (directories, size,
# build time, from its debug line).
# Goals (issue 29): serve at 100k <= 1.3x empty, one-shot <= 3x, the
# index of 100k files <= 64 MiB.
# Usage: scale.sh VTHOST [RUNS]
set -eu
vthost=$(realpath "$1") runs=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d /tmp/vthost-scale-bench.XXXXXX)
trap 'rm -rf "$root"' EXIT
export XDG_CACHE_HOME=$root/cache XDG_STATE_HOME=$root/state

make_tree() { # make_tree DIR FILES: a git repository, 10 files per directory
    mkdir -p "$1"
    git -C "$1" init -q
    python3 - "$1" "$2" <<'EOF'
import os, sys
root, files = sys.argv[1], int(sys.argv[2])
for d in range(files // 10):
    p = os.path.join(root, f"d{d // 100}", f"d{d}")
    os.makedirs(p)
    for f in range(10):
        open(os.path.join(p, f"f{f}.c"), "w").close()
EOF
}

for detect in true false; do
    printf '[sandbox]\nmode = "workspace-write"\n[permissions]\napproval = "sandboxed"\n' \
        >"$root/$detect.toml"
    printf '[tools.anti_blind_editing]\ndetect_shell_edits = %s\n' "$detect" >>"$root/$detect.toml"
done

oneshot_ms() { # oneshot_ms CONFIG WS
    local t=() i a
    "$vthost" --workspace "$2" --config "$1" call exec_command '{"cmd":"true"}' >/dev/null
    for ((i = 0; i < runs; i++)); do
        a=$(date +%s%N)
        "$vthost" --workspace "$2" --config "$1" call exec_command '{"cmd":"true"}' >/dev/null
        t+=($((($(date +%s%N) - a) / 1000)))
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p" |
        awk '{printf "%.2f", $1 / 1000}'
}

index_line() { # index_line WS: the index's debug lines, built and then loaded
    local c
    c=$(mktemp -d "$root/c.XXXXXX")
    for i in 1 2; do
        XDG_CACHE_HOME=$c "$vthost" -v --workspace "$1" --config "$root/true.toml" \
            call exec_command '{"cmd":"true"}' 2>&1 >/dev/null | grep -o 'workspace index of .*'
    done
}

declare -A serve oneshot rss first
specs="0 10000 100000"
for spec in $specs; do
    ws=$root/ws$spec
    make_tree "$ws" "$spec"
    for detect in true false; do
        read -r med fst kib < <(python3 "$here/serve_calls.py" "$vthost" "$ws" \
                                        "$root/$detect.toml" "$runs")
        serve[$spec,$detect]=$med first[$spec,$detect]=$fst rss[$spec,$detect]=$kib
        oneshot[$spec,$detect]=$(oneshot_ms "$root/$detect.toml" "$ws")
    done
done

printf '%-8s %-7s %10s %7s %11s %7s %10s %9s\n' files detect "serve(ms)" ratio \
    "one-shot" ratio "1st(ms)" "RSS(MiB)"
for spec in $specs; do
    for detect in true false; do
        printf '%-8s %-7s %10s %7s %11s %7s %10s %9s\n' "$spec" "$detect" \
            "${serve[$spec,$detect]}" \
            "$(awk -v a="${serve[$spec,$detect]}" -v b="${serve[0,$detect]}" 'BEGIN{printf "%.2fx", a/b}')" \
            "${oneshot[$spec,$detect]}" \
            "$(awk -v a="${oneshot[$spec,$detect]}" -v b="${oneshot[0,$detect]}" 'BEGIN{printf "%.2fx", a/b}')" \
            "${first[$spec,$detect]}" \
            "$(awk -v k="${rss[$spec,$detect]}" 'BEGIN{printf "%.1f", k/1024}')"
    done
done
echo
echo "serve RSS growth 0 -> 100k files (detection on): $(awk -v a="${rss[100000,true]}" \
    -v b="${rss[0,true]}" 'BEGIN{printf "%.1f MiB", (a-b)/1024}')"
for spec in 10000 100000; do
    index_line "$root/ws$spec"
done
