#!/usr/bin/env bash
# Writes Sources/GeoSpendSpatiaLite/SquashedSchema.swift again from Schema.migrations: run it after
# adding a migration (SquashedSchemaTests fails until then). New files run that one script
# instead of every migration.
#
#   scripts/squash-schema.sh && scripts/build.sh --build-tests && swift test --skip-build --filter SquashedSchema
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh --build-tests
GEOSPEND_WRITE_SQUASHED_SCHEMA=1 swift test --skip-build --filter 'SquashedSchemaTests/squashedSchemaIsCurrent'
git diff --stat -- Sources/GeoSpendSpatiaLite/SquashedSchema.swift
