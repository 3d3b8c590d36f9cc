// The friend call (RULES §12.4): the leader's dialog, and the call in flight with the
// server's refusal of it.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html, SuitSym } from "./ui.js";
import { t, tn } from "./i18n.js";
import { rulesHref } from "./rules.js";
import { callRanks, callText, ordinalText } from "./seats.js";
import { explain, RuleLink } from "./toasts.js";

/**
 * The leader's friend call (RULES §12.4), asked in phase "call": `shape.calls` friends,
 * each a card (no joker, not of the trump rank) and which copy of it played this round
 * counts (1st … d-th). The choices are this page's; the dialog itself comes from the
 * state, so a refresh brings it back. The server checks the call; its refusal is shown.
 */
export function CallDialog({ view, shape, hand, pending, error, onSend }) {
  const ranks = callRanks(view.trump_rank);
  const suits = ["S", "H", "D", "C"];
  const start = () =>
    Array.from({ length: shape.calls }, (_, i) => ({ rank: ranks[0], suit: suits[i % 4], ord: 1 + Math.floor(i / 4) }));
  const [rows, setRows] = useState(start);
  const set = (i, k, v) => setRows(rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  const held = (text) => hand.filter((c) => c.text === text).length;
  const ords = Array.from({ length: shape.decks }, (_, i) => i + 1);
  return html`<div class="call-dialog" id="call-dialog" role="dialog" aria-labelledby="call-title">
    <b id="call-title">${tn("call.title", shape.calls)}</b>
    <small class="muted">${t("call.explain", { d: shape.decks })} <a href=${rulesHref("12.4")}>${t("rules.see", { ref: "12.4" })}</a></small>
    <div class="call-rows">
      ${rows.map((r, i) => {
        const text = r.rank + r.suit;
        const mine = held(text);
        return html`<div class="call-row" key=${i} data-call=${i}>
          <span class="call-n">${i + 1}.</span>
          <label><span class="sr-only">${t("call.which")}</span>
            <select class="call-ord" name=${"call-ord-" + i} aria-label=${t("call.which")} onChange=${(e) => set(i, "ord", Number(e.target.value))}>
              ${ords.map((j) => html`<option value=${j} selected=${j === r.ord}>${ordinalText(j)}</option>`)}
            </select></label>
          <label><span class="sr-only">${t("call.rank")}</span>
            <select class="call-rank" name=${"call-rank-" + i} aria-label=${t("call.rank")} onChange=${(e) => set(i, "rank", e.target.value)}>
              ${ranks.map((x) => html`<option value=${x} selected=${x === r.rank}>${x}</option>`)}
            </select></label>
          <span class="call-suits" role="radiogroup" aria-label=${t("call.suit")}>
            ${suits.map(
              (x) => html`<button type="button" role="radio" aria-checked=${x === r.suit ? "true" : "false"} class=${"btn small call-suit" + (x === r.suit ? " on" : "")} data-suit=${x}
                onClick=${() => set(i, "suit", x)}><${SuitSym} suit=${x} /></button>`,
            )}
          </span>
          <span class="call-say" data-card=${text} data-ord=${r.ord}>${callText(text, r.ord)}</span>
          ${mine > 0 && html`<small class="muted call-held">${t("call.you_hold", { n: mine })}</small>`}
        </div>`;
      })}
    </div>
    ${error && html`<div class="reason call-error" id="call-error" role="alert">${error.title}${error.detail ? " — " + error.detail : ""} <${RuleLink} ref_=${error.ref} /></div>`}
    <div class="modal-buttons">
      <button class="btn primary" id="call-btn" disabled=${pending} onClick=${() => onSend(rows.map((r) => [r.rank + r.suit, r.ord]))}>${t("call.send")}</button>
    </div>
  </div>`;
}

/**
 * Our friend call in flight (RULES §12.4): `doCall` sends it; the server's refusal of it
 * (`receive` takes the server's messages) is kept to show in the dialog. A call in flight
 * ends with the next state (the call made, or refused).
 */
export function useFriendCall({ phase, me, pending, setPending, act }) {
  const [callErr, setCallErr] = useState(null);
  const calling = useRef(false);
  const receive = useRef((m) => {
    if (m.type !== "error" || !calling.current) return;
    const e = explain(m.message, m.rule, m.code, m.facts);
    // the server's reason where the refusal has no words of its own (the generic code "illegal")
    setCallErr(e.detail || m.code !== "illegal" ? e : { ...e, detail: String(m.message || "").replace(/^RULES §[\d.]+:\s*/, "") });
  }).current;
  useEffect(() => {
    if (phase !== "call") calling.current = false;
  }, [phase]);
  const doCall = (calls) => {
    if (pending) return;
    setCallErr(null);
    calling.current = true;
    act(["call", me, calls]); // RULES §12.4: ["call", seat, [["AS", 2], ...]]
    setPending(true);
  };
  return { callErr, doCall, receive };
}
