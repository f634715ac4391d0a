#!/usr/bin/env bash
# Generates the TypeScript types from a running gateway's OpenAPI document
# (openapi-typescript) and compiles the example (tsc) into examples/typescript-rest/dist/.
#
#   examples/typescript-rest/build.sh [base URL]      (default http://127.0.0.1:8000)
#   node examples/typescript-rest/dist/main.mjs [base URL]
#
# --default-non-nullable=false: a request field with a default (a move's `count`) stays
# optional in the generated types, as the schema means it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/../../node_modules/.bin"
base="${1:-http://127.0.0.1:8000}"
mkdir -p "$here/generated"
"$bin/openapi-typescript" "$base/openapi.json" --default-non-nullable=false \
  --output "$here/generated/schema.d.ts"
"$bin/tsc" -p "$here"
