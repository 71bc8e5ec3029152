#!/usr/bin/env bash
# The C style (.clang-format) checked with clang-format (Debian package
# clang-format): every .c/.h/.cpp file under host/ must come out of
# clang-format unchanged, except the files in
# tools/format-exempt.txt.  Those are older files not reformatted yet
# (reformatting them wholesale would only churn history); new files are
# checked from the start, and a file leaves the list once reformatted.
#
# Usage: tools/check_format.sh [--fix]   (--fix rewrites the checked files)
# Exit 0 clean, 1 with the files that differ, 77 without clang-format.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" > /dev/null; then
    echo "check_format: $cf not found (apt-get install -y clang-format)" >&2
    exit 77
fi
mapfile -t exempt < <(grep -v -e '^#' -e '^[[:space:]]*$' tools/format-exempt.txt)
declare -A skip
for f in "${exempt[@]}"; do
    [[ -e $f ]] || echo "check_format: $f is listed in tools/format-exempt.txt but does not exist"
    skip[$f]=1
done
bad=0 n=0
while IFS= read -r f; do
    [[ -n ${skip[$f]:-} ]] && continue
    n=$((n + 1))
    if [[ ${1:-} == --fix ]]; then
        "$cf" -i "$f"
    elif ! "$cf" "$f" | cmp -s "$f" -; then
        echo "$f: not formatted (see: $cf $f | diff $f -)"
        bad=1
    fi
done < <(find host -name '*.[ch]' -o -name '*.cpp' | sort)
if (( bad )); then
    echo "check_format: FAILED (tools/check_format.sh --fix rewrites them)"
    exit 1
fi
echo "check_format: ok ($n files checked, ${#exempt[@]} exempt)"
