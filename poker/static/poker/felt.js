/* The felt's geometry, shared by the live table (table.js) and the hand replayer
 * (replayer.js): where each seat sits around the oval, and where each bet chip and the
 * dealer button go. Load it before either (both are deferred, so they run in order). */
(function () {
  "use strict";

  // A narrow screen gets a portrait table (table.css) with its seats drawn further in.
  const NARROW = window.matchMedia("(max-width: 640px)");

  function seatPosition(index, count) {
    // Index 0 sits at the bottom centre; the others follow clockwise.
    const angle = Math.PI / 2 + (2 * Math.PI * index) / count;
    const rx = NARROW.matches ? 40 : 44;
    const ry = NARROW.matches ? 41 : 37;
    return { left: 50 + rx * Math.cos(angle), top: 50 + ry * Math.sin(angle) };
  }

  /** Puts each bet chip (and the dealer button) between its seat and the centre, just
   * clear of the seat's box, whatever size the box has on this screen: a fixed radius
   * hid the hero's bet under their own seat. */
  function placeChips(container) {
    const felt = container.getBoundingClientRect();
    if (!felt.width) return;
    const cx = felt.width / 2;
    const cy = felt.height / 2;
    const GAP = 6;
    for (const seat of container.querySelectorAll(".seat:not(.empty)")) {
      const number = seat.getAttribute("data-seat");
      const box = seat.getBoundingClientRect();
      const sx = box.left - felt.left + box.width / 2;
      const sy = box.top - felt.top + box.height / 2;
      const len = Math.hypot(cx - sx, cy - sy) || 1;
      const ux = (cx - sx) / len;
      const uy = (cy - sy) / len;
      // How far along (ux, uy) a w x h box centred there is clear of the seat's box.
      const clear = (w, h) =>
        Math.min(
          Math.abs(ux) > 1e-6 ? (box.width / 2 + w / 2 + GAP) / Math.abs(ux) : Infinity,
          Math.abs(uy) > 1e-6 ? (box.height / 2 + h / 2 + GAP) / Math.abs(uy) : Infinity,
        );
      let along = 0;
      const bet = container.querySelector(`.bet[data-seat="${number}"]`);
      if (bet) {
        const b = bet.getBoundingClientRect();
        along = clear(b.width, b.height);
        bet.style.left = `${sx + ux * along}px`;
        bet.style.top = `${sy + uy * along}px`;
      }
      const dealer = container.querySelector(`.dealer[data-seat="${number}"]`);
      if (dealer) {
        const d = dealer.getBoundingClientRect();
        // Beside the bet, or beside where a bet would be (turned a quarter clockwise), so
        // it never sits on the centre's text or a bet.
        const beside = bet ? bet.getBoundingClientRect().width / 2 : d.width / 2;
        const side = beside + d.width / 2 + GAP;
        let at = bet ? along : clear(d.width, d.height);
        // Shifted sideways it may reach a corner of the seat's box: move it in until clear.
        const x = () => sx + ux * at - uy * side;
        const y = () => sy + uy * at + ux * side;
        const touches = () =>
          Math.abs(x() - sx) < box.width / 2 + d.width / 2 + GAP &&
          Math.abs(y() - sy) < box.height / 2 + d.height / 2 + GAP;
        for (let i = 0; i < 40 && touches(); i++) at += 2;
        dealer.style.left = `${x()}px`;
        dealer.style.top = `${y()}px`;
      }
    }
  }

  window.PokerFelt = { NARROW, seatPosition, placeChips };
})();
