#!/usr/bin/env bash
# The engine from the command line with `buf curl`, grpcurl's counterpart in the buf CLI
# (npm @bufbuild/buf, installed by `make`): schema by server reflection (v1), requests and
# replies as JSON. Deals a game of La Belle Lucie, plays a move, then tries an illegal one
# and decodes the google.rpc.ErrorInfo of the error with `buf convert` and the vendored
# google/rpc protos. The same calls with grpcurl are in examples/README.md.
#
#   examples/grpc-curl/play.sh [host:port]      (default 127.0.0.1:50051; needs jq)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$here/../.."
target="${1:-127.0.0.1:50051}"
buf="${BUF:-$repo/node_modules/.bin/buf}"
service="http://$target/solitaire.v1.EngineService"

# One call: METHOD and a JSON request; the JSON reply on stdout, the error JSON on failure.
call() {
  "$buf" curl --protocol grpc --http2-prior-knowledge --reflect-protocol grpc-v1 \
    "$service/$1" --data "$2"
}

echo "services: $("$buf" curl --protocol grpc --http2-prior-knowledge --reflect-protocol grpc-v1 \
  --list-services "http://$target" | tr '\n' ' ')"

game=$(call NewGame '{"variant": "la-belle-lucie", "deal": "7"}')
echo "legal moves: $(jq -c '[.view.legalMoves[].notation]' <<<"$game")"

# The state goes back exactly as it came (it is sealed): take it from the reply as it is.
moved=$(call ApplyMove "$(jq -c '{state, move: {notation: "t16-f1"}}' <<<"$game")")
echo "f1 after t16-f1: $(jq -c '.view.piles[] | select(.id == "f1") | .cards' <<<"$moved")"

# An illegal move: buf curl exits non-zero and prints the status as JSON, its details as
# google.protobuf.Any (type and base64 value).
if refused=$(call ApplyMove "$(jq -c '{state, move: {notation: "t1-f1"}}' <<<"$moved")" 2>&1); then
  echo "t1-f1 was accepted" >&2
  exit 1
fi
echo "t1-f1 refused: $(jq -c '{code, message}' <<<"$refused")"
detail=$(mktemp)
trap 'rm -f "$detail"' EXIT
# The value is base64 without its padding: pad it, decode it, and read it as an ErrorInfo.
jq -r '.details[] | select(.type == "google.rpc.ErrorInfo")
       | .value + ("=" * ((4 - (.value | length) % 4) % 4))' <<<"$refused" \
  | tr '_-' '/+' | base64 -d >"$detail"
echo "error info: $("$buf" convert "$repo/proto" --type google.rpc.ErrorInfo \
  --from "$detail#format=binpb" --to -#format=json)"
