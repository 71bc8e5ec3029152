#!/usr/bin/env bash
# The answers of two vthost builds to the same code_search calls on one
# tree, compared byte for byte (a change meant for speed must not change
# a single result).
#
#   tests/bench/code_search/same_output.sh NEW_VTHOST OLD_VTHOST [TREE]
#   tests/bench/code_search/same_output.sh --index VTHOST [TREE]
#
# --index compares one build with its content index (made complete first)
# against the same build with the index off (VTHOST_CODE_SEARCH_INDEX=off).
#
# TREE defaults to /usr/include.  Prints one line per call and exits 1 at
# the first difference (both answers are left in $TMPDIR for diff).
set -eu
WORK=$(mktemp -d)
export XDG_STATE_HOME="$WORK/state" XDG_CACHE_HOME="$WORK/cache"
if [ "$1" = --index ]; then
    NEW=$2
    OLD="env VTHOST_CODE_SEARCH_INDEX=off $2"
    TREE=${3:-/usr/include}
    for _ in $(seq 24); do
        "$NEW" --workspace "$TREE" --profile advanced call code_search \
            '{"query":"no_such_word_anywhere","max_results":100}' >/dev/null
    done
    echo "index: $(du -k "$XDG_CACHE_HOME"/vthost/code_search-*.idx | cut -f1) KiB"
else
    NEW=$1
    OLD=$2
    TREE=${3:-/usr/include}
fi
status=0
# Common words (size_t, int, const, NULL, __u32, ...) are where files
# are left out by the names they declare: the bound is met by usages
# early, and only definitions can still be returned.
for q in pthread_mutex_lock size_t uint32_t enum define Struct errno x ab 'ä' 'İ' '(void)' 'struct stat' \
    PTHREAD_MUTEX_INITIALIZER Mutex 'sys/types' 'é' 'naïve' int const NULL __u32 Size_T; do
    for args in '"max_results":100' '"max_results":7' '"result_types":["text"],"max_results":100' \
        '"result_types":["definition"],"max_results":100' '"result_types":["usage","path"],"max_results":100' \
        '"result_types":["definition","text"],"max_results":100,"path":"linux"' \
        '"result_types":["definition","usage"],"max_results":3' '"max_results":1'; do
        call="{\"query\":$(printf '%s' "$q" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'),$args}"
        "$NEW" --workspace "$TREE" --profile advanced call code_search "$call" >"$WORK/new" 2>&1 || true
        $OLD --workspace "$TREE" --profile advanced call code_search "$call" >"$WORK/old" 2>&1 || true
        if cmp -s "$WORK/new" "$WORK/old"; then
            echo "same  $call ($(wc -c <"$WORK/new") bytes)"
        else
            echo "DIFF  $call (answers in $WORK)"
            status=1
            break 2
        fi
    done
done
[ $status -eq 0 ] && rm -rf "$WORK"
exit $status
