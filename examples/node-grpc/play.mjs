// A Node client of the engine over gRPC (@grpc/grpc-js and @grpc/proto-loader, loading the
// protos of this repository): deals a game of La Belle Lucie, plays a move, then tries an
// illegal one and reads the rule it breaks from the error's google.rpc.ErrorInfo.
//
//   node examples/node-grpc/play.mjs [host:port]      (default 127.0.0.1:50051)
//
// Each step prints one line of JSON.
import { fileURLToPath } from "node:url";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";

const PROTO_ROOT = fileURLToPath(new URL("../../proto", import.meta.url));
const target = process.argv[2] ?? "127.0.0.1:50051";

// The engine's service and messages. keepCase: fields as the .proto spells them;
// enums: String gives "PILE_KIND_FOUNDATION" rather than 3.
const definition = protoLoader.loadSync("solitaire/v1/engine.proto", {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  enums: String,
  defaults: true,
});
const { solitaire } = grpc.loadPackageDefinition(definition);
const engine = new solitaire.v1.EngineService(target, grpc.credentials.createInsecure());

// google.rpc.Status and ErrorInfo from the vendored protos (proto/google/rpc/).
const rpc = new protobuf.Root();
rpc.resolvePath = (_origin, file) => path.join(PROTO_ROOT, file);
rpc.loadSync(["google/rpc/status.proto", "google/rpc/error_details.proto"], { keepCase: true });
const Status = rpc.lookupType("google.rpc.Status");
const ErrorInfo = rpc.lookupType("google.rpc.ErrorInfo");

/** The ErrorInfo of a failed call: the rich status travels in grpc-status-details-bin. */
function errorInfo(error) {
  const [details] = error.metadata?.get("grpc-status-details-bin") ?? [];
  if (!details) return null;
  const status = Status.decode(details);
  const info = status.details.find(
    (any) => any.type_url === "type.googleapis.com/google.rpc.ErrorInfo",
  );
  return info ? ErrorInfo.toObject(ErrorInfo.decode(info.value)) : null;
}

/** One unary call as a promise. */
function call(method, request) {
  return new Promise((resolve, reject) => {
    engine[method](request, { deadline: Date.now() + 10_000 }, (error, reply) =>
      error ? reject(error) : resolve(reply),
    );
  });
}

const show = (step, fields) => console.log(JSON.stringify({ step, ...fields }));

try {
  const { variants } = await call("ListVariants", {});
  show("variants", { count: variants.length });

  const game = await call("NewGame", { variant: "la-belle-lucie", deal: "7" });
  show("new-game", {
    status: game.view.status,
    legal_moves: game.view.legal_moves.map((move) => move.notation),
  });

  // The state goes back to the engine exactly as it came: it is sealed.
  const moved = await call("ApplyMove", { state: game.state, move: { notation: "t16-f1" } });
  const f1 = moved.view.piles.find((pile) => pile.id === "f1");
  show("move", {
    move: moved.applied[0].notation,
    kind: moved.applied[0].kind,
    f1: { kind: f1.kind, cards: f1.cards },
  });

  try {
    await call("ApplyMove", { state: moved.state, move: { notation: "t1-f1" } });
    show("illegal-move", { refused: false });
  } catch (error) {
    const info = errorInfo(error);
    show("illegal-move", {
      refused: true,
      code: grpc.status[error.code],
      reason: info?.reason,
      domain: info?.domain,
      metadata: info?.metadata,
    });
  }
} finally {
  engine.close();
}
