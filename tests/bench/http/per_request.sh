#!/bin/bash
# Per request of a running `vthost serve --http`: its threads' voluntary
# and involuntary context switches and CPU (schedstat, ns), counted over
# SECONDS and divided by the access log lines written meanwhile (its
# stderr must be a file, as http_bench.mjs and http_ab.mjs set it).  A
# thread that starts or ends within the interval is left out of it.
#   tests/bench/http/per_request.sh PID [SECONDS=1] [TIMES=5]
set -eu
pid=$1 secs=${2:-1} times=${3:-5}
log=$(readlink "/proc/$pid/fd/2")
[ -f "$log" ] || { echo "the server's stderr is not a file: $log" >&2; exit 2; }
# One line per thread: tid voluntary involuntary cpu_ns; last: "lines N".
snap() {
    local t
    for t in /proc/"$pid"/task/*; do
        awk -v tid="${t##*/}" -v cpu="$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)" \
            '/^voluntary_ctxt/{v=$2} /^nonvoluntary_ctxt/{i=$2} END{if (cpu != "") print tid, v, i, cpu}' \
            "$t/status" 2>/dev/null || true
    done
    echo "lines $(wc -l <"$log")"
}
for _ in $(seq "$times"); do
    before=$(snap)
    sleep "$secs"
    [ -d "/proc/$pid" ] || exit 0 # the server has ended
    after=$(snap)
    awk 'NR == FNR { if ($1 == "lines") l1 = $2; else { v[$1] = $2; i[$1] = $3; c[$1] = $4 }; next }
        $1 == "lines" { n = $2 - l1; next }
        ($1 in v) { dv += $2 - v[$1]; di += $3 - i[$1]; dc += $4 - c[$1] }
        END {
            if (n <= 0) { print "no requests logged"; exit }
            printf "requests %6d  voluntary/req %.2f  involuntary/req %.2f  CPU/req %.1f us\n",
                   n, dv / n, di / n, dc / n / 1000 }' <(echo "$before") <(echo "$after")
done
