// The reference web client: deal a game, play it by clicks, drags or the keyboard, and
// keep every tab that shows the same game in step through its event stream.

import { ApiError, addressOf, api, gameFromAddress } from "./api.js";
import { GameStream } from "./stream.js";
import { Table, cardWords } from "./table.js";
import { Pointer } from "./pointer.js";

const $ = (id) => document.getElementById(id);

const MESSAGES = {
  "nothing-to-undo": "There is nothing to undo: the game is at its deal.",
  "nothing-to-redo": "There is nothing to redo.",
  "unknown-game": "This game no longer exists: it was deleted, or it expired. Start a new one.",
  "bad-token": "This address does not hold the key of that game.",
  "storage-unavailable": "The server cannot reach its storage just now; try again in a moment.",
  "engine-unavailable": "The rules engine cannot be reached just now; try again in a moment.",
  network: "The server cannot be reached; check the connection and try again.",
};

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

class Player {
  constructor() {
    this.descriptions = new Map();
    this.game = null; // {id, token}
    this.view = null;
    this.table = null;
    this.moves = [];
    this.selection = null; // {pile, count}
    this.redoable = 0;
    this.busy = false;
    this.stream = null;
  }

  async start() {
    const variants = await api.variants();
    const select = $("variant");
    for (const variant of variants) {
      const option = document.createElement("option");
      option.value = variant.id;
      option.textContent = variant.name;
      select.append(option);
    }
    select.value = "la-belle-lucie";
    $("new-game").addEventListener("submit", (event) => {
      event.preventDefault();
      this.newGame();
    });
    $("undo").addEventListener("click", () => this.historyStep("undo"));
    $("outcome-undo").addEventListener("click", () => this.historyStep("undo"));
    $("redo").addEventListener("click", () => this.historyStep("redo"));
    $("deal-card").addEventListener("click", () => this.play("deal"));
    $("redeal").addEventListener("click", () => this.play("redeal"));
    $("hint").addEventListener("click", () => this.hint());
    $("autoplay").addEventListener("click", () => this.autoplay());
    $("autoplay-each").addEventListener("change", (event) => this.autoplayEach(event.target.checked));
    $("outcome-new").addEventListener("click", () => $("variant").focus());
    document.addEventListener("keydown", (event) => this.onKey(event));
    window.addEventListener("hashchange", () => this.openFromAddress());
    window.addEventListener("resize", () => this.table?.fit());
    this.pointer = new Pointer($("table"), {
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
    await this.run(async () => {
      const view = await api.view(game);
      await this.enter(game, view);
    });
  }

  async newGame() {
    const variant = $("variant").value;
    const deal = $("deal").value.trim();
    if (deal !== "" && !/^\d{1,21}$/.test(deal)) {
      this.say("The deal number must be a whole number from 0 to 10^20, or empty.");
      return;
    }
    await this.run(async () => {
      const created = await api.create(variant, deal);
      const game = { id: created.id, token: created.token };
      history.replaceState(null, "", addressOf(game));
      await this.enter(game, created);
    });
  }

  async enter(game, view) {
    let description = this.descriptions.get(view.variant);
    if (!description) {
      description = await api.variant(view.variant);
      this.descriptions.set(view.variant, description);
    }
    this.stream?.close();
    this.game = game;
    this.view = null;
    this.selection = null;
    this.table = new Table($("table"), description);
    $("variant").value = view.variant;
    $("rules").hidden = false;
    $("rules-text").textContent = description.summary;
    document.title = `${description.name} · Patience`;
    this.show(view, []);
    await this.learnRedoable();
    this.stream = new GameStream(game, {
      change: (kind, data) => this.apply(kind, data),
      gone: (why) => this.onGone(why),
    });
  }

  async learnRedoable() {
    const history = await api.history(this.game);
    this.redoable = history.moves.length - history.position;
    this.refreshButtons();
  }

  // ---------------------------------------------------------------- showing

  // A change reaches this tab twice when it made it (its answer, and the stream) and
  // once when another did; only a newer version is shown, and counted once.
  apply(kind, view) {
    if (!this.view || view.version <= this.view.version) return;
    if (kind === "move" || kind === "autoplay") this.redoable = 0;
    if (kind === "undo") this.redoable += 1;
    if (kind === "redo") this.redoable -= 1;
    this.show(view, view.events || []);
    if (kind === "view") this.learnRedoable().catch(() => {});
  }

  show(view, events) {
    this.view = view;
    this.moves = view.legal_moves.map(parseMove);
    this.selection = null;
    this.table.show(view, events);
    this.table.clearMarks();
    $("table").dataset.version = String(view.version);
    $("table").dataset.status = view.status;
    delete $("table").dataset.hint;
    this.refreshButtons();
    this.refreshStatus();
  }

  refreshStatus() {
    const view = this.view;
    const c = view.counters;
    const name = this.descriptions.get(view.variant)?.name || view.variant;
    const deal = view.deal == null ? "random deal" : `deal ${view.deal}`;
    const parts = [
      `${name}, ${deal}`,
      `${c.moves_made} move${c.moves_made === 1 ? "" : "s"}`,
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
    const outcome = $("outcome");
    outcome.hidden = view.status === "playing";
    outcome.dataset.status = view.status;
    $("outcome-text").textContent =
      view.status === "won"
        ? `Won! All ${c.total_cards} cards are on the foundations.`
        : view.status === "stuck"
          ? "Stuck: no move is left. Undo, or start a new game."
          : "";
  }

  refreshButtons() {
    const view = this.view;
    const has = (kind) => this.moves.some((m) => m.kind === kind);
    $("undo").disabled = !view || view.counters.moves_made === 0;
    $("outcome-undo").disabled = $("undo").disabled;
    $("redo").disabled = !view || this.redoable <= 0;
    const playing = Boolean(view) && view.status === "playing";
    $("hint").disabled = !playing;
    $("autoplay").disabled = !playing;
    $("autoplay-each").disabled = !view;
    $("autoplay-each").checked = Boolean(view && view.autoplay);
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
    if (!this.view || this.busy) return;
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
  }

  deselect() {
    this.selection = null;
    this.table?.clearMarks();
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
    const home = this.transfersFrom(pile, 1).find((m) => m.target.startsWith("f"));
    if (home) await this.play(home.notation);
    else this.say("That card cannot go to a foundation now.");
  }

  onKey(event) {
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const pileNode = event.target.closest && event.target.closest(".pile");
    const key = event.key;
    if (pileNode && (key === "Enter" || key === " ")) {
      event.preventDefault();
      this.pressPile(pileNode.dataset.pile);
    } else if (key === "Escape") {
      this.deselect();
    } else if (pileNode && (key === "ArrowRight" || key === "ArrowDown")) {
      event.preventDefault();
      this.focusNeighbour(pileNode, 1);
    } else if (pileNode && (key === "ArrowLeft" || key === "ArrowUp")) {
      event.preventDefault();
      this.focusNeighbour(pileNode, -1);
    } else if (pileNode && key.toLowerCase() === "f") {
      this.sendHome(pileNode.dataset.pile);
    } else if (key.toLowerCase() === "u") {
      this.historyStep("undo");
    } else if (key.toLowerCase() === "r") {
      this.historyStep("redo");
    } else if (key.toLowerCase() === "h") {
      this.hint();
    } else if (key.toLowerCase() === "a") {
      this.autoplay();
    } else if (key.toLowerCase() === "d" && this.moves.some((m) => m.kind === "deal")) {
      this.play("deal");
    }
  }

  // Enter on a pile: pick up its top card; Enter again on it: the next larger number
  // of cards that may move from it, then let go; Enter on another pile: put them there.
  pressPile(pile) {
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
    if (!this.view || this.busy) return;
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
      const worth = hint.kind === "winning" ? "it wins" : "the search ran out of time: a good try";
      words = `Hint: ${what} (${worth}).`;
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
    if (!this.view || this.busy) return;
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

  onGone(why) {
    this.say(
      why === "deleted"
        ? "This game was deleted (in another tab or on another device)."
        : "This game expired and is no longer kept. Start a new one.",
    );
    this.view = null;
    for (const id of ["undo", "redo", "outcome-undo", "hint", "autoplay", "autoplay-each"]) {
      $(id).disabled = true;
    }
    for (const id of ["deal-card", "redeal"]) $(id).hidden = true;
    $("withdrawals").replaceChildren();
    this.table?.clearMarks();
  }
}

const player = new Player();
window.patience = player; // for the browser's console, and the page's own tests
player.start().catch((error) => {
  const message = $("message");
  message.textContent = `The page could not start: ${error.message}`;
  message.hidden = false;
});
