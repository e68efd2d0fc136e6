#!/usr/bin/env bash
# Measures the wall time of `agentsh run` on a hello-world script, in
# Starlark and in Lua: the cost of starting the shell. Uses hyperfine when
# present, else a timed loop.
#
#   scripts/bench/startup.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-50}
bin=$(mktemp -d)/agentsh
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/agentsh
for script in scripts/bench/hello.star scripts/bench/hello.lua; do
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 5 --runs "$runs" "$bin run $script"
    continue
  fi
  for _ in 1 2 3 4 5; do "$bin" run "$script" >/dev/null; done
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$bin" run "$script" >/dev/null; done
  end=$(date +%s%N)
  echo "agentsh run $script: $(( (end - start) / runs / 1000 )) µs per run (mean of $runs)"
done
