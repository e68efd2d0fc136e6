#!/usr/bin/env bash
# Measures the agent loop end to end: a 50-turn conversation with 3 tool
# calls per turn (scripts/bench/agent50.star) run live with a scripted
# model and recorded, then replayed from the recording with --model
# replay:FILE. Checks that the replay prints the same bytes, and reports
# wall time (hyperfine when present) and peak memory (/usr/bin/time).
#
#   scripts/bench/agent.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/agentsh
go build -o "$bin" ./cmd/agentsh
script=scripts/bench/agent50.star
flags=(--no-builtins --mode mixed)

"$bin" "${flags[@]}" --record "$tmp/run.jsonl" run "$script" >"$tmp/live.txt"
"$bin" "${flags[@]}" --model "replay:$tmp/run.jsonl" run "$script" replay >"$tmp/replay.txt"
if cmp -s "$tmp/live.txt" "$tmp/replay.txt"; then
  echo "replay output: byte-identical to the live run ($(wc -c <"$tmp/live.txt") bytes; recording $(wc -c <"$tmp/run.jsonl") bytes, $(wc -l <"$tmp/run.jsonl") requests)"
else
  echo "replay output differs from the live run:"; diff "$tmp/live.txt" "$tmp/replay.txt"; exit 1
fi

if command -v /usr/bin/time >/dev/null; then
  for mode in live replay; do
    args=(run "$script")
    [ "$mode" = replay ] && args=(--model "replay:$tmp/run.jsonl" run "$script" replay)
    /usr/bin/time -f "$mode: %e s wall, %M KiB peak RSS" "$bin" "${flags[@]}" "${args[@]}" >/dev/null
  done
fi
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs "$runs" \
    -n live "$bin ${flags[*]} run $script" \
    -n replay "$bin ${flags[*]} --model replay:$tmp/run.jsonl run $script replay"
fi
