// The card counter (记牌器, issue 32): at a table whose host turned it on, the state's view
// carries `counter` (docs/WEB_PROTOCOL.md), computed by the server from public information
// and this seat's own hand only (shengji.counter). This panel only shows it.
import { html, Card, SuitSym } from "./ui.js";
import { t } from "./i18n.js";
import { parseCard, SUITS } from "./cards.js";


export function CounterPanel({ counter, seatName }) {
  if (!counter) return null;
  const suits = counter.suits || {};
  const row = (key, label) => {
    const s = suits[key];
    if (!s || !s.total) return null; // a suit with no plain cards (all trumps)
    return html`<li class="cc-suit" data-suit=${key} data-out=${s.out}>
      <span class="cc-label">${label}</span>
      <b class="cc-out">${s.out}</b>
      <small class="muted">${t("counter.of", { played: s.played, total: s.total })}</small>
    </li>`;
  };
  return html`<details class="side-box" id="card-counter" open>
    <summary><h3>${t("counter.title")} <small class="muted">${t("counter.points_out", { points: counter.points_out })}</small></h3></summary>
    <p class="muted small-p">${t("counter.hint")}</p>
    <ul class="cc-suits">
      ${row("T", t("counter.trumps"))}
      ${SUITS.map((s) => row(s, html`<${SuitSym} suit=${s} />`))}
    </ul>
    <ul class="cc-top" aria-label=${t("counter.top")}>
      ${(counter.top_trumps || []).map(
        (c) => html`<li class=${"cc-card" + (c.out ? "" : " gone")} data-card=${c.card} data-out=${c.out}>
          <${Card} card=${parseCard(c.card)} size="xs" />
          <b>×${c.out}</b>
          ${Object.entries(c.held || {}).map(([seat, n]) => html`<small class="muted cc-held">${t("counter.held", { name: seatName(Number(seat)), n })}</small>`)}
        </li>`,
      )}
    </ul>
  </details>`;
}
