#!/bin/sh
# The 10-minute soak: 4 concurrent clients of one `vthost serve`, mixed
# operations; a table of RSS, fds, threads, children, zombies and spool
# MiB every 30 s, then a verdict.  Not a ctest test (soak_60s is).
#   tests/bench/soak/run.sh build/bin/vthost [SECONDS]
set -eu
here=$(dirname "$0")
exec nice python3 "$here/../../integration/soak/soak.py" "$1" --seconds "${2:-600}" --step 30 \
    --clients 4 --dir-mib 256
