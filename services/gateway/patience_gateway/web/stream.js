// A game's event stream (Server-Sent Events through the browser's EventSource). An
// EventSource cannot send the owner token (or the player's access token), so each
// connection first asks for a one-use stream ticket with it, then opens the stream with
// that ticket. When
// the connection drops, it is opened again with a new ticket and the last version seen,
// so the server sends the changes missed meanwhile (or the whole view).

import { ApiError, api } from "./api.js";

const CHANGES = [
  "view",
  "move",
  "undo",
  "redo",
  "autoplay",
  "settings",
  "restart",
  "resign",
  "abandon",
  "claim",
];
const ENDINGS = ["deleted", "expired"];
const MAX_WAIT_MS = 15000;

export class GameStream {
  constructor(game, handlers) {
    this.game = game;
    this.handlers = handlers;
    this.lastId = null;
    this.source = null;
    this.closed = false;
    this.wait = 500;
    this.timer = null;
    this.open();
  }

  async open() {
    if (this.closed) return;
    let ticket;
    try {
      ticket = await api.streamTicket(this.game);
    } catch (error) {
      if (error instanceof ApiError && (error.code === "unknown-game" || error.code === "bad-token")) {
        this.close();
        this.handlers.gone(error.code === "bad-token" ? "refused" : "deleted");
        return;
      }
      this.retry();
      return;
    }
    if (this.closed) return;
    const query = new URLSearchParams({ ticket: ticket.ticket });
    if (this.lastId != null) query.set("last_event_id", this.lastId);
    const source = new EventSource(`/v1/games/${this.game.id}/events?${query}`);
    this.source = source;
    source.addEventListener("open", () => {
      this.wait = 500;
      document.body.dataset.stream = "open";
    });
    for (const kind of CHANGES) {
      source.addEventListener(kind, (event) => {
        this.lastId = event.lastEventId || this.lastId;
        this.handlers.change(kind, JSON.parse(event.data));
      });
    }
    for (const kind of ENDINGS) {
      source.addEventListener(kind, () => {
        this.close();
        this.handlers.gone(kind);
      });
    }
    // The browser would reconnect with the same (used) ticket: reconnect here instead.
    source.addEventListener("error", () => {
      source.close();
      document.body.dataset.stream = "closed";
      this.retry();
    });
  }

  retry() {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, this.wait);
    this.wait = Math.min(this.wait * 2, MAX_WAIT_MS);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.source?.close();
    document.body.dataset.stream = "closed";
  }
}
