#!/usr/bin/env bash
# Where a test run's CPU goes outside the test process: runs the suites (all, or those a
# --filter names) with GEOSPEND_TEST_CPU_LOG set, so each program the tests start logs its CPU
# seconds and command line (Tests/GeoSpendTestSupport/ProgramRunner.swift), then sums them by
# program and by geospend subcommand, and prints the test process's own CPU beside them.
#
#   scripts/test-cpu-profile.sh                      # every suite (as make test, after its build)
#   scripts/test-cpu-profile.sh --filter CLITests    # some
#
# Needs a build with the tests (scripts/build.sh --build-tests). The log stays in
# .build/test-cpu.log for a closer look.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$PWD/.build/test-cpu.log
rm -f "$log"
tmp=$(mktemp -d) && chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
TMPDIR=$tmp GEOSPEND_TEST_CPU_LOG=$log GEOSPEND_REQUIRE_POSTGRES=1 POSTGIS_DURABILITY=off \
  /usr/bin/time -f '%U %S' -o "$tmp/time" scripts/with-postgis.sh swift test --skip-build "$@" >"$tmp/out" 2>&1 || {
  tail -n 30 "$tmp/out" >&2; echo "test-cpu-profile: the tests failed (above)" >&2; exit 1; }
read -r user sys <"$tmp/time"
echo "wall $(( $(date +%s) - start )) s; CPU of the run and its waited-for children: user ${user} s, sys ${sys} s"
echo "programs the tests started (CPU s, runs, program):"
awk -F'\t' '{ n = split($2, a, " "); exe = a[1]
              for (i = 1; i <= n; i++) if (a[i] == "--") { exe = a[i + 1]; break }
              sub(".*/", "", exe); c[exe] += $1; k[exe]++; total += $1 }
     END { for (x in c) printf "%9.1f %6d  %s\n", c[x], k[x], x; printf "%9.1f %6d  (all)\n", total, NR }' "$log" | sort -rn
echo "geospend by subcommand (CPU s, runs, subcommand):"
awk -F'\t' '{ n = split($2, a, " "); j = 0
              for (i = 1; i <= n; i++) if (a[i] ~ /\/geospend$/) { j = i; break }
              if (!j) next; sub_ = a[j + 1]; if (a[j + 2] !~ /^-/ && a[j + 2] != "") sub_ = sub_ " " a[j + 2]
              c[sub_] += $1; k[sub_]++ }
     END { for (x in c) printf "%9.1f %6d  %s\n", c[x], k[x], x }' "$log" | sort -rn | head -n 25
