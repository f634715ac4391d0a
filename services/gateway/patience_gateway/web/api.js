// The gateway's REST API as the page uses it: every call returns the parsed body, or
// throws an ApiError carrying the RFC 9457 problem (status, code, detail) and, for a
// stale or concurrent write, the game's current version from the ETag.
//
// A game is {id, token}: an anonymous game is opened by its own token; a player's game
// (token null) by the player's access token, which the session (session.js) hands out
// and renews when the server says it has expired.

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

// A file the server sends (a download): its bytes as a Blob, or the ApiError of the
// problem answered instead.
async function fetchFile(path, token) {
  let response;
  try {
    response = await fetch(path, {
      headers: { Authorization: `Bearer ${token}` },
      cache: "no-store",
    });
  } catch (error) {
    throw new ApiError(0, { code: "network", detail: "the server cannot be reached" }, null);
  }
  if (!response.ok) {
    let problem = {};
    try {
      problem = await response.json();
    } catch (error) {
      problem = { detail: `the server answered ${response.status} without a readable body` };
    }
    throw new ApiError(response.status, problem, null);
  }
  return response.blob();
}

// The player's session, for the calls that need its access token (set by the page).
let session = null;

export function useSession(current) {
  session = current;
}

function asPlayer(request) {
  if (!session || !session.available) {
    return Promise.reject(
      new ApiError(503, { code: "records-unavailable", detail: "this browser has no player" }, null),
    );
  }
  return session.call(request);
}

// A call on a game: with its own token (an anonymous game's owner token, or a share
// token, which reads and changes nothing), or the player's access token.
function onGame(game, request) {
  return game.token ? request(game.token) : asPlayer(request);
}

// A read that says more with the player's access token (its attempts, its place on a
// board), and works without one.
function perhapsAsPlayer(request) {
  return session && session.available ? session.call(request) : request(null);
}

export const api = {
  variants: () => call("GET", "/v1/variants").then((data) => data.variants),
  variant: (id) => call("GET", `/v1/variants/${encodeURIComponent(id)}`),
  // the player's game when `player`, else an anonymous one (its token in the answer)
  create: (variant, deal, player) => {
    const body = deal === "" ? { variant } : { variant, deal };
    return player
      ? asPlayer((token) => call("POST", "/v1/games", { token, body }))
      : call("POST", "/v1/games", { body });
  },
  view: (game) => onGame(game, (token) => call("GET", `/v1/games/${game.id}`, { token })),
  history: (game) =>
    onGame(game, (token) => call("GET", `/v1/games/${game.id}/history`, { token })),
  move: (game, notation, version) =>
    onGame(game, (token) =>
      call("POST", `/v1/games/${game.id}/moves`, { token, version, body: { move: notation } }),
    ),
  undo: (game, version) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/undo`, { token, version })),
  redo: (game, version) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/redo`, { token, version })),
  restart: (game, version) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/restart`, { token, version })),
  resign: (game, version) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/resign`, { token, version })),
  hint: (game) => onGame(game, (token) => call("GET", `/v1/games/${game.id}/hint`, { token })),
  autoplay: (game, version) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/autoplay`, { token, version })),
  settings: (game, settings, version) =>
    onGame(game, (token) =>
      call("PATCH", `/v1/games/${game.id}`, { token, version, body: settings }),
    ),
  streamTicket: (game) =>
    onGame(game, (token) => call("POST", `/v1/games/${game.id}/stream-tickets`, { token })),
  // an anonymous game (its token) made the player's
  claim: (game) =>
    asPlayer((token) =>
      call("POST", `/v1/games/${game.id}/claim`, { token, body: { token: game.token } }),
    ),

  // a read-only token of the game (the owner's): it opens the view, history, replay and
  // stream, and nothing else
  share: (game) => onGame(game, (token) => call("POST", `/v1/games/${game.id}/shares`, { token })),
  // the table after `position` of the game's moves (0: the deal)
  replay: (game, position) =>
    onGame(game, (token) =>
      call("GET", `/v1/games/${game.id}/replay?position=${Number(position)}`, { token }),
    ),

  // daily deals and the boards
  daily: () => perhapsAsPlayer((token) => call("GET", "/v1/daily", { token })),
  startDaily: (variant) =>
    asPlayer((token) =>
      call("POST", `/v1/daily/${encodeURIComponent(variant)}/games`, { token }),
    ),
  // kind: "daily", "wins" or "streaks"; query: the board's fields (period, top, around)
  board: (kind, variant, query) =>
    perhapsAsPlayer((token) =>
      call(
        "GET",
        `/v1/leaderboards/${kind}/${encodeURIComponent(variant)}?${new URLSearchParams(query)}`,
        { token },
      ),
    ),

  // players and their sessions
  newPlayer: () => call("POST", "/v1/players", { body: {} }),
  refresh: (refreshToken) =>
    call("POST", "/v1/sessions/refresh", { body: { refresh_token: refreshToken } }),
  signOut: (refreshToken) =>
    call("POST", "/v1/sessions/sign-out", { body: { refresh_token: refreshToken } }),
  link: (code) => call("POST", "/v1/sessions/link", { body: { code } }),
  linkCode: () => asPlayer((token) => call("POST", "/v1/players/me/link-codes", { token })),
  statistics: () => asPlayer((token) => call("GET", "/v1/players/me/stats", { token })),
  // everything kept of the player, one JSON document (a Blob)
  exportData: () => asPlayer((token) => fetchFile("/v1/players/me/export", token)),
  deletePlayer: () => asPlayer((token) => call("DELETE", "/v1/players/me", { token })),
  // a page of the player's games: the first, or the one a `next` address names
  games: (next) =>
    asPlayer((token) => call("GET", next || "/v1/players/me/games?limit=10", { token })),
};

// A game's address: its id after the '#' (a part a browser never sends to a server,
// not in requests, not in Referer) and, for an anonymous game, its owner token; for a
// spectator, the game's share token instead (`share`: it only reads).
export function gameFromAddress(hash) {
  const fields = new URLSearchParams(hash.replace(/^#/, ""));
  const id = fields.get("game");
  if (!id) return null;
  const share = fields.get("share");
  if (share) return { id, token: share, shared: true };
  return { id, token: fields.get("token") || null };
}

export function addressOf(game) {
  const id = `#game=${encodeURIComponent(game.id)}`;
  if (game.shared) return `${id}&share=${encodeURIComponent(game.token)}`;
  return game.token ? `${id}&token=${encodeURIComponent(game.token)}` : id;
}
