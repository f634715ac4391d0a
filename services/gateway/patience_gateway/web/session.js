// This browser's player. Made on the first visit (POST /v1/players); its refresh token
// is kept in localStorage, so the player outlives the page, and its access token only in
// memory. A new access token comes from the refresh token a minute before the old one
// expires, or when the server answers that it has (401 expired-token: refreshed once,
// the request sent again). A refresh token the server refuses (401: signed out, reused,
// too old) is forgotten and a new player made. A server that keeps no players (503
// records-unavailable) leaves the page playing anonymous games, as before players.
//
// Each refresh token works once: the tabs of this browser share it, so they refresh one
// at a time (a Web Lock, where the browser has them), each reading the newest one.

import { ApiError, api } from "./api.js";

const REFRESH_KEY = "patience.refresh-token";
const PLAYER_KEY = "patience.player";
const LOCK = "patience.session";
const EARLY_MS = 60_000;

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch (error) {
    return null; // storage refused (a private window, a policy): no player kept
  }
}

function store(key, value) {
  try {
    if (value == null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch (error) {
    // the player lasts as long as the page
  }
}

// A refresh the server refuses for good: the player of that token is out of reach.
function refused(error) {
  return error instanceof ApiError && error.status === 401;
}

export class Session {
  constructor() {
    this.player = null; // {id, display_name, created}
    this.access = null; // {token, until}: the access token and when to renew it
    this.available = false;
    this.pending = null;
    this.listeners = [];
  }

  // Whenever the player changes (a new one, or another linked): fn(player).
  onChange(fn) {
    this.listeners.push(fn);
  }

  // The player of the last visit (or a new one); anonymous games when the server keeps
  // no players, or cannot be reached.
  async start() {
    window.addEventListener("storage", (event) => {
      if (event.key === PLAYER_KEY && event.newValue) this.changedElsewhere(event.newValue);
    });
    try {
      await this.refresh();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.available = false;
    }
  }

  // Another tab of this browser made a new player or linked one: this tab follows.
  changedElsewhere(text) {
    try {
      const player = JSON.parse(text);
      if (this.player && player.id === this.player.id) return;
      this.player = player;
    } catch (error) {
      return;
    }
    this.access = null; // the next request gets the new player's access token
    for (const fn of this.listeners) fn(this.player);
  }

  async accessToken() {
    if (!this.access || Date.now() >= this.access.until) await this.refresh();
    return this.access.token;
  }

  // `request(token)` with the player's access token, sent again once with a new one
  // when the server refuses the token as expired (or no longer valid).
  async call(request) {
    const token = await this.accessToken();
    try {
      return await request(token);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code !== "expired-token" && error.code !== "invalid-token") throw error;
      if (this.access && this.access.token === token) this.access = null;
      return request(await this.accessToken());
    }
  }

  // One refresh at a time in this page; across tabs, one at a time.
  refresh() {
    if (!this.pending) {
      this.pending = this.exclusive(() => this.renew()).finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  exclusive(fn) {
    return navigator.locks ? navigator.locks.request(LOCK, fn) : fn();
  }

  async renew() {
    const token = stored(REFRESH_KEY);
    if (token) {
      try {
        this.adopt(await api.refresh(token));
        return;
      } catch (error) {
        if (!refused(error)) throw error;
        store(REFRESH_KEY, null);
      }
    }
    this.adopt(await api.newPlayer());
  }

  adopt(answer) {
    const before = this.player?.id;
    store(REFRESH_KEY, answer.refresh_token);
    store(PLAYER_KEY, JSON.stringify(answer.player));
    this.player = answer.player;
    const lifetime = Math.max(answer.expires_in * 1000 - EARLY_MS, answer.expires_in * 500);
    this.access = { token: answer.access_token, until: Date.now() + lifetime };
    this.available = true;
    if (before && before !== answer.player.id) {
      for (const fn of this.listeners) fn(this.player);
    }
  }

  // Deletes this player and everything of theirs on the server; this browser goes on
  // as a new player (the deleted one's refresh token is refused from now on anyway).
  async deletePlayer() {
    await api.deletePlayer();
    await this.exclusive(async () => {
      store(REFRESH_KEY, null);
      this.adopt(await api.newPlayer());
    });
    return this.player;
  }

  // A one-use code that opens this player on another device (for 300 s).
  linkCode() {
    return api.linkCode();
  }

  // This browser becomes the player whose other device showed `code`; the session of
  // the player it was is signed out (its refresh token would be lost anyway).
  async link(code) {
    const answer = await api.link(code);
    await this.exclusive(async () => {
      const old = stored(REFRESH_KEY);
      this.adopt(answer);
      if (old && old !== answer.refresh_token) await api.signOut(old).catch(() => {});
    });
    return this.player;
  }
}
