#!/usr/bin/env bash
# The C style (.clang-format) checked with clang-format (Debian package
# clang-format): every .c/.h/.cpp file of the product (host/, plugins/,
# the SDK's headers and examples) must come out of clang-format
# unchanged.  Test code is not checked.
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
bad=0 n=0
while IFS= read -r f; do
    n=$((n + 1))
    if [[ ${1:-} == --fix ]]; then
        "$cf" -i "$f"
    elif ! "$cf" "$f" | cmp -s "$f" -; then
        echo "$f: not formatted (see: $cf $f | diff $f -)"
        bad=1
    fi
done < <(find host plugins sdk/include sdk/examples \( -name '*.[ch]' -o -name '*.cpp' \) | sort)
if (( bad )); then
    echo "check_format: FAILED (tools/check_format.sh --fix rewrites them)"
    exit 1
fi
echo "check_format: ok ($n files checked)"
