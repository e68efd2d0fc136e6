#!/usr/bin/env bash
# Measures the wall time of `agentsh hook claude-code` answering one
# PreToolUse event with every shipped policy loaded: what Claude Code waits
# for before each tool call. Prints p50 and p95 of RUNS runs (default 50).
#
#   scripts/bench/hook.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-50}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentsh" ./cmd/agentsh
loads=()
for p in scripts/policies/*.star scripts/policies/*.lua; do
  case "$p" in *_test.*) continue ;; esac
  loads+=(--load "$PWD/$p")
done
event='{"session_id":"bench","cwd":"'"$tmp"'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}'
cd "$tmp"
for _ in 1 2 3 4 5; do echo "$event" | XDG_STATE_HOME="$tmp/state" ./agentsh hook claude-code "${loads[@]}" >/dev/null 2>&1 || true; done
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  echo "$event" | XDG_STATE_HOME="$tmp/state" ./agentsh hook claude-code "${loads[@]}" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo $(( (end - start) / 1000 ))
done | sort -n | awk -v n="$runs" '{t[NR] = $1} END {
  printf "agentsh hook claude-code, %d policies, %d runs: p50 %.1f ms, p95 %.1f ms\n", '"${#loads[@]}"' / 2, n, t[int((n + 1) * 0.5)] / 1000, t[int((n + 1) * 0.95)] / 1000
}'
