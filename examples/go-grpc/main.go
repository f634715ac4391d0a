// A Go client of the engine: deals a game of La Belle Lucie, plays a move, then tries an
// illegal one and reads the rule it breaks from the error's google.rpc.ErrorInfo.
//
// Build it with the Go code generated from proto/ (examples/go-grpc/build.sh does it with
// protoc, protoc-gen-go and protoc-gen-go-grpc), then:
//
//	play [host:port]      (default 127.0.0.1:50051)
//
// Each step prints one line of JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	solitairev1 "github.com/patience-engine/patience-engine/gen/go/solitaire/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

func show(step string, fields map[string]interface{}) {
	fields["step"] = step
	line, _ := json.Marshal(fields)
	fmt.Println(string(line))
}

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	os.Exit(1)
}

func notations(moves []*solitairev1.Move) []string {
	out := make([]string, 0, len(moves))
	for _, move := range moves {
		out = append(out, move.GetNotation())
	}
	return out
}

func main() {
	target := "127.0.0.1:50051"
	if len(os.Args) > 1 {
		target = os.Args[1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Plaintext, as the engine serves on loopback; grpc.WithTransportCredentials(
	// insecure.NewCredentials()) in grpc-go 1.34 and later.
	conn, err := grpc.DialContext(ctx, target, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		fail("connect", err)
	}
	defer conn.Close()
	engine := solitairev1.NewEngineServiceClient(conn)

	variants, err := engine.ListVariants(ctx, &solitairev1.ListVariantsRequest{})
	if err != nil {
		fail("ListVariants", err)
	}
	show("variants", map[string]interface{}{"count": len(variants.GetVariants())})

	game, err := engine.NewGame(ctx, &solitairev1.NewGameRequest{Variant: "la-belle-lucie", Deal: "7"})
	if err != nil {
		fail("NewGame", err)
	}
	show("new-game", map[string]interface{}{
		"status":      game.GetView().GetStatus().String(),
		"legal_moves": notations(game.GetView().GetLegalMoves()),
	})

	// The state goes back to the engine exactly as it came: it is sealed.
	moved, err := engine.ApplyMove(ctx, &solitairev1.ApplyMoveRequest{
		State: game.GetState(), Move: &solitairev1.Move{Notation: "t16-f1"},
	})
	if err != nil {
		fail("ApplyMove", err)
	}
	for _, pile := range moved.GetView().GetPiles() {
		if pile.GetId() == "f1" {
			show("move", map[string]interface{}{
				"move": moved.GetApplied()[0].GetNotation(),
				"kind": moved.GetApplied()[0].GetKind().String(),
				"f1":   map[string]interface{}{"kind": pile.GetKind().String(), "cards": pile.GetCards()},
			})
		}
	}

	_, err = engine.ApplyMove(ctx, &solitairev1.ApplyMoveRequest{
		State: moved.GetState(), Move: &solitairev1.Move{Notation: "t1-f1"},
	})
	if err == nil {
		show("illegal-move", map[string]interface{}{"refused": false})
		return
	}
	// The rich status (grpc-status-details-bin) is decoded by grpc-go itself.
	refusal := status.Convert(err)
	fields := map[string]interface{}{"refused": true, "code": refusal.Code().String()}
	for _, detail := range refusal.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			fields["reason"] = info.GetReason()
			fields["domain"] = info.GetDomain()
			fields["metadata"] = info.GetMetadata()
		}
	}
	show("illegal-move", fields)
}
