#!/usr/bin/env bash
# Step timing for .ci/run (sourced): `step NAME COMMAND...` runs COMMAND,
# prints its wall time and records it; `summary` prints the table of the
# steps so far with the total. The first failing step prints the table,
# then the step's last lines and the free disk space (the end of a CI log
# is often all a reader sees, so the reason comes last), and exits 1.
# COMMAND runs in an `||` context, where bash ignores set -e: a function of
# several commands joins them with && (or returns its failure itself).
# Its output is shown as it comes and kept in a temporary file for that
# tail; COMMAND runs in a subshell, so a step cannot change the shell of
# the steps after it.

step_names=()
step_times=()
step_results=()
run_start=$(date +%s%N)
step_dir=$(mktemp -d)
trap 'rm -rf "$step_dir"' EXIT

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

# disk_free prints the free space of the filesystems CI writes to: the
# checkout, the temporary directory and Go's build cache.
disk_free() {
  local cache
  cache=$(go env GOCACHE 2>/dev/null || echo .)
  mkdir -p "$cache"
  df -h . "${TMPDIR:-/tmp}" "$cache" | awk 'NR == 1 || !seen[$1]++'
}

step() {
  local name=$1
  shift
  echo
  echo "==== $name"
  local start
  start=$(date +%s%N)
  local log="$step_dir/output" rc="$step_dir/status"
  echo 0 > "$rc"
  { "$@" || echo $? > "$rc"; } 2>&1 | tee "$log"
  local status
  status=$(cat "$rc")
  local took
  took=$(seconds "$start")
  step_names+=("$name")
  step_times+=("$took")
  if [ "$status" -ne 0 ]; then
    step_results+=("FAIL")
    echo "==== $name: FAILED (exit $status) after $took"
    summary
    echo
    echo "==== why \"$name\" failed: its last 25 lines"
    tail -n 25 "$log"
    echo "==== free disk space"
    disk_free || true
    exit 1
  fi
  step_results+=("ok")
  echo "==== $name: ok in $took"
}
