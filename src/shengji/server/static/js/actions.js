// The action bar under the felt: what the player is asked to do now (the prompt, with
// the turn clock) and its buttons (start, declare, pass, bury, play, clear, hint), the hand
// tools, the throw question, the friend call, and why a play is refused.
import { html, Cards } from "./ui.js";
import { t, tn } from "./i18n.js";
import { cardsText, legalDeclarations, declEntry } from "./cards.js";
import { HintButton, HintNote } from "./hint.js";
import { ClockBar } from "./clock.js";
import { RuleLink } from "./toasts.js";
import { winnerText } from "./summary.js";
import { CallDialog } from "./call.js";
import { HandTools } from "./prefs.js";
import { ThrowConfirm } from "./selection.js";

/** The prompt and the buttons of the action bar, for the table's state and phase now. */
function promptAndButtons({ st, shape, me, myTurn, pending, play, hint, swapFrom, seatName, send, act }) {
  const table = st.table;
  const view = st.view;
  const phase = view ? view.phase : null;
  const waiting = !table || table.status === "waiting";
  const decls = me != null && view ? legalDeclarations(view) : [];
  const standing = view && view.declarations && view.declarations.length ? declEntry(view.declarations[view.declarations.length - 1]) : null;
  const { lead, selCards, kittySize } = play;
  let prompt = "";
  const buttons = [];
  if (waiting) {
    const filled = (table.seats || []).filter(Boolean).length;
    if (me == null) prompt = t("wait.pick_seat");
    else if (filled < shape.n) prompt = tn("wait.waiting", shape.n - filled);
    else prompt = st.is_host ? t("wait.full_host") : t("wait.full");
    if (st.is_host) {
      buttons.push(html`<button key="start" class="btn primary" id="start-btn" disabled=${filled < shape.n} onClick=${() => send({ type: "start" })}>${t("host.start")}</button>`);
      if (swapFrom != null) prompt = t("host.swap_pick", { name: seatName(swapFrom) });
    }
  } else if (!view) {
    prompt = t("app.connecting");
  } else if (view.game_over) {
    prompt = winnerText(view, shape, seatName);
  } else if (phase === "deal" || phase === "declare") {
    prompt = phase === "deal" ? t("deal.prompt") : t("deal.final_prompt");
    if (me == null) prompt = t("deal.dealing");
    for (const d of decls) {
      const label = standing ? t("deal.overturn") : t("deal.declare");
      buttons.push(html`<button key=${"decl " + cardsText(d)} class="btn decl-btn ${standing ? "warn" : "primary"}" data-cards=${cardsText(d)} onClick=${() => act(["declare", me, cardsText(d)])}>
        ${label} <${Cards} cards=${d} size="xs" overlap=${false} />
      </button>`);
    }
    if (phase === "declare" && myTurn) buttons.push(html`<button key="pass" class="btn" id="pass-btn" onClick=${() => act(["pass", me])}>${t("deal.pass")}</button>`);
  } else if (phase === "kitty") {
    if (myTurn) {
      prompt = kittySize === 8 ? t("kitty.prompt", { n: selCards.length }) : t("kitty.prompt_k", { n: selCards.length, k: kittySize });
      buttons.push(html`<button key="bury" class="btn primary" id="bury-btn" disabled=${selCards.length !== kittySize || pending} onClick=${play.doBury}>${t("kitty.bury")}</button>`);
    } else prompt = t("kitty.exchanging", { name: seatName(view.starter) });
  } else if (phase === "call") {
    prompt = myTurn ? tn("call.prompt", shape.calls) : t("call.waiting", { name: seatName(view.to_act) });
  } else if (phase === "play") {
    if (myTurn) {
      prompt = lead ? tn("play.follow", lead.length) : t("play.lead");
      buttons.push(html`<button key="play" class="btn primary" id="play-btn" disabled=${!play.playable} onClick=${() => play.doPlay()}>${t("play.play")}</button>`);
    } else prompt = t("play.waiting", { name: seatName(view.to_act) });
  }
  // Always there while cards can be chosen (disabled when none is): a button that came
  // and went with the selection moved the hand under the player's next click.
  if (me != null && view && !view.game_over && (phase === "play" || (phase === "kitty" && myTurn))) {
    buttons.push(html`<button key="clear" class="btn ghost" id="clear-btn" disabled=${!play.sel.length} onClick=${() => play.setSel([])}>${t("play.clear")}</button>`);
  }
  const hintable = (myTurn && (phase === "play" || phase === "kitty")) || ((phase === "deal" || phase === "declare") && decls.length > 0);
  buttons.push(html`<${HintButton} key="hint" state=${hint} enabled=${!!(hintable && me != null && table.settings && table.settings.hints)} />`);
  return { prompt, buttons };
}

/**
 * The action bar; `play`, `prefs`, `hint` and `call` are the table's hooks (useHandSelection,
 * usePrefs, useHint, useFriendCall).
 */
export function ActionBar(props) {
  const { st, shape, me, myTurn, pending, play, prefs, hint, call, dl, now, trumpFn } = props;
  const view = st.view;
  const waiting = st.table.status === "waiting";
  const { prompt, buttons } = promptAndButtons(props);
  return html`<div class=${"actions" + (myTurn ? " my-turn" : "")}>
    <div class="prompt" id="prompt">${prompt}${myTurn && dl && dl.seat === me && html` <${ClockBar} dl=${dl} now=${now} id="clock-mine" />`}</div>
    <div class="buttons">${buttons}</div>
    ${me != null && !waiting && !view?.game_over && html`<${HandTools} prefs=${prefs} />`}
    ${play.confirmThrow && html`<${ThrowConfirm} play=${play} me=${me} view=${view} trumpFn=${trumpFn} />`}
    ${view &&
    view.phase === "call" &&
    myTurn &&
    html`<${CallDialog} key=${"call-" + view.round_no} view=${view} shape=${shape} hand=${props.hand} pending=${pending} error=${call.callErr} onSend=${call.doCall} />`}
    ${play.reason && html`<div class="reason" id="reason">${play.reason} <${RuleLink} ref_=${play.reasonRef} /></div>`}
    ${play.note && html`<div class="note" id="note">${play.note}</div>`}
    <${HintNote} state=${hint} />
  </div>`;
}
