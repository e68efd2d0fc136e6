#!/usr/bin/env bash
# Measures tools/call round trips through a real `agentsh mcp serve`
# process over stdio and streamable HTTP (1 and 8 concurrent clients), and
# the gateway's overhead: server-everything's echo called directly vs
# through `agentsh mcp serve --mcp everything=...`. Runs the benchmarks
# COUNT times (default 5) and prints the median of each figure.
#
#   AGENTSH_MCP_EVERYTHING_DIR=DIR scripts/bench/mcp-serve.sh [COUNT] [BENCHTIME]
#
# Without AGENTSH_MCP_EVERYTHING_DIR (see .ci/run) the gateway row is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-5}
benchtime=${2:-1s}
go test -run '^$' -bench 'BenchmarkMCPServeCall|BenchmarkMCPGatewayOverhead' \
  -count "$count" -benchtime "$benchtime" ./cmd/agentsh/ |
awk -v count="$count" '
function median(key,   n, i, j, a, t) {
  n = split(vals[key], a, " ")
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^Benchmark/ {
  name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
  if (!(name in seen)) { seen[name] = 1; names[++nn] = name }
  for (i = 3; i < NF; i += 2) {
    key = name SUBSEP $(i + 1)
    if (!(key in vals)) units[name] = units[name] " " $(i + 1)
    vals[key] = vals[key] " " $i
  }
}
/^(FAIL|panic|--- FAIL)/ { print; failed = 1 }
END {
  printf "medians of %d runs\n", count
  printf "%-28s %10s %10s %10s\n", "tools/call", "p50 µs", "p95 µs", "calls/s"
  for (k = 1; k <= nn; k++) {
    name = names[k]
    if (name ~ /^MCPServeCall/) {
      printf "%-28s %10.0f %10.0f %10.0f\n", substr(name, 14), median(name SUBSEP "p50-µs"), median(name SUBSEP "p95-µs"), median(name SUBSEP "calls/s")
    }
  }
  for (k = 1; k <= nn; k++) {
    name = names[k]
    if (name ~ /^MCPGatewayOverhead/) {
      printf "\n%-28s %10s %10s %10s %10s\n", "echo, one client", "direct p50", "gw p50", "gw p95", "ratio p50"
      printf "%-28s %10.0f %10.0f %10.0f %10.2f\n", "(µs)", median(name SUBSEP "direct-p50-µs"), median(name SUBSEP "gateway-p50-µs"), median(name SUBSEP "gateway-p95-µs"), median(name SUBSEP "ratio-p50")
    }
  }
  exit failed
}'
