// The player's hand: its order on screen (sorted by suit, trumps on the right, or
// as the player arranged it), the row layout and the throw penalty stated before a
// throw (RULES §5, §6.4). The forced play auto-play makes is the engine's (`view.forced`).
import { useState, useRef, useLayoutEffect } from "../vendor/preact-hooks.mjs";
import { html, Card } from "./ui.js";
import { t } from "./i18n.js";
import { playSuit, cardLevel, RANKS } from "./cards.js";

const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3, T: 4 };

/**
 * Indices of `cards` in display order. mode "trumps": play suits (RULES §5.1),
 * trumps on the right, low to high; mode "suit": natural suits, rank order,
 * jokers last (the trump-rank cards stay in their own suit).
 */
export function sortOrder(cards, trump, mode = "trumps") {
  const key = (c) => {
    if (mode === "suit") {
      if (c.joker) return [5, c.red ? 1 : 0];
      return [SUIT_ORDER[c.suit], RANKS.indexOf(c.rank)];
    }
    const ps = playSuit(c, trump);
    return [SUIT_ORDER[ps], cardLevel(c, trump), c.suit ? SUIT_ORDER[c.suit] : 9];
  };
  const keys = cards.map(key);
  return cards
    .map((_, i) => i)
    .sort((a, b) => {
      const x = keys[a];
      const y = keys[b];
      for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return x[k] - y[k];
      return cards[a].text.localeCompare(cards[b].text) || a - b;
    });
}

/** Display order with the player's own arrangement (card texts) applied; new cards go last. */
export function arrange(cards, sorted, custom) {
  if (!custom || !custom.length) return sorted;
  const slots = new Map();
  custom.forEach((txt, k) => {
    if (!slots.has(txt)) slots.set(txt, []);
    slots.get(txt).push(k);
  });
  const pos = new Map();
  for (const i of sorted) {
    const q = slots.get(cards[i].text);
    pos.set(i, q && q.length ? q.shift() : Infinity);
  }
  const rank = new Map(sorted.map((i, k) => [i, k]));
  return [...sorted].sort((a, b) => pos.get(a) - pos.get(b) || rank.get(a) - rank.get(b));
}

/** Move the card at display position `from` to position `to`. */
export function moveCard(order, from, to) {
  const out = [...order];
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x);
  return out;
}

/**
 * What a failed throw of n cards would cost at this table (RULES §6.4, options
 * throw_penalty and throw_penalty_per_card): the points per card and the most it can cost.
 */
export function throwCost(n, options) {
  const per = Number(options && options.throw_penalty_per_card != null ? options.throw_penalty_per_card : 10);
  const mode = (options && options.throw_penalty) || "returned";
  const cards = mode === "none" ? 0 : mode === "attempted" ? n : Math.max(0, n - 1);
  return { per: mode === "none" ? 0 : per, max: cards * per, mode };
}

function cssPx(name, fallback) {
  const v = parseFloat(getComputedStyle(document.documentElement).getPropertyValue(name));
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/**
 * Lay the hand out in as few rows as fit the width: each card shows at least its
 * corner index; a gap separates play suits.
 */
export function layoutHand(n, gaps, width, cw) {
  const minStep = cw * 0.42;
  const maxStep = cw * 0.64;
  const gapW = cw * 0.3;
  if (!n) return { rows: [], step: maxStep, gapW };
  for (let r = 1; r <= 6; r++) {
    const k = Math.ceil(n / r);
    const rows = [];
    for (let i = 0; i < n; i += k) rows.push([i, Math.min(n, i + k)]);
    let worst = Infinity;
    for (const [lo, hi] of rows) {
      const g = gaps.slice(lo + 1, hi).filter(Boolean).length;
      const cards = hi - lo;
      const step = cards > 1 ? (width - cw - g * gapW) / (cards - 1) : maxStep;
      worst = Math.min(worst, step);
    }
    if (worst >= minStep || r === 6) return { rows, step: Math.max(Math.min(maxStep, worst), 4), gapW };
  }
  return null;
}

/**
 * The hand on screen. `order` lists hand indices in display order; a card keeps
 * its hand index in data-index, and its element is keyed by the card itself. In
 * reorder mode a click picks a card and a second click puts it there; cards can
 * also be dragged (onMove(from, to) in display positions).
 */
export function Hand({ hand, order, selected, selectable, trumpFn, groupOf, suitOf, marks, onToggle, onMove, reorder }) {
  const ref = useRef(null);
  const [width, setWidth] = useState(0);
  const [picked, setPicked] = useState(null);
  const drag = useRef(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    setWidth(el.clientWidth);
    const ro = new ResizeObserver((entries) => setWidth(entries[0].contentRect.width));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const cw = cssPx("--cw-lg", 70);
  // Each card's element is keyed by the card (its text and which copy), not its index:
  // when the hand changes under a click (a card played, the kitty taken), an element
  // never starts showing another card, so a click always reaches the card it was aimed at.
  const copies = new Map();
  const ids = hand.map((c) => {
    const k = copies.get(c.text) || 0;
    copies.set(c.text, k + 1);
    return `${c.text}#${k}`;
  });
  const shown = order.map((i) => hand[i]);
  const gaps = shown.map((c, k) => k > 0 && groupOf(c) !== groupOf(shown[k - 1]));
  const lay = layoutHand(shown.length, gaps, Math.max(width - 4, cw), cw);
  const click = (k) => {
    if (!reorder) return onToggle(order[k]);
    if (picked == null) setPicked(k);
    else {
      if (picked !== k) onMove(picked, k);
      setPicked(null);
    }
  };
  return html`<div class=${"hand-wrap" + (reorder ? " reordering" : "")}>
    <div class=${"hand" + (selectable || reorder ? " selectable" : "")} id="hand" ref=${ref} role="group" aria-label=${t("hand.label")} data-count=${hand.length}>
      ${lay.rows.map(
        ([lo, hi], r) => html`<div class="hand-row" key=${r}>
          ${shown.slice(lo, hi).map((c, j) => {
            const k = lo + j;
            const i = order[k];
            const ml = j === 0 ? 0 : lay.step - cw + (gaps[k] ? lay.gapW : 0);
            return html`<${Card}
              key=${ids[i]}
              index=${i}
              card=${c}
              size="lg"
              style=${`margin-left:${ml.toFixed(1)}px`}
              selected=${selected.includes(i) || picked === k}
              trump=${trumpFn(c)}
              gap=${gaps[k]}
              mark=${marks.has(i)}
              playSuit=${suitOf(c)}
              onClick=${() => click(k)}
              draggable=${true}
              onDragStart=${(e) => {
                drag.current = k;
                e.dataTransfer.effectAllowed = "move";
                e.dataTransfer.setData("text/plain", String(k));
              }}
              onDragOver=${(e) => e.preventDefault()}
              onDrop=${(e) => {
                e.preventDefault();
                const from = drag.current;
                drag.current = null;
                if (from != null && from !== k) onMove(from, k);
              }}
            />`;
          })}
        </div>`,
      )}
    </div>
  </div>`;
}
