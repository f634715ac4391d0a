// The reference web client: deal a game, play it by clicks, drags or the keyboard, and
// keep every tab that shows the same game in step through its event stream. The games
// it deals are this browser's player's (session.js), with their record (moves, time,
// outcome) shown as they are played and counted in the player's statistics (panel.js).
// Today's deals and the boards have panels of their own (panel.js); a game replays
// position by position, read-only; and a share link opens a game to spectators, who
// watch it live and can change nothing.

import { ApiError, addressOf, api, gameFromAddress, useSession } from "./api.js";
import { GameStream } from "./stream.js";
import { Table, cardWords, pileShortWords } from "./table.js";
import { Pointer } from "./pointer.js";
import { Session } from "./session.js";
import {
  BoardPanel,
  DailyPanel,
  StatsPanel,
  dayWords,
  dealWords,
  duration,
  endingWords,
} from "./panel.js";

const $ = (id) => document.getElementById(id);

const MESSAGES = {
  "nothing-to-undo": "There is nothing to undo: the game is at its deal.",
  "nothing-to-redo": "There is nothing to redo.",
  "nothing-to-restart": "The game stands at its deal already.",
  "game-over": "This game is over (resigned or abandoned): it takes no more changes.",
  "already-claimed": "This game belongs to a player already.",
  "unknown-game": "This game no longer exists: it was deleted, or it expired. Start a new one.",
  "storage-unavailable": "The server cannot reach its storage just now; try again in a moment.",
  "engine-unavailable": "The rules engine cannot be reached just now; try again in a moment.",
  "records-unavailable": "The server cannot reach its records just now; try again in a moment.",
  "no-winnable-deal": "Today's deal of that game is still being prepared; try again in a moment.",
  "invalid-position": "That position is no longer in the game's history.",
  "too-many-requests": "Too many requests of this kind just now; try again in a few minutes.",
  network: "The server cannot be reached; check the connection and try again.",
};

// A game ended by its player or by time takes no more changes.
const GIVEN_UP = new Set(["resigned", "proven-lost", "abandoned"]);
// The server counts each gap between changes up to this long.
const GAP_CAP_MS = 300_000;

export function parseMove(notation) {
  if (notation === "deal" || notation === "redeal") return { kind: notation, notation };
  if (notation.startsWith("withdraw")) {
    return { kind: "withdraw", columns: notation.split(/\s+/).slice(1), notation };
  }
  const match = /^([a-z]+\d*)-([a-z]+\d*)(?:\/(\d+))?$/.exec(notation);
  if (!match) return { kind: "other", notation };
  return {
    kind: "transfer",
    source: match[1],
    target: match[2],
    count: match[3] ? Number(match[3]) : 1,
    notation,
  };
}


// What a hint's move is worth, in a player's words (docs/api.md, "Hints"). Where cards
// are hidden the solver tries guesses at them, never the real ones.
function hintWorth(hint) {
  const tried = hint.every_arrangement
    ? `all ${hint.arrangements} ways the hidden cards can lie`
    : `${hint.arrangements} guesses at the hidden cards`;
  switch (hint.kind) {
    case "winning":
      return "it leads to a win: keep following the hints";
    case "wins_all":
      return hint.every_arrangement
        ? "a win starts with it however the hidden cards lie"
        : `it wins in all ${tried}: a strong move, not a promise`;
    case "wins_most":
      return `it wins in ${hint.winning_arrangements} of ${tried}`;
    case "wins_some":
      return `it wins in ${hint.winning_arrangements} of ${tried}`;
    case "no_win_found":
      return `no win found in ${tried}, but the game may still be won: a try`;
    default: // best_effort
      return "no win found in the time allowed: the most promising move";
  }
}

class Client {
  constructor() {
    this.descriptions = new Map();
    this.names = new Map(); // variant id -> name
    this.session = new Session();
    this.game = null; // {id, token}: token null for a player's game
    this.view = null;
    this.anchor = 0; // when (on this clock) the game's last change was
    this.clock = null;
    this.table = null;
    this.moves = [];
    this.selection = null; // {pile, count}
    this.redoable = 0;
    // At the deal, whether a change can still be undone (a restart, and what it cleared)
    this.undoableAtDeal = false;
    this.busy = false;
    this.stream = null;
    // Replay mode: {position, length, view (the table then), live (the game is on the
    // table underneath), asked, target}; null while the table shows the game as it is.
    this.replaying = null;
  }

  async start() {
    useSession(this.session);
    const [variants] = await Promise.all([api.variants(), this.session.start()]);
    const select = $("variant");
    for (const variant of variants) {
      const option = document.createElement("option");
      option.value = variant.id;
      option.textContent = variant.name;
      select.append(option);
      this.names.set(variant.id, variant.name);
    }
    select.value = "la-belle-lucie";
    $("new-game").addEventListener("submit", (event) => {
      event.preventDefault();
      this.newGame($("variant").value, $("deal").value.trim());
    });
    $("undo").addEventListener("click", () => this.historyStep("undo"));
    $("outcome-undo").addEventListener("click", () => this.historyStep("undo"));
    $("redo").addEventListener("click", () => this.historyStep("redo"));
    $("deal-card").addEventListener("click", () => this.play("deal"));
    $("redeal").addEventListener("click", () => this.play("redeal"));
    $("hint").addEventListener("click", () => this.hint());
    $("autoplay").addEventListener("click", () => this.autoplay());
    $("autoplay-each").addEventListener("change", (event) => this.autoplayEach(event.target.checked));
    $("restart").addEventListener("click", () => this.restart());
    $("outcome-restart").addEventListener("click", () => this.restart());
    $("resign").addEventListener("click", () => this.resign());
    $("new-random").addEventListener("click", () => this.newRandom());
    $("outcome-new").addEventListener("click", () => this.newRandom());
    $("claim").addEventListener("click", () => this.claim());
    const confirm = $("resign-confirm");
    $("resign-yes").addEventListener("click", () => confirm.close("yes"));
    $("resign-no").addEventListener("click", () => confirm.close("no"));
    $("replay-open").addEventListener("click", () => this.startReplay());
    $("outcome-replay").addEventListener("click", () => this.startReplay());
    $("replay-first").addEventListener("click", () => this.replayTo(0));
    $("replay-back").addEventListener("click", () => this.replayBy(-1));
    $("replay-forward").addEventListener("click", () => this.replayBy(1));
    $("replay-last").addEventListener("click", () => this.replayTo(Infinity));
    $("replay-leave").addEventListener("click", () => this.leaveReplay());
    $("share-open").addEventListener("click", () => this.share());
    $("share-copy").addEventListener("click", () => this.copyShare());
    $("share-close").addEventListener("click", () => $("share").close());
    $("share").addEventListener("close", () => $("share-open").focus());
    const nameOf = (variant) => this.names.get(variant) || variant;
    this.panel = new StatsPanel(this.session, {
      nameOf,
      current: () => this.game?.id,
      resume: (id) => this.open({ id, token: null }),
      replay: (id) => this.replayGame(id),
    });
    this.boards = new BoardPanel(this.session, { variants: () => [...this.names], nameOf });
    this.daily = new DailyPanel(this.session, {
      nameOf,
      play: (variant) => this.playDaily(variant),
      open: (id) => this.replayGame(id, false),
      board: (variant) => this.boards.open(variant, "daily"),
    });
    $("stats-open").addEventListener("click", () => this.panel.open());
    $("daily-open").addEventListener("click", () => this.daily.open());
    $("board-open").addEventListener("click", () =>
      this.boards.open(this.view?.variant || this.replaying?.view.variant || $("variant").value),
    );
    $("outcome-board").addEventListener("click", () => {
      const record = this.view?.record;
      if (this.view && record?.daily) this.boards.open(this.view.variant, "daily", record.daily);
    });
    this.session.onChange(() => this.playerChanged());
    this.refreshPlayer();
    document.addEventListener("keydown", (event) => this.onKey(event));
    document.addEventListener("visibilitychange", () => this.tick());
    window.addEventListener("hashchange", () => this.openFromAddress());
    window.addEventListener("resize", () => this.table?.fit());
    // what stands above the table changed height (a button more, a replay's bar): the
    // table fits the height left
    const above = new ResizeObserver(() => this.table?.fit());
    for (const node of document.querySelectorAll(".bar, .info, #replay, #spectating, #outcome")) {
      above.observe(node);
    }
    $("help-open").addEventListener("click", () => this.openHelp());
    $("help-close").addEventListener("click", () => $("help").close());
    $("help").addEventListener("close", () => {
      this.helpOpener?.focus();
      this.helpOpener = null;
    });
    this.pointer = new Pointer($("table"), {
      press: (pile) => this.pressPile(pile),
      pick: (pile, index) => this.pick(pile, index),
      drop: (pile) => this.dropOn(pile),
      send: (pile, index) => this.sendHome(pile, index),
      cancel: () => this.deselect(),
      dragging: () => this.selection,
    });
    await this.openFromAddress();
    document.body.dataset.ready = "true";
  }

  // ---------------------------------------------------------------- games

  async openFromAddress() {
    const game = gameFromAddress(location.hash);
    if (!game || (this.game && game.id === this.game.id && game.token === this.game.token)) {
      return;
    }
    await this.open(game);
  }

  // A game named by its address (or picked from the player's games); with a share token,
  // to watch.
  async open(game) {
    if (!game.token && !this.session.available) {
      this.say(
        "This address names a player's game, which only its player opens; this browser " +
          "has no player just now (the server keeps none).",
      );
      return;
    }
    history.replaceState(null, "", addressOf(game));
    await this.run(async () => {
      const view = await api.view(game);
      await this.enter(game, view);
    });
  }

  // The player's game where the server keeps players; else (503 records-unavailable)
  // an anonymous one, with its token in the address.
  async newGame(variant, deal) {
    if (deal !== "" && !/^\d{1,21}$/.test(deal)) {
      this.say("The deal number must be a whole number from 0 to 10^20, or empty.");
      return;
    }
    await this.run(async () => {
      let created = null;
      if (this.session.available) {
        try {
          created = await api.create(variant, deal, true);
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== "records-unavailable") throw error;
          this.session.available = false;
          this.refreshPlayer();
        }
      }
      if (!created) created = await api.create(variant, deal, false);
      const game = { id: created.id, token: created.token };
      history.replaceState(null, "", addressOf(game));
      await this.enter(game, created);
    });
  }

  // Today's deal of `variant`: a player's game, played like any other; the first attempt
  // of the day counts on the day's board.
  async playDaily(variant) {
    if (this.busy) return;
    await this.run(async () => {
      const created = await api.startDaily(variant);
      const game = { id: created.id, token: null };
      history.replaceState(null, "", addressOf(game));
      $("deal").value = "";
      await this.enter(game, created);
    });
    if (this.view) this.focusTable();
  }

  // The room the game's outcome takes over the bottom of the window, while it shows.
  outcomeHeight() {
    const outcome = $("outcome");
    if (outcome.hidden || getComputedStyle(outcome).display === "none") return 0;
    const box = outcome.getBoundingClientRect();
    return Math.max(0, window.innerHeight - box.top);
  }

  focusTable() {
    const first = document.querySelector("#table .pile");
    if (first) first.focus();
  }

  showRules(description) {
    $("rules").hidden = false;
    $("rules-title").textContent = `Rules of ${description.name}`;
    $("rules-text").textContent = description.summary;
  }

  // The help: the game's rules, how to play, and every key.
  openHelp() {
    const dialog = $("help");
    if (dialog.open) return;
    this.helpOpener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    $("help-close").focus();
  }

  // Said to a screen reader (a polite live region): what was picked up, where it may
  // go, what moved.
  announce(words) {
    const node = $("announce");
    // the same words twice are said twice
    node.textContent = node.textContent === words ? `${words}\u00a0` : words;
  }

  pileName(id) {
    return pileShortWords(this.table?.description.piles.find((p) => p.id === id)) || id;
  }

  async newRandom() {
    if (this.busy) return;
    const variant = this.view?.variant || $("variant").value;
    $("variant").value = variant;
    $("deal").value = "";
    await this.newGame(variant, "");
  }

  // This browser's player changed (linked to another, or a new one made when the old
  // one's session was refused): a player's game of the one before is not this one's.
  playerChanged() {
    this.refreshPlayer();
    const owner = this.view?.record?.player;
    if (!this.game || this.game.token || !owner || owner === this.session.player?.id) return;
    this.clearTable(
      "This browser plays as another player now: pick a game and press New game, or " +
        "resume one of the player's games from Statistics.",
    );
  }

  // No game on the table: `words` say why, and what to do.
  clearTable(words) {
    this.stream?.close();
    this.stream = null;
    this.game = null;
    this.view = null;
    this.table = null;
    this.replaying = null;
    $("replay").hidden = true;
    history.replaceState(null, "", location.pathname + location.search);
    const welcome = document.createElement("p");
    welcome.className = "welcome";
    welcome.textContent = words;
    $("table").replaceChildren(welcome);
    $("table").dataset.version = "0";
    delete $("table").dataset.variant;
    delete $("table").dataset.replay;
    $("rules").hidden = true;
    $("record").hidden = true;
    $("outcome").hidden = true;
    $("outlook").hidden = true;
    $("status").textContent = "";
    clearInterval(this.clock);
    this.clock = null;
    this.refreshMode();
    this.refreshButtons();
  }

  refreshPlayer() {
    const player = this.session.available ? this.session.player : null;
    for (const id of ["stats-open", "daily-open", "board-open"]) $(id).hidden = !player;
    document.body.dataset.player = player ? player.id : "";
    if (!player) {
      this.panel?.close();
      this.daily?.close();
      this.boards?.close();
    }
  }

  async describe(variant) {
    let description = this.descriptions.get(variant);
    if (!description) {
      description = await api.variant(variant);
      this.descriptions.set(variant, description);
    }
    return description;
  }

  async enter(game, view) {
    const description = await this.describe(view.variant);
    this.stream?.close();
    this.game = game;
    this.view = null;
    this.redoable = 0;
    this.undoableAtDeal = false;
    this.selection = null;
    this.replaying = null;
    $("replay").hidden = true;
    delete $("table").dataset.replay;
    this.refreshMode();
    this.table = new Table($("table"), description, { below: () => this.outcomeHeight() });
    $("variant").value = view.variant;
    this.showRules(description);
    document.title = `${description.name} · Patience`;
    this.show(view, []);
    await this.learnRedoable();
    this.stream = new GameStream(game, {
      change: (kind, data) => this.apply(kind, data),
      gone: (why) => this.onGone(why),
    });
  }

  async learnRedoable() {
    const game = this.game;
    const history = await api.history(game);
    if (game !== this.game) return;
    this.redoable = history.moves.length - history.position;
    this.undoableAtDeal = history.position > 0;
    this.refreshButtons();
  }

  // ---------------------------------------------------------------- showing

  // A change reaches this tab twice when it made it (its answer, and the stream) and
  // once when another did; only a newer version is shown, and counted once.
  apply(kind, view) {
    if (!this.view || view.id !== this.view.id || view.version <= this.view.version) return;
    if (kind === "move" || kind === "autoplay" || kind === "restart") this.redoable = 0;
    if (kind === "undo") this.redoable += 1;
    if (kind === "redo") this.redoable -= 1;
    // At the deal, a restart can be undone; otherwise the history says (below).
    const atDeal = view.counters.position === 0 && kind !== "settings";
    if (atDeal) this.undoableAtDeal = kind === "restart";
    // kept in another tab of this browser: its player's access token opens it now (a
    // spectator's share token stays: watching reads only)
    if (
      this.game.token &&
      !this.game.shared &&
      view.record?.player &&
      view.record.player === this.session.player?.id
    ) {
      this.game.token = null;
      history.replaceState(null, "", addressOf(this.game));
    }
    const wasPlaying = this.view.status === "playing";
    this.show(view, view.events || []);
    this.announceChange(kind, view);
    if (wasPlaying && view.status === "won" && !this.replaying) this.celebrate();
    if (kind === "view" || (atDeal && kind !== "restart")) {
      this.learnRedoable().catch(() => {});
    }
  }

  // A change in words, for a screen reader: the cards that moved and where.
  announceChange(kind, view) {
    const events = view.events || [];
    const moved = events.map(
      (e) => `${cardWords(e.card)} from ${this.pileName(e.source)} to ${this.pileName(e.target)}`,
    );
    const lead = {
      move: "Moved",
      autoplay: "Autoplay moved",
      undo: "Undone",
      redo: "Redone",
      restart: "Restarted: the deal again",
    }[kind];
    if (!lead) return;
    let words = lead;
    if (moved.length && kind !== "restart") {
      const listed = moved.length > 4 ? `${moved.slice(0, 4).join("; ")}; and ${moved.length - 4} more` : moved.join("; ");
      words += kind === "move" || kind === "autoplay" ? ` ${listed}` : `: ${listed}`;
    } else if (kind === "move" && view.last_move) {
      words += `: ${view.last_move}`;
    }
    if (view.status === "won") words += ". Won!";
    else if (view.status === "stuck") words += ". Stuck: no move is left.";
    this.announce(`${words}.`.replace(/[.!:]\.$/, (end) => end[0]));
  }

  // The game just won: the suits rain over the table for a moment (where the browser
  // does not ask for reduced motion; there the outcome's card says it alone).
  celebrate() {
    const table = $("table");
    table.querySelector(".celebration")?.remove();
    if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
      document.body.dataset.celebration = "still";
      return;
    }
    const layer = document.createElement("div");
    layer.className = "celebration";
    layer.setAttribute("aria-hidden", "true");
    const fall = Math.max(table.getBoundingClientRect().height, window.innerHeight / 2) + 80;
    const suits = ["♥", "♣", "♦", "♠"];
    const animations = [];
    for (let i = 0; i < 40; i++) {
      const span = document.createElement("span");
      span.textContent = suits[i % 4];
      span.className = i % 2 ? "black" : "red";
      span.style.left = `${(i * 37 + 5) % 100}%`;
      layer.append(span);
      const turn = (i % 2 ? 1 : -1) * (180 + ((i * 53) % 360));
      animations.push(
        span.animate(
          [
            { transform: "translateY(0) rotate(0deg)", opacity: 1 },
            { transform: `translateY(${fall}px) rotate(${turn}deg)`, opacity: 0.9 },
          ],
          { duration: 1600 + (i % 7) * 160, delay: (i % 13) * 80, easing: "ease-in", fill: "backwards" },
        ),
      );
    }
    table.append(layer);
    document.body.dataset.celebration = "shown";
    Promise.all(animations.map((a) => a.finished))
      .catch(() => {})
      .then(() => {
        layer.remove();
        if (document.body.dataset.celebration === "shown") document.body.dataset.celebration = "done";
      });
  }

  givenUp() {
    return Boolean(this.view && GIVEN_UP.has(this.view.record?.outcome));
  }

  // A spectator's tab (opened with a share token) reads the game and changes nothing.
  spectating() {
    return Boolean(this.game?.shared);
  }

  // Nothing on the table can be picked up or played: a spectator's, or a replay.
  readOnly() {
    return this.spectating() || Boolean(this.replaying);
  }

  // A game whose record has closed (won, resigned, abandoned).
  finished() {
    const view = this.view;
    return Boolean(view && (view.record ? view.record.finished : view.status === "won"));
  }

  refreshMode() {
    document.body.dataset.mode = this.replaying ? "replay" : this.spectating() ? "watch" : "play";
    $("spectating").hidden = !this.spectating();
  }

  show(view, events) {
    const before = this.view;
    this.view = view;
    this.moves = this.givenUp() ? [] : view.legal_moves.map(parseMove);
    this.selection = null;
    if (!this.replaying) {
      // while a replay is shown, the game's changes are kept for when it is left
      this.table.show(view, events);
      this.table.clearMarks();
    }
    $("table").dataset.version = String(view.version);
    $("table").dataset.status = view.status;
    delete $("table").dataset.hint;
    this.noteChange(before, view);
    this.refreshButtons();
    this.refreshStatus();
    this.refreshRecord();
  }

  // The record's time goes on from the game's last change: a change seen here just
  // happened; a game just opened changed when its record says (on the server's clock,
  // which may run a little ahead of this one).
  noteChange(before, view) {
    const record = view.record;
    if (!record) return;
    const last = Date.parse(record.last_change);
    if (!before || before.id !== view.id || !before.record) {
      this.anchor = Math.min(Number.isNaN(last) ? Date.now() : last, Date.now());
    } else if (before.record.last_change !== record.last_change) {
      this.anchor = Date.now();
    }
  }

  // The record's active time as it stands: the server's count up to the last change,
  // and the time since (while the game is open), capped as the server caps each gap.
  activeSeconds() {
    const record = (this.view || this.replaying?.view)?.record;
    if (!record) return 0;
    if (record.finished) return record.active_seconds;
    const gap = Math.min(Math.max(Date.now() - this.anchor, 0), GAP_CAP_MS);
    return record.active_seconds + gap / 1000;
  }

  refreshRecord() {
    const node = $("record");
    // a replay of a game no longer kept in play: the record it closed with
    const record = (this.view || this.replaying?.view)?.record;
    node.hidden = !record;
    if (!record) return;
    const daily = $("record-daily");
    daily.hidden = !record.daily;
    node.dataset.daily = record.daily || "";
    daily.dataset.day = record.daily || "";
    if (record.daily) {
      daily.textContent =
        `Daily deal of ${dayWords(record.daily)}` +
        (record.category === "daily" ? "" : " (practice: not the first attempt)");
    }
    node.dataset.moves = String(record.moves);
    node.dataset.outcome = record.outcome || "";
    node.dataset.clean = record.clean == null ? "" : String(record.clean);
    $("record-moves").textContent = String(record.moves);
    const words = endingWords(record);
    $("record-outcome").textContent = words ? words[0].toUpperCase() + words.slice(1) : "";
    this.tick();
  }

  // The time shown ticks each second while the page is seen and the game is open.
  tick() {
    const seconds = this.activeSeconds();
    $("record-time").textContent = duration(seconds);
    $("record").dataset.seconds = String(Math.floor(seconds));
    const open = Boolean(this.view?.record && !this.view.record.finished);
    const ticking = open && document.visibilityState === "visible";
    if (ticking && !this.clock) this.clock = setInterval(() => this.tick(), 1000);
    if (!ticking && this.clock) {
      clearInterval(this.clock);
      this.clock = null;
    }
  }

  refreshStatus() {
    if (this.replaying) {
      this.refreshReplayStatus();
      return;
    }
    const view = this.view;
    if (!view) return;
    const c = view.counters;
    const name = this.descriptions.get(view.variant)?.name || view.variant;
    const parts = [
      `${name}, ${dealWords(view.deal, view.record)}`,
      `at move ${c.position}`,
      `${c.foundation_cards}/${c.total_cards} on the foundations`,
    ];
    if (c.redeals_left) parts.push(`${c.redeals_left} redeal${c.redeals_left === 1 ? "" : "s"} left`);
    if (view.piles.some((p) => p.kind === "stock")) parts.push(`${c.stock_size} in the stock`);
    $("status").textContent = parts.join(" · ");
    // cycling: only moves that go round in circles are left; lost: a hint proved it
    const hopeless = view.status === "playing" && (view.outlook === "cycling" || view.outlook === "lost");
    $("outlook").hidden = !hopeless;
    $("outlook").dataset.outlook = view.outlook;
    $("outlook").textContent = !hopeless
      ? ""
      : view.outlook === "cycling"
        ? "This game can no longer be won: the moves left only go round in circles. Undo, or start a new game."
        : "This game can no longer be won: no line of moves wins from here. Undo, or start a new game.";
    const record = view.record;
    const given = this.givenUp();
    const outcome = $("outcome");
    outcome.hidden = view.status === "playing" && !given;
    outcome.dataset.status = given ? record.outcome : view.status;
    $("outcome-undo").hidden = given;
    $("outcome-restart").hidden = given;
    let text = "";
    if (given) {
      text = {
        resigned: "Resigned: this game is over.",
        "proven-lost": "Resigned: no line of moves could have won this game.",
        abandoned: "Abandoned: this game was left without a change for too long.",
      }[record.outcome];
    } else if (view.status === "won") {
      text = `Won! All ${c.total_cards} cards are on the foundations.`;
      if (record?.outcome === "won" && record.clean) text += " A clean win: no undo, redo, restart or hint.";
      else if (record?.outcome === "won") text += " Not a clean win (undo, redo, restart or a hint was used).";
    } else if (view.status === "stuck") {
      text = "Stuck: no move is left. Undo, restart, or start a new game.";
    }
    $("outcome-text").textContent = text;
  }

  refreshButtons() {
    this.refreshMoveButtons();
    const view = this.view;
    const finished = this.finished();
    const watching = this.spectating();
    // the owner replays a game in play too; a spectator, a game that is over
    $("replay-open").disabled = !view || Boolean(this.replaying) || (watching && !finished);
    $("share-open").disabled = !view || watching;
    $("outcome-replay").hidden = !finished;
    $("outcome-replay").disabled = $("replay-open").disabled;
    $("outcome-board").hidden = !(finished && view.record?.daily && this.session.available);
    if (!this.readOnly()) return;
    // nothing to play: every control that changes the game is off (and a spectator's
    // are not shown at all)
    const controls = ["undo", "redo", "outcome-undo", "outcome-restart", "hint", "autoplay"];
    for (const id of [...controls, "autoplay-each", "restart", "resign"]) $(id).disabled = true;
    for (const id of ["deal-card", "redeal", "claim"]) $(id).hidden = true;
    $("withdrawals").replaceChildren();
  }

  refreshMoveButtons() {
    const view = this.view;
    const given = this.givenUp();
    const has = (kind) => this.moves.some((m) => m.kind === kind);
    const undoable = Boolean(view) && (view.counters.position > 0 || this.undoableAtDeal);
    $("undo").disabled = !view || given || !undoable;
    $("outcome-undo").disabled = $("undo").disabled;
    $("redo").disabled = !view || given || this.redoable <= 0;
    $("restart").disabled = !view || given || view.counters.position === 0;
    $("outcome-restart").disabled = $("restart").disabled;
    const playing = Boolean(view) && view.status === "playing" && !given;
    $("hint").disabled = !playing;
    $("autoplay").disabled = !playing;
    $("resign").disabled = !playing || Boolean(view.record?.finished);
    $("autoplay-each").disabled = !view || given;
    $("autoplay-each").checked = Boolean(view && view.autoplay);
    $("claim").hidden = !(
      view &&
      this.game?.token &&
      !this.game.shared &&
      this.session.available &&
      view.record &&
      !view.record.player &&
      !view.record.finished
    );
    $("deal-card").hidden = !has("deal");
    $("redeal").hidden = !has("redeal");
    const withdrawals = $("withdrawals");
    withdrawals.replaceChildren();
    for (const move of this.moves.filter((m) => m.kind === "withdraw")) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "withdraw";
      const cards = move.columns.map((id) => {
        const pile = view.piles.find((p) => p.id === id);
        return pile && pile.cards.length > 5 ? `${cardWords(pile.cards[5])} from ${id}` : id;
      });
      button.textContent = `Withdraw ${cards.join(" and ")}`;
      button.dataset.move = move.notation;
      button.addEventListener("click", () => this.play(move.notation));
      withdrawals.append(button);
    }
  }

  say(text) {
    const message = $("message");
    message.textContent = text;
    message.hidden = !text;
  }

  // ---------------------------------------------------------------- choosing a move

  transfersFrom(pile, count) {
    return this.moves.filter(
      (m) => m.kind === "transfer" && m.source === pile && (count == null || m.count === count),
    );
  }

  // The cards a press on card `index` of `pile` takes: in a column the run from that
  // card to the top, in any other pile the top card.
  pick(pile, index) {
    if (!this.view || this.busy || this.givenUp() || this.readOnly()) return;
    const node = this.table.pile(pile);
    const size = Number(node.dataset.size || 0);
    const description = this.table.description.piles.find((p) => p.id === pile);
    if (description.kind === "stock") {
      if (this.moves.some((m) => m.kind === "deal")) this.play("deal");
      return;
    }
    if (size === 0) return;
    const count = description.layout === "column" && index != null ? size - index : 1;
    this.select(pile, Math.max(1, count));
  }

  select(pile, count) {
    this.selection = { pile, count };
    const targets = this.transfersFrom(pile, count).map((m) => m.target);
    this.table.mark(pile, count, targets);
    this.say("");
    const cards = this.view.piles.find((p) => p.id === pile)?.cards || [];
    const picked = cards.slice(-count).map(cardWords);
    const what = picked.length > 1 ? `${picked.length} cards, ${picked[0]} to ${picked[picked.length - 1]}` : picked[0];
    const they = picked.length > 1 ? "they" : "it";
    const where = targets.length
      ? `${they} may go to ${targets.map((t) => this.pileName(t)).join(", ")}`
      : `${they} may go nowhere now`;
    this.announce(`Picked up ${what || "nothing"} from ${this.pileName(pile)}: ${where}.`);
  }

  deselect(words = false) {
    const had = this.selection;
    this.selection = null;
    this.table?.clearMarks();
    if (had && words) this.announce("Let go.");
  }

  // A press on a pile while cards are picked up: put them there (the engine says
  // whether that is allowed); on the same pile, let go.
  async dropOn(pile) {
    const chosen = this.selection;
    if (!chosen) return false;
    if (chosen.pile === pile) {
      this.deselect();
      return true;
    }
    this.deselect();
    const notation = `${chosen.pile}-${pile}${chosen.count > 1 ? `/${chosen.count}` : ""}`;
    await this.play(notation);
    return true;
  }

  // Double-click or F: the top card to a foundation, if it may go to one.
  async sendHome(pile) {
    if (!this.view || this.readOnly()) return;
    const home = this.transfersFrom(pile, 1).find((m) => m.target.startsWith("f"));
    if (home) await this.play(home.notation);
    else this.say("That card cannot go to a foundation now.");
  }

  onKey(event) {
    if (document.querySelector("dialog[open]")) return; // a dialog's keys are its own
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.replaying) {
      this.onReplayKey(event);
      return;
    }
    const pileNode = event.target.closest && event.target.closest(".pile");
    const key = event.key;
    if (pileNode && (key === "Enter" || key === " ")) {
      event.preventDefault();
      this.pressPile(pileNode.dataset.pile);
    } else if (key === "Escape") {
      this.deselect(true);
    } else if (pileNode && (key === "ArrowRight" || key === "ArrowDown")) {
      event.preventDefault();
      this.focusNeighbour(pileNode, 1);
    } else if (pileNode && (key === "ArrowLeft" || key === "ArrowUp")) {
      event.preventDefault();
      this.focusNeighbour(pileNode, -1);
    } else if (pileNode && key.toLowerCase() === "f") {
      this.sendHome(pileNode.dataset.pile);
    } else if (key === "?") {
      event.preventDefault();
      this.openHelp();
    } else if (key.toLowerCase() === "t" && this.table) {
      event.preventDefault();
      this.focusTable();
    } else if (key.toLowerCase() === "u") {
      this.historyStep("undo");
    } else if (key === "R" && event.shiftKey) {
      this.restart();
    } else if (key.toLowerCase() === "r") {
      this.historyStep("redo");
    } else if (key.toLowerCase() === "h") {
      this.hint();
    } else if (key.toLowerCase() === "a") {
      this.autoplay();
    } else if (key.toLowerCase() === "d" && this.moves.some((m) => m.kind === "deal")) {
      this.play("deal");
    } else if (key.toLowerCase() === "n") {
      this.newRandom();
    } else if (key.toLowerCase() === "s" && !$("stats-open").hidden) {
      event.preventDefault();
      this.panel.open();
    }
  }

  // Enter on a pile: pick up its top card; Enter again on it: the next larger number
  // of cards that may move from it, then let go; Enter on another pile: put them there.
  pressPile(pile) {
    if (!this.view || this.givenUp() || this.readOnly()) return;
    const chosen = this.selection;
    if (chosen && chosen.pile !== pile) {
      this.dropOn(pile);
      return;
    }
    const description = this.table.description.piles.find((p) => p.id === pile);
    if (description.kind === "stock") {
      this.pick(pile, null);
      return;
    }
    const counts = [...new Set(this.transfersFrom(pile).map((m) => m.count))].sort((a, b) => a - b);
    if (!chosen) {
      if (Number(this.table.pile(pile).dataset.size || 0) > 0) this.select(pile, counts[0] || 1);
      return;
    }
    const larger = counts.find((count) => count > chosen.count);
    if (larger) this.select(pile, larger);
    else this.deselect();
  }

  focusNeighbour(node, step) {
    const piles = [...document.querySelectorAll("#table .pile")];
    const next = piles[piles.indexOf(node) + step];
    if (next) next.focus();
  }

  // ---------------------------------------------------------------- changing the game

  async play(notation) {
    if (!this.view || this.busy || this.givenUp() || this.readOnly()) return;
    const focused = document.activeElement?.dataset?.pile;
    await this.run(async () => {
      this.apply("move", await api.move(this.game, notation, this.view.version));
    });
    if (focused) this.table?.pile(focused)?.focus();
  }

  // The solver's move, marked on the table (its source and target) and said in words.
  async hint() {
    if (!this.view || this.busy || $("hint").disabled) return;
    let words = "";
    await this.run(async () => {
      const hint = await api.hint(this.game);
      if (!this.view || hint.version !== this.view.version) return;
      if (hint.kind === "lost") {
        const fresh = await api.view(this.game); // its outlook now says so
        if (fresh.version >= this.view.version) this.show(fresh, []);
        words = "No line of moves wins from here.";
        return;
      }
      if (hint.kind === "none") {
        words = "The game is over: there is nothing to hint.";
        return;
      }
      const move = hint.move;
      $("table").dataset.hint = move.notation;
      if (move.kind === "transfer") this.table.mark(move.source, move.count, [move.target]);
      const what = move.kind === "transfer" ? `${move.source} to ${move.target}` : move.notation;
      words = `Hint: ${what} (${hintWorth(hint)}).`;
    });
    if (words) this.say(words);
  }

  async autoplay() {
    if (!this.view || this.busy || $("autoplay").disabled) return;
    let words = "";
    await this.run(async () => {
      const played = await api.autoplay(this.game, this.view.version);
      if (played.moves.length === 0) words = "No card can safely go to a foundation now.";
      else this.apply("autoplay", played);
    });
    if (words) this.say(words);
  }

  async autoplayEach(on) {
    if (!this.view || this.busy || this.readOnly()) return;
    await this.run(async () => {
      this.apply("settings", await api.settings(this.game, { autoplay: on }, this.view.version));
    });
    $("autoplay-each").checked = Boolean(this.view && this.view.autoplay);
  }

  async historyStep(step) {
    if (!this.view || this.busy || $(step).disabled) return;
    await this.run(async () => {
      this.apply(step, await api[step](this.game, this.view.version));
    });
  }

  // Back to the deal, as one change (Undo takes it back).
  async restart() {
    if (!this.view || this.busy || $("restart").disabled) return;
    await this.run(async () => {
      this.apply("restart", await api.restart(this.game, this.view.version));
    });
  }

  async resign() {
    if (!this.view || this.busy || $("resign").disabled) return;
    const dialog = $("resign-confirm");
    $("resign-text").textContent = this.game.token
      ? "It ends as lost and takes no more moves."
      : "It ends as lost (in your statistics too) and takes no more moves.";
    dialog.returnValue = "";
    dialog.showModal();
    await new Promise((resolve) => dialog.addEventListener("close", resolve, { once: true }));
    if (dialog.returnValue !== "yes" || !this.view) {
      $("resign").focus();
      return;
    }
    await this.run(async () => {
      this.apply("resign", await api.resign(this.game, this.view.version));
    });
    $("outcome-new").focus();
  }

  // An anonymous game (opened from an address with its token) made the player's.
  async claim() {
    if (!this.view || this.busy || !this.game?.token || this.readOnly()) return;
    let words = "";
    await this.run(async () => {
      const view = await api.claim(this.game);
      this.game.token = null;
      history.replaceState(null, "", addressOf(this.game));
      this.apply("claim", view);
      words = "This game is your player's now: it shows in your games and statistics.";
    });
    if (words) this.say(words);
  }

  // One request at a time; its failure is said in words, and the table brought back
  // in step with the server when the failure was about the game having moved on.
  async run(action) {
    this.busy = true;
    document.body.dataset.busy = "true";
    try {
      await action();
      this.say("");
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      await this.explain(error);
    } finally {
      this.busy = false;
      document.body.dataset.busy = "false";
    }
  }

  async explain(error) {
    if (error.code === "stale-version" || error.code === "concurrent-update") {
      const now = error.version == null ? "" : ` (it is now at version ${error.version})`;
      this.say(
        `The game was changed elsewhere, in another tab or on another device${now}, so that ` +
          "move was not made. The table now shows the game as it is: look, then play again.",
      );
      await this.catchUp();
      return;
    }
    if (error.code === "illegal-move") {
      this.say(`That move is not allowed: ${error.message}.`);
      return;
    }
    if (error.code === "malformed-move") {
      this.say(`That is not a move here: ${error.message}.`);
      return;
    }
    if (error.code === "bad-token") {
      this.say(
        this.game?.shared
          ? "This share link does not open that game."
          : this.game?.token
            ? "This address's key does not open that game (a player may have kept it)."
            : "That game is not this browser's player's.",
      );
      return;
    }
    this.say(MESSAGES[error.code] || `The server refused: ${error.message}.`);
  }

  async catchUp() {
    try {
      this.apply("view", await api.view(this.game));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.say(MESSAGES[error.code] || error.message);
    }
  }

  // ---------------------------------------------------------------- replays

  // Replay mode: the table shows the game after a number of its moves, as the server
  // replays it (GET .../replay), and nothing on it can be picked up; the game's changes
  // keep arriving meanwhile, and the table shows it as it is again when the replay is
  // left. It opens where the game stands.
  async startReplay() {
    if (!this.view || this.busy || this.replaying || $("replay-open").disabled) return;
    const game = this.game;
    let step = null;
    let kept = false;
    await this.run(async () => {
      try {
        const history = await api.history(game);
        step = await api.replay(game, history.position);
      } catch (error) {
        // a player's finished game gone from play meanwhile: its record replays it
        if (!(error instanceof ApiError) || error.code !== "unknown-game" || game.token) throw error;
        await this.enterKept(game);
        kept = true;
      }
    });
    if (kept) {
      this.focusReplay();
      return;
    }
    if (!step || game !== this.game || !this.view || this.replaying) return;
    this.deselect();
    this.replaying = {
      position: step.position,
      length: step.length,
      view: step,
      live: true,
      asked: 0,
      target: step.position,
    };
    this.showReplay();
    this.focusReplay();
  }

  // A game of the player's, replayed (`replay`) or only opened: on the table if it is
  // still kept in play, else its replay from its record alone (a replay to leave, with
  // nothing underneath).
  async replayGame(id, replay = true) {
    if (this.busy) return;
    if (this.game?.id === id && !this.game.token && this.view) {
      if (replay) await this.startReplay();
      return;
    }
    const game = { id, token: null };
    let live = false;
    await this.run(async () => {
      let view = null;
      try {
        view = await api.view(game);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "unknown-game") throw error;
      }
      if (view) {
        history.replaceState(null, "", addressOf(game));
        await this.enter(game, view);
        live = true;
      } else {
        await this.enterKept(game);
      }
    });
    if (live && replay) await this.startReplay();
    else if (this.replaying) this.focusReplay();
  }

  // A game the server keeps only as its record: its replay, at its last position.
  async enterKept(game) {
    const first = await api.replay(game, 0);
    const step = first.length > 0 ? await api.replay(game, first.length) : first;
    const description = await this.describe(step.variant);
    this.stream?.close();
    this.stream = null;
    this.game = game;
    this.view = null;
    this.redoable = 0;
    this.undoableAtDeal = false;
    this.selection = null;
    history.replaceState(null, "", location.pathname + location.search);
    this.table = new Table($("table"), description, { below: () => this.outcomeHeight() });
    $("table").dataset.version = "0";
    $("table").dataset.status = step.status;
    $("variant").value = step.variant;
    this.showRules(description);
    $("outcome").hidden = true;
    $("outlook").hidden = true;
    document.title = `${description.name} · Patience`;
    this.replaying = {
      position: step.position,
      length: step.length,
      view: step,
      live: false,
      asked: 0,
      target: step.position,
    };
    this.showReplay();
  }

  replayBy(steps) {
    if (this.replaying) this.replayTo(this.replaying.target + steps);
  }

  // The table after `position` moves (kept within the game's history). Steps asked for
  // in quick succession count from the last one asked; only its answer is shown.
  async replayTo(position) {
    const replay = this.replaying;
    if (!replay) return;
    const wanted = Math.max(0, Math.min(position, replay.length));
    if (wanted === replay.target) return;
    replay.target = wanted;
    const asked = ++replay.asked;
    $("replay").dataset.loading = "true";
    try {
      const step = await api.replay(this.game, wanted);
      if (this.replaying !== replay || asked !== replay.asked) return;
      replay.view = step;
      replay.position = step.position;
      replay.length = step.length;
      this.say("");
      this.showReplay();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (this.replaying !== replay || asked !== replay.asked) return;
      replay.target = replay.position;
      this.say(MESSAGES[error.code] || `The server refused: ${error.message}.`);
    } finally {
      if (this.replaying === replay && asked === replay.asked) {
        $("replay").dataset.loading = "false";
      }
    }
  }

  showReplay() {
    const replay = this.replaying;
    const step = replay.view;
    this.table.show(step, []);
    this.table.clearMarks();
    const table = $("table");
    table.dataset.replay = String(replay.position);
    $("replay").hidden = false;
    $("replay").dataset.position = String(replay.position);
    $("replay").dataset.length = String(replay.length);
    const last = step.last_move === "restart" ? "a restart" : step.last_move;
    $("replay-position").textContent =
      replay.position === 0
        ? `The deal (0 of ${replay.length})`
        : `After move ${replay.position} of ${replay.length} (${last})`;
    const atStart = replay.position === 0;
    const atEnd = replay.position >= replay.length;
    $("replay-first").disabled = atStart;
    $("replay-back").disabled = atStart;
    $("replay-forward").disabled = atEnd;
    $("replay-last").disabled = atEnd;
    // the focus stays in the replay's controls when the one it was on turns off
    if (document.activeElement?.disabled) this.focusReplay();
    this.refreshMode();
    this.refreshButtons();
    this.refreshStatus();
    this.refreshRecord();
  }

  focusReplay() {
    const order = ["replay-back", "replay-forward", "replay-leave"];
    const target = order.map($).find((node) => !node.disabled);
    target?.focus();
  }

  refreshReplayStatus() {
    const replay = this.replaying;
    const view = replay.view;
    const c = view.counters;
    const name = this.descriptions.get(view.variant)?.name || view.variant;
    $("status").textContent = [
      `Replay of ${name}, ${dealWords(view.deal, view.record)}`,
      replay.position === 0 ? "the deal" : `after move ${replay.position} of ${replay.length}`,
      `${c.foundation_cards}/${c.total_cards} on the foundations`,
    ].join(" · ");
  }

  onReplayKey(event) {
    const key = event.key;
    const steps = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (key in steps) {
      event.preventDefault();
      this.replayBy(steps[key]);
    } else if (key === "Home") {
      event.preventDefault();
      this.replayTo(0);
    } else if (key === "End") {
      event.preventDefault();
      this.replayTo(Infinity);
    } else if (key === "Escape") {
      this.leaveReplay();
    } else if (key.toLowerCase() === "s" && !$("stats-open").hidden) {
      event.preventDefault();
      this.panel.open();
    } else if (key === "?") {
      event.preventDefault();
      this.openHelp();
    }
  }

  // Back to the table as the game is now (or, after the replay of a game no longer kept
  // in play, to an empty table).
  leaveReplay() {
    const replay = this.replaying;
    if (!replay) return;
    this.replaying = null;
    $("replay").hidden = true;
    delete $("table").dataset.replay;
    if (!replay.live || !this.view) {
      this.clearTable(
        replay.live
          ? "This game is no longer on the table: pick a game and press New game."
          : "That game is over and no longer kept in play: pick a game and press New game, " +
              "or replay another from Statistics.",
      );
      return;
    }
    this.table.show(this.view, []);
    this.table.clearMarks();
    this.refreshMode();
    this.refreshButtons();
    this.refreshStatus();
    this.refreshRecord();
    $("replay-open").focus();
  }

  // ---------------------------------------------------------------- sharing

  // The game's share link (its id and share token, in the address's fragment): who opens
  // it watches the game and can change nothing.
  async share() {
    if (!this.view || this.busy || $("share-open").disabled) return;
    const game = this.game;
    let link = null;
    await this.run(async () => {
      const shared = await api.share(game);
      const address = addressOf({ id: game.id, token: shared.token, shared: true });
      link = `${location.origin}${location.pathname}${address}`;
    });
    if (!link || game !== this.game) return;
    const input = $("share-link");
    input.value = link;
    $("share-message").textContent = "";
    $("share").showModal();
    input.focus();
    input.select();
  }

  async copyShare() {
    const input = $("share-link");
    input.focus();
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      $("share-message").textContent = "Copied: send it to whoever should watch.";
    } catch (error) {
      $("share-message").textContent =
        "This browser did not let the page copy it: copy the selected address yourself.";
    }
  }

  onGone(why) {
    this.say(
      why === "deleted"
        ? "This game was deleted (in another tab or on another device)."
        : why === "refused"
          ? this.game?.shared
            ? "This share link no longer opens the game."
            : "This game no longer opens from here: a player kept it, or this browser's player changed."
          : "This game expired and is no longer kept. Start a new one.",
    );
    this.view = null;
    const controls = ["undo", "redo", "outcome-undo", "outcome-restart", "hint", "autoplay"];
    for (const id of [...controls, "autoplay-each", "restart", "resign", "share-open"]) {
      $(id).disabled = true;
    }
    if (!this.replaying) $("replay-open").disabled = true;
    $("claim").hidden = true;
    clearInterval(this.clock);
    this.clock = null;
    for (const id of ["deal-card", "redeal"]) $(id).hidden = true;
    $("withdrawals").replaceChildren();
    this.table?.clearMarks();
  }
}

const client = new Client();
window.patience = client; // for the browser's console, and the page's own tests
client.start().catch((error) => {
  const message = $("message");
  message.textContent = `The page could not start: ${error.message}`;
  message.hidden = false;
});
