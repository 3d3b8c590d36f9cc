// The cards selected in the hand and what they may do: the engine's `check` of a play
// (the browser keeps no copy of the rules), the throw confirmation, auto-play of a
// forced play, the bury of the kitty; the throw question and the reason a play is refused.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html, Cards } from "./ui.js";
import { t } from "./i18n.js";
import { cardList, cardsText, prettyCards, trickOf } from "./cards.js";
import { rulesHref } from "./rules.js";
import { throwCost } from "./hand.js";
import { explain } from "./toasts.js";

function normCards(s) {
  return String(s || "")
    .split(/\s+/)
    .filter(Boolean)
    .map((x) => x.toUpperCase())
    .sort()
    .join(" ");
}

/** The kitty's size (RULES §4; §12.1 at larger tables): the cards the starter took. */
export function kittySizeOf(view) {
  return view && view.kitty_taken ? cardList(view.kitty_taken).length || 8 : 8;
}

/** Kitty cards marked in the starter's hand while exchanging (RULES §4): hand indices. */
function kittyMarks(view, hand) {
  const marks = new Set();
  if (view && view.phase === "kitty" && view.kitty_taken) {
    const used = new Set();
    for (const k of cardList(view.kitty_taken)) {
      for (let i = hand.length - 1; i >= 0; i--) {
        if (!used.has(i) && hand[i].text === k.text) {
          used.add(i);
          marks.add(i);
          break;
        }
      }
    }
  }
  return marks;
}

/**
 * The selection in `hand` (indices) for seat `me`, and the plays it allows. `receive`
 * takes the server's `check` replies (stable, safe in a long-lived handler); `autoplay`
 * makes the engine's forced play by itself.
 */
export function useHandSelection({ view, table, me, hand, myTurn, pending, setPending, act, send, autoplay }) {
  const [sel, setSel] = useState([]);
  const [checkRes, setCheckRes] = useState(null);
  const [confirmThrow, setConfirmThrow] = useState(false);
  const receive = useRef((m) => {
    if (m.type === "check") setCheckRes(m);
  }).current;
  const phase = view ? view.phase : null;
  useEffect(() => setSel([]), [cardsText(hand), phase]);

  const selIdx = sel.filter((i) => i < hand.length);
  const selCards = selIdx.map((i) => hand[i]);
  const selKey = normCards(cardsText(selCards));

  const curTrick = view ? trickOf(view.current_trick) : null;
  const lead = curTrick && curTrick.plays.length ? curTrick.plays[0].cards : null;
  // Whether the selection may be played is the engine's answer to `check` (RULES §6.1,
  // §6.2, §12.3, with the table's options): the browser keeps no copy of the rule.
  useEffect(() => {
    if (phase !== "play" || !myTurn || !selCards.length) return undefined;
    const timer = setTimeout(() => send({ type: "check", cards: cardsText(selCards) }), 60);
    return () => clearTimeout(timer);
  }, [selKey, phase, myTurn, curTrick ? curTrick.plays.length : -1]);

  // Auto-play (a per-player switch): when exactly one play is legal, make it; the engine
  // says which (`forced`, in this seat's own part of the view, RULES §6.2).
  const forcedNow = phase === "play" && myTurn && !pending;
  const forcedKey = forcedNow && view.forced ? cardsText(cardList(view.forced)) : "";
  useEffect(() => {
    if (!autoplay || !forcedKey) return undefined;
    const timer = setTimeout(() => {
      act(["play", me, forcedKey]);
      setPending(true);
    }, 700);
    return () => clearTimeout(timer);
  }, [autoplay, forcedKey, view && view.round_no, (view && view.tricks ? view.tricks.length : 0)]);

  // A throw confirmation belongs to the selection and the turn it was asked for.
  useEffect(() => setConfirmThrow(false), [selKey, phase, myTurn]);
  const throwGo = useRef(null);
  useEffect(() => {
    if (confirmThrow && throwGo.current) throwGo.current.focus(); // Enter throws
  }, [confirmThrow]);

  const server = checkRes && normCards(checkRes.cards) === selKey ? checkRes : null;
  const playable = !pending && phase === "play" && myTurn && selCards.length > 0 && !!(server && server.legal);
  let reason = null;
  let reasonRef = null;
  let note = null;
  // the engine's reading of a lead (RULES §6.1; with more decks a triple or a tractor of
  // triples is one unit, §12.3): a throw is several units
  const isThrow = playable && !lead && server.kind === "throw";
  const cost = throwCost(selCards.length, (view && view.options) || (table && table.options));
  if (phase === "play" && myTurn && selCards.length && !playable && !pending) {
    if (server && server.reason) {
      const e = explain(server.reason, server.rule, server.code, server.facts);
      reason = e.detail ? e.title + " — " + e.detail : e.title;
      reasonRef = e.ref;
    }
  } else if (isThrow) {
    note = t("play.throw_note");
  }

  const selectable = phase === "play" || (phase === "kitty" && myTurn);
  const toggle = (i) => {
    if (!selectable) return;
    setSel((xs) => (xs.includes(i) ? xs.filter((x) => x !== i) : [...xs, i]));
  };
  const doPlay = (confirmed = false) => {
    if (!playable) return;
    // A throw may fail and cost points (RULES §6.4): say so before it goes.
    if (isThrow && cost.max > 0 && confirmed !== true) {
      setConfirmThrow(true);
      return;
    }
    setConfirmThrow(false);
    act(["play", me, cardsText(selCards)]);
    setPending(true);
  };
  const kittySize = kittySizeOf(view);
  const doBury = () => {
    if (selCards.length !== kittySize || pending) return;
    act(["bury", me, cardsText(selCards)]);
    setPending(true);
  };
  return {
    sel,
    setSel,
    selIdx,
    selCards,
    selectable,
    toggle,
    marks: kittyMarks(view, hand),
    lead,
    server,
    playable,
    reason,
    reasonRef,
    note,
    cost,
    confirmThrow: confirmThrow && playable,
    cancelThrow: () => setConfirmThrow(false),
    throwGo,
    doPlay,
    kittySize,
    doBury,
    receive,
  };
}

/**
 * The throw question (RULES §6.4), inline in the bar that shows the turn clock: the clock
 * keeps running while the player reads, and the question goes away by itself when the
 * turn passes.
 */
export function ThrowConfirm({ play, me, view, trumpFn }) {
  const { server, cost } = play;
  return html`<div class="throw-confirm" id="throw-confirm" role="group" aria-labelledby="throw-title">
    <b id="throw-title">${t("throw.confirm_title")}</b>
    <span class="throw-cards"><${Cards} cards=${play.selCards} size="xs" overlap=${false} trumpOf=${trumpFn} /></span>
    ${server && server.units &&
    html`<small class="muted" id="throw-units">${t("throw.units", { units: server.units.map((u) => prettyCards(cardList(u))).join(" · ") })}</small>`}
    <p id="throw-text">${t(cost.mode === "attempted" ? "throw.confirm_attempted" : "throw.confirm_returned", { per: cost.per, max: cost.max })}</p>
    <p class="muted">${t(me != null && view && me % 2 === view.declaring_team ? "throw.confirm_decl" : "throw.confirm_opp")} <a href=${rulesHref("6.4")}>${t("rules.see", { ref: "6.4" })}</a></p>
    <div class="modal-buttons">
      <button class="btn" id="throw-cancel" onClick=${play.cancelThrow}>${t("throw.cancel")}</button>
      <button class="btn primary" id="throw-go" ref=${play.throwGo} onClick=${() => play.doPlay(true)}>${t("throw.go")}</button>
    </div>
  </div>`;
}
