#!/usr/bin/env bash
# Compares agentsh's search backends with ripgrep and fd over the Go
# source tree ($(go env GOROOT)/src), warm cache, median of RUNS runs:
#
#   grep: native and ripgrep backends vs `rg -n --sort path PATTERN` and
#         `rg -n PATTERN` (all printing path:line:text to /dev/null)
#   glob: native and fd backends vs `fdfind -t f -e go . | LC_ALL=C sort`
#   limit: native grep stopped after 100 lines: files opened and peak RSS,
#         against the same search unlimited
#
#   scripts/bench-search.sh [RUNS]        (default 7; or RUNS=... env)
#
# The machine's load shows in the numbers: run it twice when it matters.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-${RUNS:-7}}
src=$(go env GOROOT)/src
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/benchcmd
go build -o "$bin" ./tools/search/internal/benchcmd

command -v rg >/dev/null || { echo "ripgrep (rg) not found; apt-get install ripgrep" >&2; exit 1; }
fd=$(command -v fdfind || command -v fd || true)
[ -n "$fd" ] || { echo "fd not found; apt-get install fd-find" >&2; exit 1; }

# medians CMD...: runs each CMD (a shell command line) once to warm up,
# then $runs rounds of all of them in turn, so that changes in the
# machine's load hit every command alike; prints the median wall time of
# each, in milliseconds, separated by spaces.
medians() {
  local cmds=("$@") n=$# i r s e
  local -a times
  for ((i = 0; i < n; i++)); do eval "${cmds[i]}" >/dev/null 2>&1 || true; done
  for ((r = 0; r < runs; r++)); do
    for ((i = 0; i < n; i++)); do
      s=$(date +%s%N)
      eval "${cmds[i]}" >/dev/null 2>&1 || true
      e=$(date +%s%N)
      times[i * runs + r]=$(((e - s) / 1000))
    done
  done
  for ((i = 0; i < n; i++)); do
    printf '%s\n' "${times[@]:i*runs:runs}" | sort -n |
      awk -v n="$runs" '{a[NR]=$1} END {printf "%.1f ", a[int((n+1)/2)]/1000}'
  done
  echo
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

cd "$src"
echo "corpus: $src ($(find . -type f | wc -l) files), median wall ms of $runs interleaved runs; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rg: $(rg --version | head -1); fd: $("$fd" --version)"
echo

greps=(
  "literal|return err|"
  "literal-heavy|func|"
  "regex|[A-Z][a-z]+Error\\b|"
  "ignore-case|todo|-i"
  "rare|xyzzy|"
)
printf '%-14s %9s %9s %9s %9s %12s %12s\n' grep native ripgrep 'rg-sort' rg 'native/sort' 'ripgrep/sort'
for g in "${greps[@]}"; do
  IFS='|' read -r name pat flag <<<"$g"
  q=$(printf '%q' "$pat")
  read -r nat rgb rgs rgp < <(medians \
    "$bin -backend native -root . grep $flag $q" \
    "$bin -backend ripgrep -root . grep $flag $q" \
    "rg -n --sort path $flag -e $q" \
    "rg -n $flag -e $q")
  printf '%-14s %9s %9s %9s %9s %12s %12s\n' "$name" "$nat" "$rgb" "$rgs" "$rgp" "$(ratio "$nat" "$rgs")" "$(ratio "$rgb" "$rgs")"
done
echo "targets: ripgrep/sort <= 0.9, native/sort <= 1.3"
echo

printf '%-14s %9s %9s %9s %12s %12s\n' glob native fd 'fd|sort' 'native/fd' 'fdback/fd'
read -r nat fdb fds < <(medians \
  "$bin -backend native -root . glob '**/*.go'" \
  "$bin -backend fd -root . glob '**/*.go'" \
  "$fd -t f -e go . | LC_ALL=C sort")
printf '%-14s %9s %9s %9s %12s %12s\n' '**/*.go' "$nat" "$fdb" "$fds" "$(ratio "$nat" "$fds")" "$(ratio "$fdb" "$fds")"
echo "target: native/fd <= 1.0"
echo

total=$("$bin" -root . glob -hidden -no-ignore '**' | wc -l)
echo "grep 'return' stopped after 100 lines (native), against the whole search:"
read -r lim full < <(medians "$bin -root . -limit 100 grep return" "$bin -root . grep return")
for limit in 100 0; do
  stats=$("$bin" -root . -limit "$limit" -stats grep return 2>&1 >/dev/null | tail -1)
  ms=$full
  [ "$limit" = 100 ] && ms=$lim
  printf '  limit %-4s %8s ms  %s  (tree: %s files)\n' "$limit" "$ms" "$stats" "$total"
done
if [ -x /usr/bin/time ]; then
  rss=$( { /usr/bin/time -f '%M' rg -n --sort path return >/dev/null; } 2>&1 | tail -1)
  echo "  rg -n --sort path return: maxrss_kb=$rss"
fi
