#!/usr/bin/env bash
# `swift build` with its log in a file: thousands of compiler lines help nobody in a terminal.
# The terminal gets progress ("[n/m]" steps, one line updated in place; in a log or CI a line a
# minute), and on failure the errors and warnings of the log with the log's path.
#
#   scripts/build.sh [swift build options…]     e.g. -c release, --build-tests, --product geospend
#
# The log goes to .build/logs/build[-options].log; $SWIFT another swift.
#
# A debug build here has no debug information (DEBUG_INFO_FLAGS): nothing in make test or make
# demo reads it, and a clean clone's build is the larger half of make test (docs/MEASUREMENTS.md,
# "A build from a clean clone"). For lldb, build with DEBUG_INFO_FLAGS= (everything recompiles,
# as it does whenever the flags change: `swift build` by hand and this script do not share
# products). Only the test targets are indexed: on Linux SwiftPM finds the tests through their
# index units. GEOSPEND_FULL_INDEX=1 indexes everything, as a plain `swift build` does (and, the
# flags being others, recompiles everything).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build/logs
suffix=$(printf '%s' "$*" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-*//; s/-*$//')
log=.build/logs/build${suffix:+-$suffix}.log
swift=${SWIFT:-swift}
debug_info_flags=${DEBUG_INFO_FLAGS--Xswiftc -gnone -Xcc -g0 -Xcxx -g0}
case " $* " in
  *" -c release "* | *" --configuration release "* | *" -c=release "*) extra=() ;;
  *)
    read -r -a extra <<<"$debug_info_flags"
    # Only the test targets write an index (Package.swift, testIndexStore): SwiftPM's test
    # discovery reads their units, and nothing here reads the rest (docs/MEASUREMENTS.md, "The
    # index store for the tests only"). The store must exist before discovery opens it.
    if [ -z "${GEOSPEND_FULL_INDEX:-}" ]; then
      # On a fresh clone this resolves and fetches the packages first; the path is the last line.
      [ -d .build/checkouts ] || echo "build: fetching and resolving the packages (log: $log)"
      bin=$("$swift" build "$@" "${extra[@]}" --show-bin-path 2>>"$log" | tail -n 1) || { tail -n 20 "$log" >&2; exit 1; }
      export GEOSPEND_TEST_INDEX_STORE=$bin/index/store
      mkdir -p "$GEOSPEND_TEST_INDEX_STORE"
      extra+=(--disable-index-store)
    fi
    ;;
esac

echo "build: $swift build $* ${extra[*]} (log: $log)"
"$swift" build "$@" "${extra[@]}" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null' INT TERM
last=""
ticks=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  ticks=$((ticks + 1))
  step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" 2>/dev/null | tail -n 1)
  if [ -t 1 ]; then
    [ -n "$step" ] && [ "$step" != "$last" ] && printf '\r  %s compiling and linking…' "$step"
  elif [ $((ticks % 60)) -eq 0 ]; then
    echo "  ${step:-[starting]} after $((ticks / 60)) min"
  fi
  last=$step
done
wait "$pid"
status=$?
[ -t 1 ] && printf '\r\033[K'
if [ "$status" -ne 0 ]; then
  echo "build: failed (exit $status); the errors (whole log: $log):" >&2
  grep -E '(error|warning):' -A 3 "$log" | grep -v '^--$' | head -n 80 >&2
  tail -n 5 "$log" >&2
  exit "$status"
fi
# Our own code builds without warnings; a dependency's (outside Sources/ and Tests/) are its own.
warnings=$(grep -E "^$(pwd)/(Sources|Tests|Benchmarks)/.*warning:" "$log" | sort -u)
[ -n "$warnings" ] && echo "$warnings" >&2
complete=$(grep -Eo 'Build complete! \([0-9.]+s\)' "$log" | tail -n 1)
echo "build: ${complete:-done}"
