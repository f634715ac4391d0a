#!/usr/bin/env bash
# Builds examples/go-grpc into OUT_DIR/play: Go code generated from proto/ with protoc,
# protoc-gen-go and protoc-gen-go-grpc, compiled in GOPATH mode against the Go packages
# installed system-wide. Offline, with Debian's packages (bookworm):
#
#   apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc \
#     golang-google-grpc-dev golang-google-genproto-dev golang-google-protobuf-dev
#
#   examples/go-grpc/build.sh OUT_DIR
#
# In a Go module of your own, generate the same way and `go get google.golang.org/grpc
# google.golang.org/genproto/googleapis/rpc` instead (docs/grpc-clients.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proto="$here/../../proto"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
gopath="$out/gopath"
mkdir -p "$gopath/src/play"
# go_package puts the generated code at github.com/patience-engine/patience-engine/gen/go/...
protoc -I "$proto" --go_out="$gopath/src" --go-grpc_out="$gopath/src" \
  "$proto"/solitaire/v1/*.proto
cp "$here/main.go" "$gopath/src/play/"
cd "$gopath/src/play"
GO111MODULE=off GOPATH="$gopath:${SYSTEM_GOPATH:-/usr/share/gocode}" \
  GOFLAGS= go build -o "$out/play" .
