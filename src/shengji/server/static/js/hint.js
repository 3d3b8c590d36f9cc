// The Hint at the table (issue 32): a button next to the play controls asks the server
// ({"type":"hint"}); the answer, sent to this connection only, selects the suggested
// cards in the hand and shows one short reason worded from the search's figures.
// The server refuses when hints are off, when it is not this seat's decision, or while a
// hint is in flight (those errors are toasts, as every refusal).
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html, Cards } from "./ui.js";
import { t, has } from "./i18n.js";
import { cardList } from "./cards.js";

/** The hand indices of `cards` (card texts), each card of the hand used at most once. */
export function pickCards(hand, cards) {
  const used = new Set();
  const out = [];
  for (const text of cards) {
    const i = hand.findIndex((c, j) => !used.has(j) && c.text === text);
    if (i < 0) return null; // not in this hand (a stale hint): select nothing
    used.add(i);
    out.push(i);
  }
  return out;
}

/** The reason in the player's language: the figures as shown numbers (a share as %). */
export function hintReason(reason) {
  if (!reason) return "";
  const f = reason.figures || {};
  const shown = {
    win: Math.round((f.win ?? 0) * 100),
    trick_points: Math.round(f.trick_points ?? 0),
    margin: (f.margin ?? 0).toFixed(1),
  };
  return has(reason.key) ? t(reason.key, shown) : String(reason.text || "");
}

/**
 * The hint's state for the table page: `receive(m)` takes the server's `hint` and
 * `error` messages (stable, safe in a long-lived handler); `seq` is the state's number
 * (a new position forgets a play's or bury's hint; a declaration's lasts the phase);
 * `setSel` selects hand indices.
 */
export function useHint({ send, seq, phase, hand, setSel }) {
  const [hint, setHint] = useState(null);
  const [asking, setAsking] = useState(false);
  const latest = useRef({});
  latest.current = { seq, hand, setSel };
  const receive = useRef((m) => {
    if (m.type === "error") {
      setAsking(false);
      return;
    }
    if (m.type !== "hint") return;
    setAsking(false);
    const cur = latest.current;
    // the game moved on meanwhile (a declaration's hint holds through the deal's draws)
    if (m.seq !== cur.seq && m.kind !== "declare") return;
    setHint(m);
    if (m.kind === "play" || m.kind === "bury") {
      const idx = pickCards(cur.hand, m.cards || []);
      if (idx) cur.setSel(idx);
    }
  }).current;
  useEffect(() => setHint((h) => (h && h.kind === "declare" ? h : null)), [seq]);
  useEffect(() => setHint(null), [phase]);
  const ask = () => {
    if (asking) return;
    setAsking(true);
    send({ type: "hint" });
  };
  return { hint, asking, ask, receive };
}

/** The Hint button (only where the table allows hints and the seat has a decision). */
export function HintButton({ state, enabled }) {
  if (!enabled) return null;
  return html`<button key="hint" type="button" class="btn ghost" id="hint-btn" title=${t("hint.title")}
    disabled=${state.asking} onClick=${state.ask}>${state.asking ? t("hint.thinking") : t("hint.button")}</button>`;
}

/** The last hint's suggestion (its cards; none: pass) and reason, under the controls. */
export function HintNote({ state }) {
  const h = state.hint;
  if (!h) return null;
  const cards = cardList(h.cards || []);
  return html`<div class="note hint-note" id="hint-note" data-kind=${h.kind} data-cards=${(h.cards || []).join(" ")}>
    <b>${t("hint.suggest")}</b> ${cards.length ? html`<${Cards} cards=${cards} size="xs" overlap=${false} />` : t("hint.pass")}
    <span class="hint-reason"> — ${hintReason(h.reason)}</span>
  </div>`;
}
