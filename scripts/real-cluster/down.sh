#!/usr/bin/env bash
# Stops exactly the processes up.sh STATE_DIR started (recorded in STATE_DIR/pids), newest first:
# SIGTERM, then up to 90 s (kube-apiserver can take a minute to exit), then SIGKILL.
set -uo pipefail
STATE=$1
[[ -f $STATE/pids ]] || exit 0
tac "$STATE/pids" | while read -r pid name; do
  # Only a process that is still the one we started (its command line names our state dir or binary).
  [[ -r /proc/$pid/cmdline ]] || continue
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -e "$STATE" -e "$name" || continue
  kill -TERM "$pid" 2>/dev/null
  kill -CONT "$pid" 2>/dev/null # a process a test stopped (SIGSTOP) acts on SIGTERM only once continued
  for i in $(seq 1 180); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
done
: > "$STATE/pids"
