# GeoSpend — two commands set everything up on a fresh Debian 12 machine:
#   make demo   bootstrap, build, build demo.sqlite (Data/ places, generated expenses), print a short tour
#   make test   bootstrap, build, run every test
# (make screenshots regenerates the README's pictures from the demo data; make install
# PREFIX=DIR puts geospend in DIR/bin and its data in DIR/share/geospend.) Builds log to
# .build/logs/ and print progress (scripts/build.sh).
SHELL := /bin/bash
SWIFT ?= swift
VENV := .venv

.PHONY: bootstrap venv build release install demo screenshots test reliability notebooks fixtures fuzz bench bench-quick bench-service bench-webapp eval-geotag eval-receipts clean

bootstrap:
	@scripts/bootstrap.sh

# Python readers the tests check exports with (pinned in Tests/validators/requirements.txt).
venv: bootstrap
	@scripts/venv.sh Tests/validators/requirements.txt

build: bootstrap
	@SWIFT=$(SWIFT) scripts/build.sh

release: bootstrap
	@SWIFT=$(SWIFT) scripts/build.sh -c release

# The release binary in $(PREFIX)/bin, the places it generates from in $(PREFIX)/share/geospend
# (where an installed geospend looks for them, docs: `geospend generate --help`).
PREFIX ?= /usr/local
# The service's resources (the OpenAPI document, the web app's files) are a SwiftPM bundle that
# Bundle.module looks for next to the binary first: it goes into bin/ beside it. The web app's
# offline basemap goes beside the places (`geospend serve` finds it there).
install: release
	install -d $(PREFIX)/bin $(PREFIX)/share/geospend
	install -m 755 .build/release/geospend $(PREFIX)/bin/geospend
	rm -rf $(PREFIX)/bin/GeoSpend_GeoSpendService.resources
	cp -R .build/release/GeoSpend_GeoSpendService.resources $(PREFIX)/bin/
	chmod -R a+rX $(PREFIX)/bin/GeoSpend_GeoSpendService.resources
	install -m 644 Data/helsinki-places.geojson Data/helsinki-basemap.geojson $(PREFIX)/share/geospend/

demo: build
	@scripts/demo.sh .build/debug/geospend

# The README's screenshots, from make demo's data, by headless Chromium (scripts/screenshots.sh).
screenshots: build venv
	@scripts/screenshots.sh .build/debug/geospend

# The tests' scratch folders go under one folder per checkout (TMPDIR), emptied before and after
# the run: a failed or killed test cannot leave gigabytes of databases in /tmp. Outside the
# checkout, as some tests need a folder with no Data/ above it. The PostGIS store's tests run
# against a throwaway server (scripts/with-postgis.sh, its data folder under TMPDIR too), required
# to be there. In memory (/dev/shm) when it has 8 GiB free, else /tmp: a whole test run took
# 581 s there against 644 s on this machine's disk, one run each (docs/MEASUREMENTS.md, "Scratch
# files in memory").
TEST_TMP_ROOT := $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$$(df -Pk /dev/shm | awk 'NR == 2 { print $$4 }')" -ge 8388608 ] && echo /dev/shm || echo /tmp)
TEST_TMP := $(TEST_TMP_ROOT)/geospend-tests-$(shell printf %s "$(CURDIR)" | md5sum | cut -c1-12)
TEST_RUN := TMPDIR=$(TEST_TMP) GEOSPEND_REQUIRE_POSTGRES=1 POSTGIS_DURABILITY=off scripts/with-postgis.sh $(SWIFT) test --skip-build
# The Python readers (and the notebooks' side) install while Swift builds, not after it: into a
# fresh .venv the install is about 40 s (docs/MEASUREMENTS.md, "A build from a clean clone").
# The notebooks then run beside the tests, as make notebooks runs them (they need only the
# geospend just built and .venv): the tests leave about a sixth of the two cores idle.
# Each half says how long it took from its start: the tests' figure counts the servers' start,
# `swift test`'s planning and the notebooks' end, which Swift Testing's own does not.
test: bootstrap
	@start=$$(date +%s); \
	  scripts/venv.sh Tests/validators/requirements.txt Notebooks/requirements.txt & venv=$$!; \
	  SWIFT=$(SWIFT) scripts/build.sh --build-tests; built=$$?; \
	  wait $$venv; installed=$$?; \
	  if [ $$built -ne 0 ]; then exit $$built; fi; \
	  if [ $$installed -ne 0 ]; then echo "test: installing the Python environment failed (above)" >&2; exit $$installed; fi; \
	  echo "test: built in $$(( $$(date +%s) - start )) s"
	@rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	@start=$$(date +%s); \
	  GEOSPEND_BIN=$(CURDIR)/.build/debug/geospend $(VENV)/bin/python scripts/notebooks/run_notebooks.py --timeout 300 \
	    >.build/logs/notebooks.log 2>&1 & notebooks=$$!; \
	  echo "$(TEST_RUN)"; $(TEST_RUN); tested=$$?; \
	  wait $$notebooks; executed=$$?; cat .build/logs/notebooks.log >&2; rm -rf $(TEST_TMP); \
	  echo "test: tests and notebooks ran in $$(( $$(date +%s) - start )) s"; \
	  if [ $$tested -ne 0 ]; then exit $$tested; fi; \
	  if [ $$executed -ne 0 ]; then echo "test: a notebook failed (above; make notebooks runs them alone)" >&2; exit $$executed; fi

# The crash, bad-file and concurrency tests at length (make test runs them short): 200 SIGKILLs
# during imports (RUNS=N for another count), 4 rounds of 6 imports against 4 reader processes,
# kill -9 of serve during 200 webhook events (WebhookCrashTests), then a summary of runs,
# failures and lock waits.
reliability: bootstrap
	@SWIFT=$(SWIFT) scripts/build.sh --build-tests
	@rm -f .build/reliability-summary.txt
	@rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	TMPDIR=$(TEST_TMP) GEOSPEND_RELIABILITY_RUNS=$(or $(RUNS),200) GEOSPEND_RELIABILITY_SUMMARY=$(CURDIR)/.build/reliability-summary.txt \
		$(SWIFT) test --skip-build --filter 'CrashTests|ConcurrencyTests|BadDatabaseTests|FullDiskTests|ServiceLoadTests|AttackRound2Tests|OGCLayerBuildTests|MisbehavingTokenTests|BatchedRewriteTests|WebhookCrashTests'
	@rm -rf $(TEST_TMP)
	@echo; echo "== make reliability: summary =="; cat .build/reliability-summary.txt

# Execute every notebook headless (outputs written back in place), failing on any cell error.
notebooks: bootstrap venv
	@scripts/venv.sh Notebooks/requirements.txt
	@SWIFT=$(SWIFT) scripts/build.sh --product geospend
	GEOSPEND_BIN=$(CURDIR)/.build/debug/geospend $(VENV)/bin/python scripts/notebooks/run_notebooks.py --timeout 300

# Re-derive the geodesy fixtures from GeographicLib's Python port (needs PyPI).
fixtures: bootstrap
	@scripts/venv.sh scripts/fixtures/requirements.txt
	$(VENV)/bin/python scripts/fixtures/geodesic_fixtures.py Tests/Fixtures

# libFuzzer targets (Fuzz/README.md): CSV, JSON Lines, GeoJSON stores, option values; each
# runs FUZZ_SECONDS, with invariants checked on every input. Exit 1 on a crash. Then the HTTP API
# under schemathesis with SCHEMATHESIS_EXAMPLES examples an operation (make test runs 10).
FUZZ_SECONDS ?= 60
SCHEMATHESIS_EXAMPLES ?= 100
fuzz: bootstrap venv
	@scripts/fuzz.sh $(FUZZ_SECONDS)
	@SWIFT=$(SWIFT) scripts/build.sh --build-tests
	@rm -rf $(TEST_TMP) && mkdir -p $(TEST_TMP)
	TMPDIR=$(TEST_TMP) GEOSPEND_SCHEMATHESIS_EXAMPLES=$(SCHEMATHESIS_EXAMPLES) $(SWIFT) test --skip-build --filter openAPIDocumentHoldsUnderSchemathesis

# Receipts from photos (issue 42): generated clean, phone and hard photos with ground truth, read by
# `geospend receipts scan`; per set accepted, total exact, wrong totals accepted, date, store, items,
# seconds per receipt (docs/RECEIPTS.md). PER_SET=N photos per set (40), STEPS=… the preparation.
eval-receipts: build
	@scripts/venv.sh scripts/receipts/requirements.txt
	@scripts/receipts/eval.sh .build/debug/geospend

# Benchmarks against a throwaway PostgreSQL 15 + PostGIS 3 server, answers cross-checked:
# 100k and 1M expenses over 50k stores (bench; BENCH_LARGE=1 adds 10M) or 100k only (bench-quick).
# Tables go into Benchmarks/RESULTS.md, raw numbers into Benchmarks/results/*.json.
bench: release
	@scripts/bench.sh 100000 1000000 $(if $(BENCH_LARGE),10000000)
	@scripts/bench-rollups.sh 1000000 $(if $(BENCH_LARGE),10000000)
	@scripts/bench-service.sh 1000000
	@scripts/eval-geotag.sh

# The service alone under wrk (make bench runs it on 1M expenses): BENCH_SERVICE_N expenses.
bench-service: release
	@scripts/bench-service.sh $(or $(BENCH_SERVICE_N),20000) $(or $(BENCH_SECONDS),10)

# The web app's first screen for one user with 100k expenses in headless Chromium (issue 41's
# ≤ 1 s), Navigation Timing and the app's geospend-ready mark; table for Benchmarks/RESULTS.md.
bench-webapp: release venv
	@scripts/bench-webapp.sh $(or $(BENCH_WEBAPP_N),100000)

bench-quick: release
	@scripts/bench.sh 100000

# The geotagger on simulated people (docs/GEOTAG.md): held-out seeds 101-108 against issue 36's
# goals, the tuning seeds 1-8 beside them, and the speed of reading 1M positions and geotagging
# 100k expenses. Benchmarks/results/geotag-eval.json and a table in Benchmarks/RESULTS.md; exit 1
# when a goal is unmet.
eval-geotag: release
	@scripts/eval-geotag.sh

clean:
	rm -rf .build Benchmarks/.build demo.sqlite* demo-hex.geojson demo-map demo-store.html demo-maija Notebooks/out out
