#!/usr/bin/env bash
# Runs every row of BENCHMARKS.md side by side in one run: agentsh built
# from the working tree (and with --base REV from that revision) against
# rg, fd, the physical floor and a bare go.starlark.net program, on
# $(go env GOROOT)/src and hard-linked copies of it at 4x and 16x, and
# the sandbox's cost on each backend against running unconfined.
# Prints medians, min-max, CPU, peak RSS and ratios, and a Markdown
# summary; exits 1 if any output check fails. See internal/benchrun.
#
#   scripts/bench/all.sh [--base REV] [--sizes 1,4,16] [--rows 1,3,9] [--runs N] [--quick]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec go run ./internal/benchrun "$@"
