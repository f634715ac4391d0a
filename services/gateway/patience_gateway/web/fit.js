// How big the cards are: the largest card that lets the whole table fit the space there
// is (the window's width, and its height below what stands above the table), with every
// card's corner readable (its rank and suit at least MIN_FONT px) and left uncovered by
// the cards over it.
//
// The table is laid out by CSS grids whose sizes come from here: a top row of groups
// (stock and waste, foundations, reserve cells: one card shows per pile), each group in
// as few rows as the width allows and balanced (8 foundations on a phone: two rows of
// 4, never 7 and 1); and the tableau in a grid of `columns` places, its piles in order.
// Columns (cards overlapping downwards) go in bands of `columns` piles each: all side
// by side on a screen wide enough, two or three bands on a phone. Fans (overlapping
// rightwards) go in rows of `columns` fans.
//
// A fan too long for its place even at the tightest overlap folds: its cards go on in a
// second line, a corner's height lower (the first line's corners still show).
//
// Where the tableau's piles go (the grid's number of places across) is chosen when a
// game is dealt, and again only when the window changes size: a pile never moves while
// a game is played. As piles grow, the overlap of their cards tightens (down to the
// width or height of a corner), then the cards get smaller.

export const MIN_FONT = 12; // CSS px: a corner's rank and suit never smaller
export const MAX_CARD = 104; // px wide: larger cards only make the eye travel
const MIN_CARD = 24;
const RATIO = 1.4; // a card's height to its width
const PAD_X = 3; // the corner's distance from the card's left edge
const PAD_Y = 2; // and from its top edge
const CLEAR = 2; // room between a corner and the next card over it
// cards that a pile may still get while the layout stays as planned
const GROWTH = { column: 2, fan: 0 };

export function fontFor(width) {
  return Math.min(22, Math.max(MIN_FONT, 0.27 * width));
}

function gapFor(width) {
  return Math.min(10, Math.max(3, Math.round(width * 0.1)));
}

// The sizes that follow from a card's width, given the corner's measured proportions
// (`metrics`: the corner's width and height per px of font, laid out as in a fan, rank
// above suit: fanWidth, fanHeight; and as elsewhere, rank beside suit: rowWidth,
// rowHeight).
export function sizesFor(width, metrics) {
  const height = width * RATIO;
  const font = fontFor(width);
  const fanMin = PAD_X + metrics.fanWidth * font + CLEAR;
  const columnMin = PAD_Y + metrics.rowHeight * font + CLEAR;
  return {
    width,
    height,
    font,
    gap: gapFor(width),
    fanMin,
    fanStep: Math.max(fanMin, 0.42 * width),
    fold: PAD_Y + metrics.fanHeight * font + CLEAR,
    columnMin,
    columnStep: Math.max(columnMin, 0.3 * height),
    // the rank and suit side by side (columns, foundations, cells) fit the card
    readable: PAD_X + metrics.rowWidth * font + CLEAR <= width,
    pip: width >= 44,
  };
}

// The top row: each group in a balanced grid, the groups side by side while they fit.
function topRow(groups, space, s) {
  const across = Math.max(1, Math.floor((space + s.gap) / (s.width + s.gap)));
  const shaped = groups.map((count) => {
    const rows = Math.ceil(count / across);
    const columns = Math.ceil(count / rows);
    return {
      columns,
      width: columns * s.width + (columns - 1) * s.gap,
      height: rows * s.height + (rows - 1) * s.gap,
    };
  });
  const apart = 2 * s.gap;
  let height = 0;
  let line = 0;
  let x = -1;
  for (const group of shaped) {
    if (x >= 0 && x + apart + group.width > space) {
      height += line + s.gap;
      line = 0;
      x = -1;
    }
    x = x < 0 ? group.width : x + apart + group.width;
    line = Math.max(line, group.height);
  }
  height += line;
  return { groups: shaped, height: shaped.length ? height + 1.5 * s.gap : 0 };
}

// The table laid out with cards `width` px wide and `columns` places across: whether it
// fits `space` (width, height), and the sizes to draw it with. `lengths`: the number of
// cards in each tableau pile; `planning`: the overlaps as they should be (no
// tightening) and room for piles to grow.
export function layout(table, width, columns, space, metrics, planning) {
  const s = sizesFor(width, metrics);
  if (!s.readable) return null;
  const top = topRow(table.groups, space.width, s);
  const n = table.lengths.length;
  const rows = Math.ceil(n / columns);
  const grow = planning ? GROWTH[table.layout] : 0;
  const result = { ...s, columns, top, rows, steps: [], lines: [], perLine: [] };
  if (table.layout === "fan") {
    const slot = (space.width - (columns - 1) * s.gap) / columns;
    if (slot < s.width) return null;
    const across = Math.floor((slot - s.width) / s.fanMin + 1e-6) + 1; // at the tightest
    for (const length of table.lengths) {
      const cards = Math.max(length, table.dealt) + grow;
      let step = cards > 1 ? Math.min(s.fanStep, (slot - s.width) / (cards - 1)) : s.fanStep;
      let lines = 1;
      if (step < (planning ? s.fanStep : s.fanMin) - 0.01) {
        if (planning) return null;
        step = s.fanMin;
        lines = Math.ceil(length / across);
      }
      result.steps.push(step);
      result.lines.push(lines);
      result.perLine.push(lines > 1 ? across : length);
    }
    result.slot = slot;
    let height = (rows - 1) * s.gap;
    for (let row = 0; row < rows; row++) {
      const lines = Math.max(1, ...result.lines.slice(row * columns, (row + 1) * columns));
      height += s.height + (lines - 1) * s.fold;
    }
    result.tableauHeight = height;
  } else {
    if (columns * s.width + (columns - 1) * s.gap > space.width) return null;
    const spread = columns > 1 ? (space.width - columns * s.width) / (columns - 1) : 0;
    result.gapAcross = Math.min(Math.max(s.gap, spread), s.width * 0.5);
    const bandGap = 2 * s.gap;
    let overlaps = 0; // card steps down the tallest column of each band, added up
    for (let band = 0; band < rows; band++) {
      const lengths = table.lengths.slice(band * columns, (band + 1) * columns);
      overlaps += Math.max(0, Math.max(1, ...lengths) + grow - 1);
    }
    const bands = rows * s.height + (rows - 1) * bandGap;
    const room = space.height - top.height - bands;
    let step = s.columnStep;
    if (overlaps > 0) step = Math.min(step, room / overlaps);
    if (step < (planning ? s.columnStep : s.columnMin) - 0.01) return null;
    result.columnStepNow = step;
    result.bandGap = bandGap;
    result.tableauHeight = bands + overlaps * step;
  }
  result.total = top.height + result.tableauHeight;
  if (result.total > space.height) return null;
  return result;
}

// The largest card (to half a px) that fits, with `columns` places across.
function largest(table, columns, space, metrics, planning, limit = MAX_CARD) {
  for (let width = Math.floor(limit * 2) / 2; width >= MIN_CARD; width -= 0.5) {
    const found = layout(table, width, columns, space, metrics, planning);
    if (found) return found;
  }
  return null;
}

function choices(table) {
  const n = table.lengths.length;
  const options = new Set();
  if (table.layout === "column") {
    for (let bands = 1; bands <= 3; bands++) options.add(Math.ceil(n / bands));
  } else {
    for (let rows = 1; rows <= n; rows++) options.add(Math.ceil(n / rows));
  }
  return [...options];
}

// A new plan (a game dealt, the window resized): the places across, and the largest
// card, that fit. Among places across giving the same card, fans get the fewest across
// (more room to grow rightwards), columns the most (more room to grow down). When
// nothing fits the height, the width alone decides (the page then scrolls).
export function plan(table, space, metrics) {
  let best = null;
  for (const columns of choices(table)) {
    const found =
      largest(table, columns, space, metrics, true) || largest(table, columns, space, metrics, false);
    if (!found) continue;
    const better =
      !best ||
      found.width > best.width + 0.01 ||
      (Math.abs(found.width - best.width) <= 0.01 &&
        (table.layout === "fan" ? columns < best.columns : columns > best.columns));
    if (better) best = found;
  }
  if (best) return { ...best, fits: true };
  // too little height for any table: as wide as the width allows, and scroll
  const tall = { width: space.width, height: Infinity };
  for (const columns of choices(table)) {
    const found = largest(table, columns, tall, metrics, false, 72);
    if (found && (!best || found.width > best.width + 0.01)) best = found;
  }
  return best && { ...best, fits: false };
}

// The same places across as planned, the cards as large as planned at most: tighter
// overlaps first, then smaller cards, as the piles grow.
export function refit(table, space, metrics, planned) {
  const found = largest(table, planned.columns, space, metrics, false, planned.width);
  if (found) return { ...found, fits: true };
  const tall = { width: space.width, height: Infinity };
  const wide = largest(table, planned.columns, tall, metrics, false, planned.width);
  return wide && { ...wide, fits: false };
}
