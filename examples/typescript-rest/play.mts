// A typed REST client of the gateway, generated from its OpenAPI document:
// openapi-typescript writes the types (generated/schema.d.ts), openapi-fetch makes the
// calls with fetch, so the same code runs in a browser and in Node 18+. Deals a game of
// La Belle Lucie, plays a move, tries an illegal one (a structured move this time) and
// reads the problem's code and rule, then takes the move back.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/schema.js";

type Problem = components["schemas"]["Problem"];
export type Step = { step: string } & Record<string, unknown>;

/** Plays the scripted game against the gateway at `baseUrl`; returns what each step saw. */
export async function playGame(baseUrl: string): Promise<Step[]> {
  const api = createClient<paths>({ baseUrl });
  const steps: Step[] = [];

  const variants = await api.GET("/v1/variants");
  steps.push({ step: "variants", count: variants.data?.variants.length });

  const created = await api.POST("/v1/games", { body: { variant: "la-belle-lucie", deal: 7 } });
  if (!created.data) throw new Error(`create failed: ${created.error?.code}`);
  const { id, token } = created.data;
  // The owner token goes with every later call; the ETag says which version a change is for.
  const auth = { Authorization: `Bearer ${token}` };
  let etag = created.response.headers.get("ETag") ?? "";
  steps.push({ step: "new-game", status: created.data.status, legal_moves: created.data.legal_moves });

  const moved = await api.POST("/v1/games/{game_id}/moves", {
    params: { path: { game_id: id }, header: { "If-Match": etag } },
    headers: auth,
    body: { move: "t16-f1" },
  });
  if (!moved.data) throw new Error(`move failed: ${moved.error?.code}`);
  etag = moved.response.headers.get("ETag") ?? "";
  const f1 = moved.data.piles.find((pile) => pile.id === "f1");
  steps.push({ step: "move", kind: moved.data.move.kind, f1: f1?.cards, version: moved.data.version });

  const refused = await api.POST("/v1/games/{game_id}/moves", {
    params: { path: { game_id: id }, header: { "If-Match": etag } },
    headers: auth,
    body: { kind: "transfer", source: "t1", target: "f1" },
  });
  const problem: Problem | undefined = refused.error;
  steps.push({
    step: "illegal-move",
    status: refused.response.status,
    code: problem?.code,
    rule: problem?.rule,
  });

  const undone = await api.POST("/v1/games/{game_id}/undo", {
    params: { path: { game_id: id }, header: { "If-Match": etag } },
    headers: auth,
  });
  const f1After = undone.data?.piles.find((pile) => pile.id === "f1");
  steps.push({ step: "undo", f1: f1After?.cards, version: undone.data?.version });
  return steps;
}
