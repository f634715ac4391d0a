// The page's panels, each a modal dialog (Tab stays in it, Esc closes it):
//
// - Statistics: the player's results per game and kind of deal (GET
//   /v1/players/me/stats), the player's games, newest first, a page at a time (GET
//   /v1/players/me/games; a game in play resumes with a click, a finished one replays),
//   linking another device (a link code shown here, or one typed here), and the
//   player's data: downloaded as one file (GET /v1/players/me/export), or deleted with
//   the player (DELETE /v1/players/me, once confirmed);
// - Daily deals: today's deal of each game (GET /v1/daily), the time left, the player's
//   attempts, and yesterday's numbers, now told;
// - Boards: the day's board of a game, its wins (all time, this week) and best streaks
//   (GET /v1/leaderboards/...), the top players and the player's own place among those
//   around it.

import { ApiError, api } from "./api.js";

const $ = (id) => document.getElementById(id);

const CATEGORIES = {
  random: "Random deals",
  winnable: "Winnable deals",
  practice: "Chosen deals",
  daily: "Daily deals",
};

const ENDINGS = {
  won: "won",
  stuck: "stuck",
  "proven-lost": "resigned (proven lost)",
  resigned: "resigned",
  abandoned: "abandoned",
};

const PROBLEMS = {
  "records-unavailable": "The server cannot reach its records just now; try again in a moment.",
  "too-many-requests": "Too many requests of this kind just now; try again in a minute.",
  "no-winnable-deal": "That deal is still being prepared; try again in a moment.",
  "unknown-variant": "There is no daily deal of that game.",
  "daily-attempt-open":
    "Your first attempt at today's deal is still open: finish it, resign it or delete it before playing the deal again.",
  "bad-link-code":
    "No live code is this one: it was used already, it expired (after five minutes), or it was mistyped.",
  network: "The server cannot be reached; check the connection and try again.",
};

export function duration(seconds) {
  const whole = Math.floor(seconds);
  const s = whole % 60;
  const m = Math.floor(whole / 60) % 60;
  const h = Math.floor(whole / 3600);
  const ss = String(s).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export function endingWords(record) {
  if (!record || !record.outcome) return "";
  if (record.outcome === "won") return record.clean ? "won, clean" : "won, not clean";
  return ENDINGS[record.outcome] || record.outcome;
}

// A UTC day (YYYY-MM-DD) in words.
export function dayWords(day) {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime())
    ? day
    : date.toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" });
}

// Whether a UTC day (YYYY-MM-DD) is over, by this browser's clock.
function dayOver(day) {
  return new Date().toISOString().slice(0, 10) > day;
}

// Which deal a game is, in words: a daily deal's number is hidden until its day is over
// (never shown before then, even should an answer carry it), and then told with its day.
export function dealWords(deal, record) {
  const day = record?.daily;
  if (day && (deal == null || !dayOver(day))) return `the daily deal of ${dayWords(day)}`;
  if (deal != null) return day ? `deal ${deal}, the daily deal of ${dayWords(day)}` : `deal ${deal}`;
  return "random deal";
}

function when(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime())
    ? text
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function cell(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function problemWords(error) {
  return PROBLEMS[error.code] || `The server refused: ${error.message}.`;
}

export class StatsPanel {
  // nameOf(variant): its name; current(): the id of the game on the table; resume(id):
  // opens a game in play; replay(id): replays a finished one.
  constructor(session, { nameOf, current, resume, replay }) {
    this.session = session;
    this.nameOf = nameOf;
    this.current = current;
    this.resume = resume;
    this.replay = replay;
    this.dialog = $("stats");
    this.opener = null;
    this.next = null;
    $("stats-close").addEventListener("click", () => this.close());
    this.dialog.addEventListener("close", () => {
      this.opener?.focus();
      this.opener = null;
    });
    $("games-more").addEventListener("click", () => this.more());
    $("link-show").addEventListener("click", () => this.showCode());
    $("link-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.link($("link-input").value);
    });
    $("export-data").addEventListener("click", () => this.exportData());
    $("delete-player").addEventListener("click", () => this.askDelete(true));
    $("delete-no").addEventListener("click", () => this.askDelete(false));
    $("delete-yes").addEventListener("click", () => this.deletePlayer());
  }

  // The confirmation of a deletion, shown or put away.
  askDelete(asking) {
    $("delete-confirm").hidden = !asking;
    $("delete-player").setAttribute("aria-expanded", String(asking));
    (asking ? $("delete-no") : $("delete-player")).focus();
  }

  async exportData() {
    const message = $("data-message");
    const button = $("export-data");
    button.disabled = true;
    message.textContent = "Preparing your data…";
    try {
      const file = await api.exportData();
      const address = URL.createObjectURL(file);
      const link = document.createElement("a");
      link.href = address;
      link.download = `patience-${this.session.player.id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(address), 60_000);
      message.textContent = "Your data is downloaded (one JSON file).";
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      message.textContent = problemWords(error);
    } finally {
      button.disabled = false;
    }
  }

  async deletePlayer() {
    const message = $("data-message");
    const button = $("delete-yes");
    button.disabled = true;
    try {
      const gone = this.session.player.id;
      const player = await this.session.deletePlayer();
      $("delete-confirm").hidden = true;
      $("delete-player").setAttribute("aria-expanded", "false");
      message.textContent =
        `Player ${gone.slice(0, 8)}… is deleted, with its games and results. ` +
        `This browser now plays as a new player, ${player.id.slice(0, 8)}….`;
      $("delete-player").focus();
      await this.load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      message.textContent = problemWords(error);
    } finally {
      button.disabled = false;
    }
  }

  get isOpen() {
    return this.dialog.open;
  }

  async open() {
    if (this.dialog.open) return;
    this.opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    $("link-code").hidden = true;
    $("link-message").textContent = "";
    $("data-message").textContent = "";
    $("delete-confirm").hidden = true;
    $("delete-player").setAttribute("aria-expanded", "false");
    this.dialog.showModal();
    await this.load();
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  say(text) {
    $("stats-message").textContent = text;
    $("stats-message").hidden = !text;
  }

  // Both parts read afresh each time the panel opens: a game's end reaches the
  // statistics moments after it (the server counts it in the background).
  async load() {
    this.dialog.dataset.loaded = "false";
    this.dialog.setAttribute("aria-busy", "true");
    this.say("");
    const player = this.session.player;
    $("stats-player").textContent = player
      ? `You play as ${player.display_name || "a player without a name"} (player ${player.id.slice(0, 8)}…), ` +
        `since ${when(player.created)}.`
      : "";
    try {
      const [statistics, games] = await Promise.all([api.statistics(), api.games()]);
      this.showStatistics(statistics);
      this.showGames(games, false);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.say(problemWords(error));
    } finally {
      this.dialog.setAttribute("aria-busy", "false");
      this.dialog.dataset.loaded = "true";
    }
  }

  showStatistics(data) {
    const rows = [...data.statistics].sort(
      (a, b) =>
        this.nameOf(a.variant).localeCompare(this.nameOf(b.variant)) ||
        Object.keys(CATEGORIES).indexOf(a.category) - Object.keys(CATEGORIES).indexOf(b.category),
    );
    const body = $("stats-table").querySelector("tbody");
    body.replaceChildren(
      ...rows.map((s) => {
        const row = document.createElement("tr");
        row.dataset.variant = s.variant;
        row.dataset.category = s.category;
        const others = [
          s.lost && `${s.lost} lost`,
          s.resigned && `${s.resigned} resigned`,
          s.abandoned && `${s.abandoned} abandoned`,
        ].filter(Boolean);
        row.append(
          cell("th", this.nameOf(s.variant), { scope: "row" }),
          cell("td", CATEGORIES[s.category] || s.category),
          cell("td", String(s.played), others.length ? { title: others.join(", ") } : {}),
          cell("td", String(s.won), { "data-field": "won" }),
          cell("td", s.win_rate == null ? "–" : `${Math.round(s.win_rate * 100)}%`),
          cell("td", String(s.clean_wins), { "data-field": "clean_wins" }),
          cell("td", String(s.current_streak)),
          cell("td", String(s.best_streak)),
          cell("td", s.best_time_seconds == null ? "–" : duration(s.best_time_seconds)),
          cell("td", s.fewest_moves == null ? "–" : String(s.fewest_moves)),
        );
        return row;
      }),
    );
    $("stats-results").hidden = rows.length === 0;
    $("stats-empty").hidden = rows.length > 0;
  }

  showGames(page, append) {
    const list = $("my-games");
    if (!append) list.replaceChildren();
    const onTable = this.current();
    for (const game of page.games) list.append(this.gameItem(game, game.id === onTable));
    this.next = page.next;
    $("games-more").hidden = !page.next;
    $("games-empty").hidden = list.childElementCount > 0;
  }

  gameItem(game, onTable) {
    const record = game.record;
    const item = document.createElement("li");
    item.dataset.game = game.id;
    item.dataset.state = record.finished ? "finished" : "playing";
    if (record.outcome) item.dataset.outcome = record.outcome;
    const name = `${this.nameOf(game.variant)}, ${dealWords(game.deal, record)}`;
    const facts = [
      `${record.moves} move${record.moves === 1 ? "" : "s"}`,
      duration(record.active_seconds),
      endingWords(record) || "in play",
      `dealt ${when(record.created)}`,
    ];
    item.append(cell("span", name, { class: "game-name" }), cell("span", facts.join(" · "), { class: "game-facts" }));
    if (onTable) {
      item.append(cell("span", "on the table", { class: "game-here" }));
    } else if (!record.finished) {
      const button = cell("button", "Resume", {
        type: "button",
        "aria-label": `Resume ${name}, dealt ${when(record.created)}`,
      });
      button.addEventListener("click", () => {
        this.close();
        this.resume(game.id);
      });
      item.append(button);
    }
    if (record.finished) {
      const button = cell("button", "Replay", {
        type: "button",
        class: "game-replay",
        "aria-label": `Replay ${name}, dealt ${when(record.created)}`,
      });
      button.addEventListener("click", () => {
        this.close();
        this.replay(game.id);
      });
      item.append(button);
    }
    return item;
  }

  async more() {
    if (!this.next) return;
    const button = $("games-more");
    button.disabled = true;
    try {
      this.showGames(await api.games(this.next), true);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.say(problemWords(error));
    } finally {
      button.disabled = false;
    }
  }

  async showCode() {
    const shown = $("link-code");
    try {
      const answer = await this.session.linkCode();
      const until = new Date(Date.now() + answer.expires_in * 1000);
      const time = until.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
      shown.replaceChildren(
        "Link code: ",
        cell("strong", answer.code, { id: "link-code-value" }),
        ` (works once, until ${time}).`,
      );
      shown.dataset.code = answer.code;
      shown.hidden = false;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      shown.textContent = problemWords(error);
      shown.hidden = false;
    }
  }

  async link(typed) {
    const code = typed.trim();
    const message = $("link-message");
    if (!code) return;
    $("link-submit").disabled = true;
    try {
      const player = await this.session.link(code);
      $("link-input").value = "";
      message.textContent =
        `This browser now plays as player ${player.id.slice(0, 8)}…: ` +
        "its games and statistics are shown here.";
      await this.load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      message.textContent = problemWords(error);
    } finally {
      $("link-submit").disabled = false;
    }
  }
}

// A modal panel that gives the focus back to what opened it when it closes.
class Dialog {
  constructor(id, closeId) {
    this.dialog = $(id);
    this.opener = null;
    $(closeId).addEventListener("click", () => this.close());
    this.dialog.addEventListener("close", () => {
      this.closed();
      this.opener?.focus();
      this.opener = null;
    });
  }

  get isOpen() {
    return this.dialog.open;
  }

  show() {
    if (this.dialog.open) return false;
    this.opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.dialog.showModal();
    return true;
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  // When the panel closes (its timers stop).
  closed() {}

  // Closing to hand over to another panel or the table: the focus is theirs to set.
  handOver() {
    this.opener = null;
    this.close();
  }
}

const READY_POLL_MS = 3000;

// Today's deals: one per game, the same for every player, its number hidden until the
// day is over. A deal not ready yet (the server proves it winnable first) is asked for
// again while the panel is open; the time left ticks each second.
export class DailyPanel extends Dialog {
  // nameOf(variant): its name; play(variant): starts today's deal of it; open(id):
  // opens a game of the player's; board(variant): the day's board of that game.
  constructor(session, { nameOf, play, open, board }) {
    super("daily", "daily-close");
    this.session = session;
    this.nameOf = nameOf;
    this.play = play;
    this.openGame = open;
    this.board = board;
    this.deadline = null;
    this.clock = null;
    this.poll = null;
  }

  async open() {
    if (!this.show()) return;
    await this.load();
  }

  closed() {
    clearInterval(this.clock);
    clearTimeout(this.poll);
    this.clock = null;
    this.poll = null;
  }

  say(text) {
    $("daily-message").textContent = text;
    $("daily-message").hidden = !text;
  }

  async load() {
    clearTimeout(this.poll);
    this.poll = null;
    this.dialog.dataset.loaded = "false";
    this.dialog.setAttribute("aria-busy", "true");
    try {
      const today = await api.daily();
      if (!this.dialog.open) return;
      this.say("");
      this.showDay(today);
      if (today.deals.some((deal) => !deal.ready)) {
        this.poll = setTimeout(() => this.load(), READY_POLL_MS);
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.say(problemWords(error));
    } finally {
      this.dialog.setAttribute("aria-busy", "false");
      this.dialog.dataset.loaded = "true";
    }
  }

  showDay(today) {
    this.dialog.dataset.day = today.day;
    this.deadline = Date.now() + today.ends_in_seconds * 1000;
    this.day = today.day;
    this.tick();
    if (!this.clock) this.clock = setInterval(() => this.tick(), 1000);
    const rows = [...today.deals].sort((a, b) =>
      this.nameOf(a.variant).localeCompare(this.nameOf(b.variant)),
    );
    $("daily-table").querySelector("tbody").replaceChildren(...rows.map((deal) => this.row(deal)));
    const past = today.yesterday.deals;
    $("daily-yesterday").textContent = past.length
      ? `${dayWords(today.yesterday.day)}: ` +
        past.map((deal) => `${this.nameOf(deal.variant)}, deal ${deal.deal}`).join("; ") +
        "."
      : `No deals were dealt on ${dayWords(today.yesterday.day)}.`;
  }

  // The time left of the day (UTC), and a new day's deals once it is over.
  tick() {
    if (this.deadline == null) return;
    const left = Math.max(0, Math.round((this.deadline - Date.now()) / 1000));
    const node = $("daily-day");
    node.dataset.left = String(left);
    node.textContent =
      `Today's deals, ${dayWords(this.day)} (UTC): ` +
      `${duration(left)} left until the next day's deals.`;
    if (left === 0 && this.dialog.open) {
      this.deadline = null;
      this.load();
    }
  }

  row(deal) {
    const name = this.nameOf(deal.variant);
    const row = document.createElement("tr");
    row.dataset.variant = deal.variant;
    row.dataset.ready = String(deal.ready);
    row.dataset.attempt = deal.attempt || "";
    row.append(cell("th", name, { scope: "row" }));
    const attempt = document.createElement("td");
    if (!deal.ready) {
      attempt.textContent = "Being prepared…";
    } else if (deal.attempt) {
      attempt.append(cell("span", "Played today: your first attempt counts. ", { class: "attempt" }));
      const open = cell("button", "Open it", {
        type: "button",
        "data-action": "open",
        "aria-label": `Open your first attempt at today's ${name}`,
      });
      open.addEventListener("click", () => {
        this.handOver();
        this.openGame(deal.attempt);
      });
      attempt.append(open);
    } else {
      attempt.textContent = "Not played yet";
    }
    const actions = document.createElement("td");
    actions.className = "actions-cell";
    const play = cell("button", deal.attempt ? "Play again (practice)" : "Play", {
      type: "button",
      "data-action": "play",
      "aria-label": `${deal.attempt ? "Play again, as practice," : "Play"} today's ${name}`,
    });
    play.disabled = !deal.ready;
    play.addEventListener("click", () => {
      this.handOver();
      this.play(deal.variant);
    });
    const board = cell("button", "Board", {
      type: "button",
      "data-action": "board",
      "aria-label": `Today's board of ${name}`,
    });
    board.addEventListener("click", () => {
      this.handOver();
      this.board(deal.variant);
    });
    actions.append(play, board);
    row.append(attempt, actions);
    return row;
  }
}

const TOP = 10;
const AROUND = 2;
const KINDS = {
  daily: { path: "daily", query: {}, score: null },
  "wins-all": { path: "wins", query: { period: "all" }, score: "Wins" },
  "wins-week": { path: "wins", query: { period: "week" }, score: "Wins this week" },
  streaks: { path: "streaks", query: {}, score: "Best streak" },
};

function ordinal(n) {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

// The boards: the top players of one, and the player's own place with those around it
// (its row marked in both). Read afresh whenever the panel opens or the board changes:
// a game's end reaches the boards moments after it.
export class BoardPanel extends Dialog {
  // variants(): [[id, name], ...]; nameOf(variant): its name.
  constructor(session, { variants, nameOf }) {
    super("board", "board-close");
    this.session = session;
    this.variants = variants;
    this.nameOf = nameOf;
    this.asked = 0;
    this.day = null; // a past day's board, when one was asked for
    const chosen = () => {
      this.day = null;
      this.load();
    };
    $("board-variant").addEventListener("change", chosen);
    $("board-kind").addEventListener("change", chosen);
    $("board-form").addEventListener("submit", (event) => event.preventDefault());
  }

  // The board of `variant` (the one shown last, else the first game), of `kind`; for
  // the daily kind, of `day` (YYYY-MM-DD; today when not given).
  async open(variant, kind, day) {
    const select = $("board-variant");
    if (select.options.length === 0) {
      for (const [id, name] of this.variants()) select.append(new Option(name, id));
    }
    if (variant) select.value = variant;
    if (kind) $("board-kind").value = kind;
    this.day = day || null;
    if (!this.show()) return;
    await this.load();
  }

  say(text) {
    $("board-message").textContent = text;
    $("board-message").hidden = !text;
  }

  async load() {
    const variant = $("board-variant").value;
    const kind = $("board-kind").value;
    const shape = KINDS[kind];
    const asked = ++this.asked;
    this.dialog.dataset.loaded = "false";
    this.dialog.dataset.variant = variant;
    this.dialog.dataset.kind = kind;
    this.dialog.setAttribute("aria-busy", "true");
    try {
      const query = { ...shape.query, top: TOP, around: AROUND };
      if (shape.path === "daily" && this.day) query.day = this.day;
      const board = await api.board(shape.path, variant, query);
      if (asked !== this.asked) return;
      this.say("");
      this.showBoard(board, shape);
    } catch (error) {
      if (asked !== this.asked) return;
      if (!(error instanceof ApiError)) throw error;
      this.say(problemWords(error));
    } finally {
      if (asked === this.asked) {
        this.dialog.setAttribute("aria-busy", "false");
        this.dialog.dataset.loaded = "true";
      }
    }
  }

  showBoard(board, shape) {
    const mine = this.session.available ? this.session.player?.id : null;
    const me = board.me;
    const onTop = Boolean(me && board.top.some((r) => r.player === me.player));
    this.fill($("board-top"), board.top, shape, mine);
    this.fill($("board-around"), me && !onTop ? board.around : [], shape, mine);
    $("board-around-section").hidden = !me || onTop;
    $("board-empty").hidden = board.top.length > 0;
    $("board-top").hidden = board.top.length === 0;
    $("board-top-title").textContent = `Top ${TOP}`;
    const day = shape.path === "daily" ? board.board.split(":").pop() : null;
    const what =
      (day ? `${this.nameOf($("board-variant").value)}, the board of ${dayWords(day)} (UTC). ` : "") +
      `${board.size} player${board.size === 1 ? "" : "s"} on this board.`;
    $("board-summary").textContent = me
      ? `${what} You are ${ordinal(me.rank)}.`
      : `${what} You are not on it yet.`;
    $("board-summary").dataset.rank = me ? String(me.rank) : "";
  }

  fill(table, rows, shape, mine) {
    const head = document.createElement("tr");
    const columns = shape.score ? ["Rank", "Player", shape.score] : ["Rank", "Player", "Result", "Moves", "Time"];
    head.append(...columns.map((name) => cell("th", name, { scope: "col" })));
    table.querySelector("thead").replaceChildren(head);
    table.querySelector("tbody").replaceChildren(
      ...rows.map((r) => {
        const row = document.createElement("tr");
        row.dataset.player = r.player;
        row.dataset.rank = String(r.rank);
        const own = r.player === mine;
        if (own) {
          row.classList.add("me");
          row.setAttribute("aria-current", "true");
        }
        const name = r.display_name || `Player ${r.player.slice(0, 8)}`;
        row.append(
          cell("td", String(r.rank)),
          cell("th", own ? `${name} (you)` : name, { scope: "row" }),
        );
        if (shape.score) {
          row.append(cell("td", String(r.score)));
        } else {
          const result = r.won ? (r.clean ? "Clean win" : "Won") : "Not won";
          row.dataset.won = String(r.won);
          // a game not won is ranked below the wins, its moves and time not told
          row.append(
            cell("td", result),
            cell("td", r.moves == null ? "–" : String(r.moves)),
            cell("td", r.active_seconds == null ? "–" : duration(r.active_seconds)),
          );
        }
        return row;
      }),
    );
  }
}
