#!/usr/bin/env bash
# Step timing for .ci/run (sourced): `step NAME COMMAND...` runs COMMAND,
# prints its wall time and records it; `summary` prints the table of the
# steps so far with the total. The first failing step prints the table and
# exits 1. COMMAND runs in an `||` context, where bash ignores set -e: a
# function of several commands joins them with && (or returns its failure
# itself).

step_names=()
step_times=()
step_results=()
run_start=$(date +%s%N)

# seconds START_NS prints the time since START_NS as seconds with one decimal.
seconds() {
  local ms=$(( ($(date +%s%N) - $1) / 1000000 ))
  printf '%d.%ds' $((ms / 1000)) $(((ms % 1000) / 100))
}

summary() {
  echo
  echo "==== step times"
  local i
  for i in "${!step_names[@]}"; do
    printf '  %-4s %8s  %s\n' "${step_results[$i]}" "${step_times[$i]}" "${step_names[$i]}"
  done
  printf '  %-4s %8s  %s\n' "" "$(seconds "$run_start")" "total"
}

step() {
  local name=$1
  shift
  echo
  echo "==== $name"
  local start
  start=$(date +%s%N)
  local status=0
  "$@" || status=$?
  local took
  took=$(seconds "$start")
  step_names+=("$name")
  step_times+=("$took")
  if [ "$status" -ne 0 ]; then
    step_results+=("FAIL")
    echo "==== $name: FAILED (exit $status) after $took"
    summary
    exit 1
  fi
  step_results+=("ok")
  echo "==== $name: ok in $took"
}
