// Drawing the table: the piles laid out from the variant's description (fans, columns,
// cells, stock and waste, foundations with their suit and direction), the cards of a
// view in them, and the cards that moved animated from where they were.

import { plan, refit } from "./fit.js";

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RANK_NAMES = {
  A: "ace",
  2: "two",
  3: "three",
  4: "four",
  5: "five",
  6: "six",
  7: "seven",
  8: "eight",
  9: "nine",
  T: "ten",
  J: "jack",
  Q: "queen",
  K: "king",
};
const ANIMATION_MS = 260;
// Below the table: room left so that the last row does not touch the window's edge.
const BOTTOM_PX = 8;

export function cardLabel(code) {
  const rank = code.slice(0, -1);
  return `${rank === "T" ? "10" : rank}${SUITS[code.slice(-1)]}`;
}

// "seven of hearts"
export function cardWords(code) {
  const rank = code.slice(0, -1);
  return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[code.slice(-1)]}`;
}

function capitalized(words) {
  return words[0].toUpperCase() + words.slice(1);
}

// A pile's name, as a player says it: "tableau 3", "foundation 5 (clubs, down from the
// king)", "reserve cell 2", "stock", "waste".
export function pileWords(pile) {
  if (!pile) return "";
  const number = pile.id.replace(/^[a-z]+/, "");
  if (pile.kind === "foundation") {
    const way = pile.direction === "down" ? "down from the king" : "up from the ace";
    return pile.suit ? `foundation ${number} (${SUIT_NAMES[pile.suit]}, ${way})` : `foundation ${number}`;
  }
  if (pile.kind === "reserve") return `reserve cell ${number}`;
  if (pile.kind === "tableau") return `tableau ${number}`;
  return pile.kind; // stock, waste
}

// A pile's short name: "tableau 3", "foundation 5".
export function pileShortWords(pile) {
  return pileWords(pile).replace(/ \(.*\)$/, "");
}

function element(tag, className, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function cardElement(code, index, where) {
  const suit = code.slice(-1);
  const card = element("div", `card ${"HD".includes(suit) ? "red" : "black"}`, {
    "data-card": code,
    "data-index": String(index),
    role: "img",
    "aria-label": `${capitalized(cardWords(code))}, ${where}`,
  });
  const rank = code.slice(0, -1);
  const corner = element("span", "corner", { "aria-hidden": "true" });
  const rankText = element("span", rank === "T" ? "rank ten" : "rank");
  rankText.textContent = rank === "T" ? "10" : rank;
  const suitText = element("span", "suit");
  suitText.textContent = SUITS[suit];
  corner.append(rankText, suitText);
  const pip = element("span", "pip", { "aria-hidden": "true" });
  pip.textContent = SUITS[suit];
  card.append(corner, pip);
  return card;
}

function backElement(index, where) {
  return element("div", "card back", {
    "data-index": String(index),
    role: "img",
    "aria-label": `A card face down, ${where}`,
  });
}

function placeholder(pile) {
  const hint = element("div", "placeholder", { "aria-hidden": "true" });
  if (pile.kind === "foundation" && pile.suit) {
    const base = pile.direction === "down" ? "K" : "A";
    hint.textContent = `${base}${SUITS[pile.suit]} ${pile.direction === "down" ? "▼" : "▲"}`;
    hint.classList.add("HD".includes(pile.suit) ? "red" : "black");
  } else if (pile.kind === "stock") {
    hint.textContent = "stock";
  } else if (pile.kind === "waste") {
    hint.textContent = "waste";
  }
  return hint;
}

function pileTitle(pile) {
  return capitalized(pileWords(pile));
}

// What a pile says to a screen reader: its name, how many cards, which ones.
function pileLabel(pile, view) {
  const name = pileTitle(pile);
  if (view.size === 0) return `${name}: empty`;
  const count = `${view.size} card${view.size === 1 ? "" : "s"}`;
  if (pile.kind === "stock") return `${name}: ${count}, face down`;
  const cards = view.cards.map(cardWords);
  const hidden = view.size - view.cards.length;
  if (!cards.length) return `${name}: ${count}, face down`;
  const top = `${cards[cards.length - 1]} on top`;
  // a fan or column shows all its cards; a stack (foundation, cell, waste) its top one
  if (pile.kind !== "tableau" || cards.length === 1) return `${name}: ${count}, ${top}`;
  const under = cards.slice(0, -1);
  const down = hidden ? `${hidden} face down, ` : "";
  return `${name}: ${count}, ${down}${under.join(", ")}, ${top}`;
}

// The proportions of a card's corner per px of font, measured from this browser's fonts.
let cornerMetrics = null;

function measureCorners(root) {
  if (cornerMetrics) return cornerMetrics;
  const probe = element("div", "probe", { "aria-hidden": "true" });
  const shapes = {};
  for (const layout of ["fan", "column"]) {
    const pile = element("div", `pile ${layout}`);
    const cards = element("div", "cards");
    const card = cardElement("TH", 0, "");
    cards.append(card);
    pile.append(cards);
    probe.append(pile);
    shapes[layout] = card.querySelector(".corner");
  }
  root.append(probe);
  const fan = shapes.fan.getBoundingClientRect();
  const row = shapes.column.getBoundingClientRect();
  probe.remove();
  const font = 100;
  if (!fan.width || !row.width) return { fanWidth: 0.9, fanHeight: 2.2, rowWidth: 1.8, rowHeight: 1.2 };
  cornerMetrics = {
    fanWidth: fan.width / font,
    fanHeight: fan.height / font,
    rowWidth: row.width / font,
    rowHeight: row.height / font,
  };
  return cornerMetrics;
}

// The table of one game: built once from the variant's description, then filled from
// each view the game goes through. `below()`: the height (px) that something over the
// bottom of the window takes (the game's outcome), which the table leaves free.
export class Table {
  constructor(root, description, { below = () => 0 } = {}) {
    this.root = root;
    this.below = below;
    this.description = description;
    this.piles = new Map(); // pile id -> element
    this.layout = description.piles.find((p) => p.kind === "tableau")?.layout || "column";
    this.tableau = description.piles.filter((p) => p.kind === "tableau");
    this.groups = {};
    this.planned = null; // the layout chosen for this window
    this.build();
  }

  build() {
    this.root.replaceChildren();
    this.root.dataset.variant = this.description.id;
    this.root.dataset.layout = this.layout;
    this.root.dataset.packs = String(this.description.packs || 1);
    const top = element("div", "row top");
    const groups = {
      stock: element("div", "group stock-waste", { role: "group", "aria-label": "Stock and waste" }),
      foundation: element("div", "group foundations", { role: "group", "aria-label": "Foundations" }),
      reserve: element("div", "group reserve", { role: "group", "aria-label": "Reserve cells" }),
      tableau: element("div", `group tableau ${this.layout}s`, { role: "group", "aria-label": "Tableau" }),
    };
    groups.waste = groups.stock;
    for (const pile of this.description.piles) {
      const node = element("div", `pile ${pile.kind} ${pile.layout}`, {
        "data-pile": pile.id,
        tabindex: "0",
        role: "button",
        "aria-label": pileTitle(pile),
      });
      node.append(placeholder(pile), element("div", "cards"));
      this.piles.set(pile.id, node);
      groups[pile.kind].append(node);
    }
    this.groups = groups;
    this.topGroups = [groups.stock, groups.foundation, groups.reserve].filter((g) => g.childElementCount);
    for (const group of this.topGroups) top.append(group);
    this.root.append(top, groups.tableau);
  }

  // What the layout depends on: the groups of the top row, and the tableau's piles.
  shape() {
    const lengths = this.tableau.map((pile) => {
      const node = this.piles.get(pile.id);
      return node ? node.querySelectorAll(".card").length : 0;
    });
    if (this.dealt == null) this.dealt = Math.max(1, ...lengths);
    return {
      layout: this.layout,
      groups: this.topGroups.map((group) => group.childElementCount),
      lengths,
      dealt: this.dealt,
    };
  }

  // The space for the table: the width of its box, the height from its top down to
  // the bottom of the window.
  space() {
    const box = this.root.getBoundingClientRect();
    const top = box.top + window.scrollY;
    return {
      width: Math.floor(this.root.clientWidth || window.innerWidth),
      height: Math.floor(window.innerHeight - top - BOTTOM_PX - this.below()),
    };
  }

  // The card size and the places of the piles for the space there is: planned afresh
  // when `anew` (a new table, a resized window), else within the plan (the piles stay
  // where they are; overlaps tighten, cards shrink, as far as needed).
  fit(anew = false) {
    const space = this.space();
    const metrics = measureCorners(this.root);
    const shape = this.shape();
    // a plan holds for a window's size (not for what stands above the table)
    const key = `${window.innerWidth}x${window.innerHeight}`;
    if (anew || !this.planned || this.planned.key !== key) {
      this.planned = plan(shape, space, metrics);
      if (this.planned) this.planned.key = key;
      this.apply(this.planned);
      return;
    }
    this.apply(refit(shape, space, metrics, this.planned) || this.planned);
  }

  apply(found) {
    if (!found) return;
    const root = this.root;
    const px = (value) => `${value.toFixed(2)}px`;
    root.style.setProperty("--card-w", px(found.width));
    root.style.setProperty("--card-h", px(found.height));
    root.style.setProperty("--corner-font", px(found.font));
    root.style.setProperty("--gap", px(found.gap));
    root.style.setProperty("--fan-step", px(found.fanStep));
    root.style.setProperty("--column-step", px(found.columnStepNow ?? found.columnStep));
    root.dataset.pip = found.pip ? "shown" : "hidden";
    root.dataset.fits = found.fits ? "true" : "false";
    const tableau = this.groups.tableau;
    tableau.style.setProperty("--columns", String(found.columns));
    if (found.gapAcross != null) tableau.style.setProperty("--gap-across", px(found.gapAcross));
    if (found.bandGap != null) tableau.style.setProperty("--band-gap", px(found.bandGap));
    this.topGroups.forEach((group, i) => {
      group.style.setProperty("--columns", String(found.top.groups[i].columns));
    });
    this.tableau.forEach((pile, i) => {
      const node = this.piles.get(pile.id);
      if (found.steps[i] != null) node.style.setProperty("--step", px(found.steps[i]));
      if (this.layout === "fan") this.fold(node, found, i);
    });
  }

  // A fan folded in lines (too long for its place): each card placed where it goes.
  fold(node, found, i) {
    const lines = found.lines[i] || 1;
    const cards = node.querySelectorAll(".card");
    node.dataset.lines = String(lines);
    if (lines === 1) {
      node.style.removeProperty("height");
      for (const card of cards) {
        card.style.removeProperty("left");
        card.style.removeProperty("top");
      }
      return;
    }
    const across = found.perLine[i];
    node.style.height = `${(found.height + (lines - 1) * found.fold).toFixed(2)}px`;
    cards.forEach((card, n) => {
      card.style.left = `${((n % across) * found.steps[i]).toFixed(2)}px`;
      card.style.top = `${(Math.floor(n / across) * found.fold).toFixed(2)}px`;
    });
  }

  pile(id) {
    return this.piles.get(id);
  }

  // The rectangle of every card now on the table, by where it lies (pile and index).
  snapshot() {
    const where = new Map();
    for (const [id, node] of this.piles) {
      for (const card of node.querySelectorAll(".card")) {
        where.set(`${id}:${card.dataset.index}`, {
          rect: card.getBoundingClientRect(),
          code: card.dataset.card,
        });
      }
    }
    return where;
  }

  show(view, events) {
    const before = this.snapshot();
    for (const pile of view.piles) {
      const node = this.piles.get(pile.id);
      if (!node) continue;
      const description = this.description.piles.find((p) => p.id === pile.id);
      const where = pileShortWords(description);
      const cards = node.querySelector(".cards");
      const hidden = pile.size - pile.cards.length;
      const nodes = [];
      for (let i = 0; i < hidden && pile.kind !== "stock"; i++) nodes.push(backElement(i, where));
      pile.cards.forEach((code, i) => nodes.push(cardElement(code, hidden + i, where)));
      if (pile.kind === "stock" && pile.size > 0) {
        const back = backElement(0, where);
        back.textContent = String(pile.size);
        back.setAttribute("aria-label", `${pile.size} cards face down, stock`);
        nodes.push(back);
      }
      // in a stack only the top card shows (and is said)
      if (description.layout === "stack" || description.layout === "cell") {
        for (const under of nodes.slice(0, -1)) under.setAttribute("aria-hidden", "true");
      }
      cards.replaceChildren(...nodes);
      node.dataset.size = String(pile.size);
      node.classList.toggle("empty", pile.size === 0);
      node.setAttribute("aria-label", pileLabel(description, pile));
    }
    this.fit(!this.planned);
    this.animate(before, events);
  }

  cardAt(pileId, index) {
    return this.piles.get(pileId)?.querySelector(`.card[data-index="${index}"]`);
  }

  // Each card that moved glides from where it was: the engine's card events say which
  // ones when the change has them; otherwise (undo, a view from elsewhere) the cards
  // whose place changed are found by comparing the two tables.
  animate(before, events) {
    if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    const moves = events && events.length ? fromEvents(events) : fromDifference(before, this);
    moves.slice(0, 120).forEach(([from, pileId, index], order) => {
      const old = before.get(from);
      const card = this.cardAt(pileId, index);
      if (!old || !card) return;
      const now = card.getBoundingClientRect();
      const dx = old.rect.left - now.left;
      const dy = old.rect.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
      card.animate(
        [
          { transform: `translate(${dx}px, ${dy}px)`, zIndex: 50 },
          { transform: "translate(0, 0)", zIndex: 50 },
        ],
        { duration: ANIMATION_MS, delay: Math.min(order * 25, 400), easing: "ease-out", fill: "backwards" },
      );
    });
  }

  clearMarks() {
    for (const node of this.piles.values()) {
      node.classList.remove("source", "target");
      for (const card of node.querySelectorAll(".card.picked")) card.classList.remove("picked");
    }
  }

  mark(source, count, targets) {
    this.clearMarks();
    const node = this.piles.get(source);
    if (!node) return;
    node.classList.add("source");
    const cards = [...node.querySelectorAll(".card")];
    for (const card of cards.slice(cards.length - count)) card.classList.add("picked");
    for (const target of targets) this.piles.get(target)?.classList.add("target");
  }
}

function fromEvents(events) {
  return events.map((e) => [`${e.source}:${e.source_index}`, e.target, e.target_index]);
}

function fromDifference(before, table) {
  const old = new Map(); // card code -> places it was, not found again
  for (const [place, { code }] of before) {
    if (code) old.set(code, [...(old.get(code) || []), place]);
  }
  const arrived = [];
  for (const [id, node] of table.piles) {
    for (const card of node.querySelectorAll(".card[data-card]")) {
      const place = `${id}:${card.dataset.index}`;
      const places = old.get(card.dataset.card) || [];
      const stayed = places.indexOf(place);
      if (stayed >= 0) places.splice(stayed, 1);
      else arrived.push([card.dataset.card, id, Number(card.dataset.index)]);
    }
  }
  const moves = [];
  for (const [code, id, index] of arrived) {
    const places = old.get(code) || [];
    if (places.length) moves.push([places.shift(), id, index]);
  }
  return moves;
}
