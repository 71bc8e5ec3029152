#!/bin/sh
# The soak: 4 concurrent clients of one `vthost serve`, mixed operations
# for an hour by default; a table of RSS, fds, threads, children, zombies
# and spool MiB every minute, then a verdict (RSS must level off over the
# second half).  Not a ctest test (soak_60s is).  With --massif FILE the
# server runs under valgrind's massif (heap profile: ms_print FILE).
#   tests/bench/soak/run.sh build-rel/bin/vthost [SECONDS] [--massif FILE]
set -eu
here=$(dirname "$0")
bin=$1
seconds=${2:-3600}
[ $# -ge 2 ] && shift 2 || shift $#
exec nice python3 "$here/../../integration/soak/soak.py" "$bin" --seconds "$seconds" --step 60 \
    --clients 4 --dir-mib 256 "$@"
