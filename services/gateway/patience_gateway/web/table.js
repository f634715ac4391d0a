// Drawing the table: the piles laid out from the variant's description (fans, columns,
// cells, stock and waste, foundations with their suit and direction), the cards of a
// view in them, and the cards that moved animated from where they were.

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const ANIMATION_MS = 260;

export function cardLabel(code) {
  const rank = code.slice(0, -1);
  return `${rank === "T" ? "10" : rank}${SUITS[code.slice(-1)]}`;
}

export function cardWords(code) {
  const rank = code.slice(0, -1);
  return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[code.slice(-1)]}`;
}

function element(tag, className, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function cardElement(code, index) {
  const card = element("div", `card ${"HD".includes(code.slice(-1)) ? "red" : "black"}`, {
    "data-card": code,
    "data-index": String(index),
  });
  const rank = code.slice(0, -1);
  const corner = element("span", "corner");
  const rankText = element("span", "rank");
  rankText.textContent = rank === "T" ? "10" : rank;
  const suitText = element("span", "suit");
  suitText.textContent = SUITS[code.slice(-1)];
  corner.append(rankText, suitText);
  const pip = element("span", "pip");
  pip.textContent = SUITS[code.slice(-1)];
  card.append(corner, pip);
  return card;
}

function backElement(index) {
  return element("div", "card back", { "data-index": String(index) });
}

function placeholder(pile) {
  const hint = element("div", "placeholder");
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
  if (pile.kind === "foundation" && pile.suit) {
    const way = pile.direction === "down" ? "down from the king" : "up from the ace";
    return `${pile.id}: foundation, ${SUIT_NAMES[pile.suit]} ${way}`;
  }
  const names = { fan: "fan", column: "column", cell: "reserve cell" };
  return `${pile.id}: ${names[pile.layout] || pile.kind}`;
}

// The table of one game: built once from the variant's description, then filled from
// each view the game goes through.
export class Table {
  constructor(root, description) {
    this.root = root;
    this.description = description;
    this.piles = new Map(); // pile id -> element
    this.layout = description.piles.find((p) => p.kind === "tableau")?.layout || "column";
    this.tableauCount = description.piles.filter((p) => p.kind === "tableau").length;
    this.build();
  }

  build() {
    this.root.replaceChildren();
    this.root.dataset.variant = this.description.id;
    this.root.dataset.layout = this.layout;
    const top = element("div", "row top");
    const groups = {
      foundation: element("div", "group foundations", { "aria-label": "Foundations" }),
      stock: element("div", "group stock-waste", { "aria-label": "Stock and waste" }),
      reserve: element("div", "group reserve", { "aria-label": "Reserve cells" }),
      tableau: element("div", `group tableau ${this.layout}s`, { "aria-label": "Tableau" }),
    };
    groups.waste = groups.stock;
    for (const pile of this.description.piles) {
      const node = element("div", `pile ${pile.kind} ${pile.layout}`, {
        "data-pile": pile.id,
        tabindex: "0",
        role: "button",
        title: pileTitle(pile),
      });
      node.append(placeholder(pile), element("div", "cards"));
      this.piles.set(pile.id, node);
      groups[pile.kind].append(node);
    }
    for (const group of [groups.stock, groups.foundation, groups.reserve]) {
      if (group.childElementCount) top.append(group);
    }
    this.root.append(top, groups.tableau);
    this.fit();
  }

  // Card size from the space there is: every column side by side, or fans wrapping.
  fit() {
    const width = this.root.clientWidth || window.innerWidth;
    let card;
    if (this.layout === "column") {
      card = (width - 6 * (this.tableauCount + 1)) / this.tableauCount;
    } else {
      card = width / (width < 600 ? 9 : 16);
    }
    card = Math.max(22, Math.min(card, 80));
    this.root.style.setProperty("--card-w", `${card.toFixed(1)}px`);
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
      const cards = node.querySelector(".cards");
      const hidden = pile.size - pile.cards.length;
      const nodes = [];
      for (let i = 0; i < hidden && pile.kind !== "stock"; i++) nodes.push(backElement(i));
      pile.cards.forEach((code, i) => nodes.push(cardElement(code, hidden + i)));
      if (pile.kind === "stock" && pile.size > 0) {
        const back = backElement(0);
        back.textContent = String(pile.size);
        nodes.push(back);
      }
      cards.replaceChildren(...nodes);
      node.dataset.size = String(pile.size);
      node.classList.toggle("empty", pile.size === 0);
      node.style.setProperty("--count", String(Math.max(1, nodes.length)));
      const top = pile.cards[pile.cards.length - 1];
      node.setAttribute(
        "aria-label",
        `${pileTitle(this.description.piles.find((p) => p.id === pile.id))}, ` +
          (pile.size === 0
            ? "empty"
            : `${pile.size} card${pile.size === 1 ? "" : "s"}` +
              (top ? `, top card ${cardWords(top)}` : "")),
      );
    }
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
