// Taking a seat: the player's name, sitting down, the host's seat swaps, and seat links
// (a link made for a seat; one used mid-game is a claim that waits for an opponent's yes
// or the round's end, docs/WEB_PROTOCOL.md). The notices they show, and the waiting room's
// middle of the felt.
import { useState, useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { getName, saveName } from "./lobby.js";

/**
 * The seating's state and actions; `receive` takes the server's `seat_link`, `seated` and
 * `claim_pending` messages (stable, safe in a long-lived handler).
 */
export function useSeating({ id, send, toast }) {
  const [name, setName] = useState(getName());
  const [swapFrom, setSwapFrom] = useState(null);
  const [seatLink, setSeatLink] = useState(null);
  const [claim, setClaim] = useState(() => new URLSearchParams(location.search).get("seat"));
  // a seat link used mid-game waits for an opponent's yes or the round's end (docs/WEB_PROTOCOL.md)
  const [claimWait, setClaimWait] = useState(null);
  const receive = useRef((m) => {
    if (m.type === "seat_link") {
      const url = `${location.origin}/t/${encodeURIComponent(id)}?seat=${encodeURIComponent(m.code)}`;
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
      setSeatLink(url);
    } else if (m.type === "seated") {
      setClaim(null);
      setClaimWait(null);
    } else if (m.type === "claim_pending") setClaimWait(m);
  }).current;
  const sit = (seat) => {
    const n = name.trim();
    if (!n) {
      toast("error", t("seat.need_name"));
      document.getElementById("name-input")?.focus();
      return;
    }
    saveName(n);
    send({ type: "sit", seat, name: n });
  };
  const doClaim = () => {
    const n = name.trim();
    if (!n) return toast("error", t("seat.need_name"));
    saveName(n);
    send({ type: "claim", code: claim, name: n });
    history.replaceState(null, "", location.pathname);
  };
  const onSwap = (seat) => {
    if (swapFrom == null) setSwapFrom(seat);
    else {
      if (swapFrom !== seat) send({ type: "swap", a: swapFrom, b: seat });
      setSwapFrom(null);
    }
  };
  return { name, setName, sit, swapFrom, onSwap, seatLink, closeSeatLink: () => setSeatLink(null), claim, claimWait, doClaim, receive };
}

/** The seat link just made, an opponent's claim to answer, our own claim waiting or to make. */
export function SeatNotices({ seating, table, me, send }) {
  const { seatLink, claim, claimWait, name, setName } = seating;
  return html`${seatLink &&
    html`<div class="invite seat-link"><small>${t("host.seat_link_made")}</small>
      <input readonly value=${seatLink} onFocus=${(e) => e.target.select()} />
      <button class="btn small ghost" onClick=${seating.closeSeatLink}>×</button></div>`}
    ${(table.claims || [])
      .filter((c) => me != null && c.team === me % 2 && c.seat !== me)
      .map((c) => html`<div class="invite claim-ask" role="alert" data-seat=${c.seat}><small>${t("seat.claim_ask", { name: c.name, n: c.seat + 1 })}</small>
        <button class="btn primary small claim-accept" onClick=${() => send({ type: "accept_claim", seat: c.seat, accept: true })}>${t("seat.claim_accept")}</button>
        <button class="btn small ghost claim-refuse" onClick=${() => send({ type: "accept_claim", seat: c.seat, accept: false })}>${t("seat.claim_refuse")}</button></div>`)}
    ${claimWait &&
    me == null &&
    html`<div class="invite claim-wait" id="claim-wait" role="status"><small>${t(claimWait.waiting_for === "acceptance" ? "seat.claim_wait_accept" : "seat.claim_wait_round", { n: claimWait.seat + 1 })}</small></div>`}
    ${claim &&
    !claimWait &&
    me == null &&
    table.status === "playing" &&
    html`<div class="invite claim"><small>${t("seat.claim_hint")}</small>
      <input id="claim-name" value=${name} maxlength="24" placeholder=${t("seat.name_ph")} onInput=${(e) => setName(e.target.value)} />
      <button class="btn primary small" id="claim-btn" onClick=${seating.doClaim}>${t("seat.claim")}</button></div>`}`;
}

/** The middle of the felt while the table waits: the name to sit with, the invite, the timer, the chat. */
export function WaitCenter({ seating, table, chat }) {
  return html`<div class="wait-center">
    <label class="field name-field">
      <span>${t("seat.your_name")}</span>
      <input id="name-input" value=${seating.name} maxlength="24" placeholder=${t("seat.name_ph")} onInput=${(e) => seating.setName(e.target.value)} />
    </label>
    <div class="invite">
      <small>${t("wait.invite")}</small>
      <input readonly value=${location.href} onFocus=${(e) => e.target.select()} />
    </div>
    <p class="muted timer-note" id="timer-note">${table.settings && table.settings.turn_s > 0 ? t("wait.timer", { n: table.settings.turn_s }) : t("wait.no_timer")}</p>
    ${chat}
  </div>`;
}
