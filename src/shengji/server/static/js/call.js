// The friend call (RULES §12.4): the leader's dialog.
import { useState } from "../vendor/preact-hooks.mjs";
import { html, SuitSym } from "./ui.js";
import { t, tn } from "./i18n.js";
import { rulesHref } from "./rules.js";
import { callRanks, callText, ordinalText } from "./seats.js";
import { RuleLink } from "./toasts.js";

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
