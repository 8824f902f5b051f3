#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for a while.
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]     build, then run each target SECONDS (default 60)
#   scripts/fuzz.sh build                    build only
#
# SwiftPM cannot build fuzz targets, so swiftc compiles the GeoSpend sources once into a static
# library instrumented for coverage and AddressSanitizer (`-enable-testing`, so targets reach
# the internal readers with `@testable import`), then links each Fuzz/<target>.swift with
# Fuzz/Support.swift against it. Everything goes to .build-fuzz/ (git-ignored).
# The committed seeds in Fuzz/corpus/<target>/ are only read; what the fuzzer finds goes to
# .build-fuzz/corpus/<target>/ and crashing inputs to .build-fuzz/crashes/. Exit code 1 when a
# target crashed or broke an invariant.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=.build-fuzz
TARGETS_ALL=(csv jsonl geojson arguments ofx qif camt053 mt940 monzo-api gpx positions)
FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -package-name GeoSpend -I Sources/CProj -I Sources/CGEOS -I Sources/CZlib)

# gold warns once per ASan helper symbol when linking Swift with -sanitize=address: noise.
quiet_link() { "$@" 2> >(grep -v "Cannot export local symbol" >&2); }

build() {
    mkdir -p "$OUT/lib"
    local sources
    mapfile -t sources < <(find Sources/GeoSpend -name '*.swift' | sort)
    local stamp="$OUT/lib/libGeoSpend.a"
    if [[ ! -f $stamp ]] || [[ -n $(find Sources/GeoSpend -name '*.swift' -newer "$stamp") ]]; then
        echo "fuzz: compiling GeoSpend (${#sources[@]} files, -O, ASan, coverage)" >&2
        quiet_link swiftc "${FLAGS[@]}" -enable-testing -module-name GeoSpend -emit-module -emit-module-path "$OUT/lib/GeoSpend.swiftmodule" \
            -emit-library -static -o "$stamp" "${sources[@]}"
    fi
    for t in "${TARGETS_ALL[@]}"; do
        if [[ ! -x $OUT/$t ]] || [[ Fuzz/$t.swift -nt $OUT/$t || Fuzz/Support.swift -nt $OUT/$t || $stamp -nt $OUT/$t ]]; then
            echo "fuzz: linking $t" >&2
            quiet_link swiftc "${FLAGS[@]}" -I "$OUT/lib" -module-name "Fuzz_${t//-/_}" Fuzz/Support.swift "Fuzz/$t.swift" "$stamp" -lproj -lgeos_c -lz -o "$OUT/$t"
        fi
    done
}

build
[[ ${1:-} == build ]] && exit 0
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -eq 0 ]] && TARGETS=("${TARGETS_ALL[@]}")
failed=0
printf '%-10s %8s %10s %8s %s\n' target seconds executions exec/s result
for t in "${TARGETS[@]}"; do
    mkdir -p "$OUT/corpus/$t" "$OUT/crashes"
    log="$OUT/$t.log"
    max_len=4096
    [[ $t == arguments ]] && max_len=64
    # -rss_limit_mb: ASan plus the Swift runtime; -timeout: a hang is a finding too.
    # SWIFT_BACKTRACE off: Swift's own crash reporter would race libFuzzer's and ASan's.
    if SWIFT_BACKTRACE=enable=no "$OUT/$t" -max_total_time="$SECONDS_EACH" -max_len=$max_len -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$OUT/crashes/$t-" "$OUT/corpus/$t" "Fuzz/corpus/$t" >"$log" 2>&1; then
        result=ok
    else
        result="CRASH (see $log, input in $OUT/crashes/)"
        failed=1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    printf '%-10s %8s %10s %8s %s\n' "$t" "${took:-?}" "${runs:-?}" "${rate:-?}" "$result"
done
exit $failed
