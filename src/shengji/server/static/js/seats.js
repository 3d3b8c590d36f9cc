// Tables of RULES §12: 4-10 seats, teams or finding friends (找朋友). The table's shape
// from its options, where each seat sits around the felt, and the friend calls in words.
// Everything here reads the view and the table's options only: nothing hidden is inferred
// (RULES §11: who holds a called card is not known until it is played).
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { parseCard, prettyCards, RANKS } from "./cards.js";

export const MIN_PLAYERS = 4;
export const MAX_PLAYERS = 10;
export const MODES = ["teams", "friends"];
export const DECKS = [2, 3, 4, 5];

/** The default deck count for `players` seats (RULES §12: players // 2, at least 2). */
export function defaultDecks(players) {
  return Math.max(2, Math.floor(players / 2));
}

/** The modes a table of `players` may have (RULES §12.1: teams need an even table). */
export function modesFor(players) {
  return players % 2 === 0 ? MODES : ["friends"];
}

/**
 * A table's shape from its options (the view's or the table's `options`):
 * {n, mode, decks, friends: bool, calls: how many friends the leader calls, classic}.
 * `classic` is the four-player teams table of RULES §1-§11 (as the server's
 * `schema.classic`: the table of the seed rules, offered first).
 */
export function shapeOf(options) {
  const o = options || {};
  const n = Number.isInteger(o.players) ? o.players : 4;
  const mode = o.mode === "friends" ? "friends" : "teams";
  const decks = Number.isInteger(o.decks) ? o.decks : defaultDecks(n);
  return { n, mode, decks, friends: mode === "friends", calls: Math.floor(n / 2) - 1, classic: n === 4 && mode === "teams" };
}

/** "6 players · friends" (the lobby's line; null for the classic table). */
export function shapeText(shape) {
  if (shape.classic && shape.decks === defaultDecks(shape.n)) return null;
  const parts = [t("table.players_n", { n: shape.n }), t(`table.mode.${shape.mode}`)];
  if (shape.decks !== defaultDecks(shape.n)) parts.push(t("table.decks_n", { n: shape.decks }));
  return parts.join(" · ");
}

const POS = ["bottom", "right", "top", "left"];

/** The seats of a table of `n` (RULES §12.1: 0 … N−1 in play order). */
export function seatRange(n) {
  return Array.from({ length: n }, (_, i) => i);
}

/** Where a seat sits: one of POS at four seats (as always), "ring" at larger tables. */
export function posOf(seat, bottom, n) {
  return n === 4 ? POS[(seat - bottom + 4) % 4] : "ring";
}

/** The names of a team's seats (seats of the same parity, RULES §1, §12.2). */
export function teamNames(team, n, seatName, sep = " · ") {
  return seatRange(n).filter((s) => s % 2 === team).map(seatName).join(sep);
}

/**
 * Where seat `seat` sits around the felt, seen from `bottom` (the own seat, at the
 * bottom): {x, y} in 0..100 of the felt, play order going right, up, then left (the
 * seat after you is on your right, as at four seats). The points lie on a rounded
 * rectangle, so the seats use the felt's corners.
 */
export function ringSpot(seat, bottom, n, stretch = 1.25) {
  const a = (2 * Math.PI * (((seat - bottom) % n) + n)) / n;
  const clamp = (v) => Math.max(-1, Math.min(1, v));
  // a little less sideways than up and down: a corner seat keeps clear of the seat
  // below it in the side column
  const sx = stretch > 1 ? stretch - 0.1 : stretch;
  return { x: 50 + 50 * clamp(sx * Math.sin(a)), y: 50 + 50 * clamp(stretch * Math.cos(a)) };
}

/**
 * The style placing a box at a ring spot: `left/top` at the spot and the box shifted by
 * the same fraction of its own size, so a box at 0 or 100 stays inside the felt.
 */
export function spotStyle(spot) {
  return `left:${spot.x.toFixed(2)}%;top:${spot.y.toFixed(2)}%;transform:translate(-${spot.x.toFixed(2)}%,-${spot.y.toFixed(2)}%)`;
}

/** A seat's side as the view says it (friends mode): "leader", "friend", "opponent" or null. */
export function sideOf(view, seat) {
  const sides = view && Array.isArray(view.sides) ? view.sides : null;
  return sides ? sides[seat] ?? null : null;
}

/** The ordinal word: "1st", "2nd" … (RULES §12.4: the j-th copy played this round). */
export function ordinalText(j) {
  return t(`call.ordinal.${j}`);
}

/** "the 2nd A♠" */
export function callText(card, ordinal) {
  return t("call.card", { ord: ordinalText(ordinal), card: prettyCards([parseCard(card)]) });
}

/** One call's state in words, from the view's `calls` entry (docs/WEB_PROTOCOL.md). */
export function callStatus(call, seatName) {
  if (call.played_by != null && !call.spent) return t("call.joined", { name: seatName(call.played_by) });
  if (call.played_by != null) return t("call.spent_by", { name: seatName(call.played_by) });
  if (call.spent) return t("call.spent_kitty");
  return t("call.pending");
}

/**
 * The banner for everyone (friends mode): each call and whether its friend joined.
 * Before the calls are made, who is calling.
 */
export function FriendBanner({ view, seatName }) {
  const calls = (view && view.calls) || [];
  if (!view || !Array.isArray(view.calls)) return null;
  if (view.phase === "call") {
    return html`<div class="friend-banner" id="friend-banner" role="status"><span class="fb-item fb-wait">${t("call.waiting", { name: seatName(view.to_act) })}</span></div>`;
  }
  if (!calls.length) return null;
  return html`<div class="friend-banner" id="friend-banner" role="status" aria-live="polite">
    ${calls.map((c, i) => {
      const state = c.played_by != null && !c.spent ? "joined" : c.spent ? "spent" : "pending";
      return html`<span key=${i} class=${"fb-item fb-" + state} data-call=${i} data-state=${state}>
        <b>${t("call.banner", { call: callText(c.card, c.ordinal) })}</b> — <span class="fb-status">${callStatus(c, seatName)}</span>
      </span>`;
    })}
  </div>`;
}

/** The ranks a call may name (RULES §12.4: not the trump rank; jokers are never offered). */
export function callRanks(trumpRank) {
  return RANKS.filter((r) => r !== trumpRank).reverse();
}

