#!/usr/bin/env bash
# vthost set-up: installs what is missing (Debian packages, the pinned npm
# packages of the MCP tests), builds, then runs the requested job.
#
#   ./setup.sh serve        build and run `vthost serve` on the current directory
#   ./setup.sh test         build and run the whole test suite (ctest)
#   ./setup.sh test-asan    the same under AddressSanitizer + UBSan (build-asan/)
#   ./setup.sh build        only install and build
#   ./setup.sh checks       source checks: include fences, calls allowed in one
#                           file only, and C style (no build;
#                           the checks of the built objects run in `test`)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
job=${1:-build}
jobs=$(nproc 2>/dev/null || echo 2)

debian_packages=(cmake make gcc g++ pkg-config git
    libffi-dev libcjson-dev libinih-dev libpcre2-dev libutf8proc-dev
    libtomlplusplus-dev libyaml-dev libseccomp-dev libcmocka-dev libstemmer-dev
    libcurl4-openssl-dev libmicrohttpd-dev libssl-dev libhttp-parser-dev)
test_packages=(ripgrep valgrind python3 jq man-db procps psmisc util-linux
    zsh fish lintian clang-format busybox iproute2 openssl systemd)

install_missing() { # install_missing [--node] PACKAGE...
    local missing=() node=0
    [ "${1:-}" = --node ] && { node=1; shift; }
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    # The MCP tests run Node clients; a Node.js of the machine's own counts.
    if [ $node -eq 1 ] && ! { command -v node && command -v npm; } >/dev/null 2>&1; then
        missing+=(nodejs npm)
    fi
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq "${missing[@]}" >&2
}

npm_test_deps() { # the pinned npm packages of the test directories that have a lock file
    local dir
    for dir in "$here/tests/integration/mcp" "$here/tests/integration/mcp2026" \
        "$here/tests/integration/clients" "$here/tests/integration/oidc" \
        "$here/tests/integration/code_search/oracle" \
        "$here/tests/integration/mcp_providers/reference" \
        "$here/tests/integration/conformance"; do
        [ -f "$dir/package-lock.json" ] || continue
        if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
            echo "setup: installing the test tools of ${dir#"$here"/} (npm ci)" >&2
            (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
            touch "$dir/node_modules"
        fi
    done
}

build() { # build DIR [cmake options...]
    local dir=$1
    shift
    cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >&2
    cmake --build "$dir" -j"$jobs" >&2
}

case "$job" in
serve)
    install_missing "${debian_packages[@]}"
    build "$here/build"
    exec "$here/build/bin/vthost" --workspace "$PWD" serve
    ;;
# A test that fails is run once more before the suite fails: exec_host_test
# (test_no_leaks_after_200) and sandbox_lifetime have failed rarely under a
# full -j2 run on a 2-core machine and never alone; the output of every
# failed first run stays in the log.
test)
    install_missing --node "${debian_packages[@]}" "${test_packages[@]}"
    npm_test_deps
    build "$here/build" -DVTHOST_WERROR=ON
    cd "$here/build" && ctest --output-on-failure -j"$jobs" --timeout 600 --repeat until-pass:2
    ;;
test-asan)
    install_missing --node "${debian_packages[@]}" "${test_packages[@]}"
    npm_test_deps
    build "$here/build-asan" -DVTHOST_SANITIZE=ON -DVTHOST_WERROR=ON
    # intercept_tls_get_addr=0: GCC 12's LeakSanitizer crashes at exit
    # ("Tracer caught signal 11") walking the dynamic TLS of libraries
    # dlopened with a plugin (libcurl's, through mcp_providers) when the
    # executable itself maps no C++ runtime; without the interception it
    # does not walk dynamic TLS at all.
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    cd "$here/build-asan" && ctest --output-on-failure -j"$jobs" --timeout 900 --repeat until-pass:2 -LE no-asan
    ;;
build)
    install_missing "${debian_packages[@]}"
    build "$here/build"
    ;;
checks)
    install_missing clang-format
    "$here/tools/check_layers.sh"
    "$here/tools/check_calls.sh"
    "$here/tools/check_format.sh"
    ;;
*)
    echo "usage: $0 serve|test|test-asan|build|checks" >&2
    exit 2
    ;;
esac
