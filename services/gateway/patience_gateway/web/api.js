// The gateway's REST API as the page uses it: every call returns the parsed body, or
// throws an ApiError carrying the RFC 9457 problem (status, code, detail) and, for a
// stale or concurrent write, the game's current version from the ETag.

export class ApiError extends Error {
  constructor(status, problem, etag) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "network";
    this.problem = problem;
    this.version = versionOf(etag);
  }
}

function versionOf(etag) {
  const match = /^"(\d+)"$/.exec(etag || "");
  return match ? Number(match[1]) : null;
}

async function call(method, path, { token, version, body } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (version != null) headers["If-Match"] = `"${version}"`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (error) {
    throw new ApiError(0, { code: "network", detail: "the server cannot be reached" }, null);
  }
  if (response.status === 204) return null;
  let data = {};
  try {
    data = await response.json();
  } catch (error) {
    data = { detail: `the server answered ${response.status} without a readable body` };
  }
  if (!response.ok) throw new ApiError(response.status, data, response.headers.get("ETag"));
  return data;
}

export const api = {
  variants: () => call("GET", "/v1/variants").then((data) => data.variants),
  variant: (id) => call("GET", `/v1/variants/${encodeURIComponent(id)}`),
  create: (variant, deal) =>
    call("POST", "/v1/games", { body: deal === "" ? { variant } : { variant, deal } }),
  view: (game) => call("GET", `/v1/games/${game.id}`, { token: game.token }),
  history: (game) => call("GET", `/v1/games/${game.id}/history`, { token: game.token }),
  move: (game, notation, version) =>
    call("POST", `/v1/games/${game.id}/moves`, {
      token: game.token,
      version,
      body: { move: notation },
    }),
  undo: (game, version) =>
    call("POST", `/v1/games/${game.id}/undo`, { token: game.token, version }),
  redo: (game, version) =>
    call("POST", `/v1/games/${game.id}/redo`, { token: game.token, version }),
  hint: (game) => call("GET", `/v1/games/${game.id}/hint`, { token: game.token }),
  autoplay: (game, version) =>
    call("POST", `/v1/games/${game.id}/autoplay`, { token: game.token, version }),
  settings: (game, settings, version) =>
    call("PATCH", `/v1/games/${game.id}`, { token: game.token, version, body: settings }),
  streamTicket: (game) =>
    call("POST", `/v1/games/${game.id}/stream-tickets`, { token: game.token }),
};

// A game's address: the id and the owner token after the '#', which a browser never
// sends to a server (not in requests, not in Referer).
export function gameFromAddress(hash) {
  const fields = new URLSearchParams(hash.replace(/^#/, ""));
  const id = fields.get("game");
  const token = fields.get("token");
  return id && token ? { id, token } : null;
}

export function addressOf(game) {
  return `#game=${encodeURIComponent(game.id)}&token=${encodeURIComponent(game.token)}`;
}
