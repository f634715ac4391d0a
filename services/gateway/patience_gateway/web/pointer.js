// Mouse, pen and touch on the table, through pointer events: a press on a card picks
// it up (a press on a pile with cards picked up puts them there), and a press that
// moves drags the cards picked up and drops them on the pile it is let go over.
// A double press sends a card to a foundation. A click that no pointer made (a screen
// reader's "activate" on a pile) acts as Enter does on the focused pile.

const DRAG_THRESHOLD_PX = 6;

export class Pointer {
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.press = null; // {pile, index, x, y, id, picked, dragging, ghost}
    root.addEventListener("pointerdown", (event) => this.down(event));
    root.addEventListener("pointermove", (event) => this.move(event));
    root.addEventListener("pointerup", (event) => this.up(event));
    root.addEventListener("pointercancel", () => this.reset());
    root.addEventListener("dblclick", (event) => this.double(event));
    root.addEventListener("click", (event) => this.activate(event));
  }

  activate(event) {
    if (event.detail !== 0) return; // a pointer's press, already handled down and up
    const place = Pointer.place(event);
    if (place) this.actions.press(place.pile);
  }

  static place(event) {
    const target = event.target instanceof Element ? event.target : null;
    const pile = target?.closest(".pile");
    if (!pile) return null;
    const card = target.closest(".card");
    return { pile: pile.dataset.pile, index: card ? Number(card.dataset.index) : null, card };
  }

  down(event) {
    if (event.button !== 0) return;
    const place = Pointer.place(event);
    if (!place) {
      this.actions.cancel();
      return;
    }
    this.press = { ...place, x: event.clientX, y: event.clientY, id: event.pointerId };
  }

  move(event) {
    const press = this.press;
    if (!press || event.pointerId !== press.id) return;
    if (!press.dragging) {
      const far = Math.hypot(event.clientX - press.x, event.clientY - press.y);
      if (far < DRAG_THRESHOLD_PX || press.card == null) return;
      this.startDrag(press);
      if (!press.dragging) return;
    }
    press.ghost.style.transform = `translate(${event.clientX - press.x}px, ${event.clientY - press.y}px)`;
  }

  startDrag(press) {
    this.actions.pick(press.pile, press.index);
    const chosen = this.actions.dragging();
    if (!chosen || chosen.pile !== press.pile) return;
    const pile = this.root.querySelector(`.pile[data-pile="${press.pile}"]`);
    const cards = [...pile.querySelectorAll(".card")].slice(-chosen.count);
    const ghost = document.createElement("div");
    ghost.className = "ghost";
    for (const card of cards) {
      const rect = card.getBoundingClientRect();
      const copy = card.cloneNode(true);
      Object.assign(copy.style, {
        position: "fixed",
        left: `${rect.left}px`,
        top: `${rect.top}px`,
        width: `${rect.width}px`,
        height: `${rect.height}px`,
        margin: "0",
      });
      ghost.append(copy);
      card.classList.add("lifted");
    }
    document.body.append(ghost);
    press.ghost = ghost;
    press.dragging = true;
    try {
      this.root.setPointerCapture(press.id);
    } catch (error) {
      // the pointer is already gone: the drag ends at the next up or cancel
    }
  }

  up(event) {
    const press = this.press;
    if (!press || event.pointerId !== press.id) return;
    if (press.dragging) {
      const under = document.elementFromPoint(event.clientX, event.clientY);
      const pile = under?.closest("#table .pile");
      this.reset();
      if (pile && pile.dataset.pile !== press.pile) this.actions.drop(pile.dataset.pile);
      else this.actions.cancel();
      return;
    }
    this.reset();
    const place = Pointer.place(event);
    if (!place || place.pile !== press.pile) return;
    if (this.actions.dragging()) this.actions.drop(place.pile);
    else this.actions.pick(place.pile, place.index);
  }

  double(event) {
    const place = Pointer.place(event);
    if (place && place.card) {
      this.actions.cancel();
      this.actions.send(place.pile, place.index);
    }
  }

  reset() {
    if (this.press?.ghost) this.press.ghost.remove();
    for (const card of this.root.querySelectorAll(".card.lifted")) card.classList.remove("lifted");
    this.press = null;
  }
}
