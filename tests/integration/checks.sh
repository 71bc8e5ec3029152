# The checks the shell integration tests share (sourced): each prints
# "ok   NAME" or "FAIL NAME: ..." and counts failures in $fails; a test
# ends with `exit $((fails > 0))` or its own summary.
fails=${fails:-0}

# check NAME EXPECTED ACTUAL: ACTUAL contains EXPECTED.
check() {
    if [[ "$3" == *"$2"* ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected to contain [$2], got [$3]"; fails=$((fails + 1)); fi
}

# check_not NAME UNEXPECTED ACTUAL: ACTUAL does not contain UNEXPECTED.
check_not() {
    if [[ "$3" != *"$2"* ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected NOT to contain [$2], got [$3]"; fails=$((fails + 1)); fi
}

# check_eq NAME EXPECTED ACTUAL: ACTUAL is EXPECTED.
check_eq() {
    if [[ "$3" == "$2" ]]; then echo "ok   $1"; else
        echo "FAIL $1: expected [$2], got [$3]"; fails=$((fails + 1)); fi
}
