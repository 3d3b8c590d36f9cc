// The side panel beside the felt: the chat, the points taken, the last trick, the card
// counter, the round's tricks, the declarations, the kitty, failed throws, the replay.
import { html, Cards } from "./ui.js";
import { t } from "./i18n.js";
import { cardList, prettyCards, declEntry, declStrength, trickOf } from "./cards.js";
import { CounterPanel } from "./counter.js";
import { MiniTrick, TrickHistory } from "./tricks.js";
import { pointsLabel } from "./infobar.js";

/** A declaration's strength in words (RULES §3.3; k of a kind with more decks, §12.1). */
function declLabel(cards) {
  if (cards.length > 2 && cards.every((c) => c.text === cards[0].text)) {
    return t(cards[0].joker ? "decl.strength.jokers_k" : "decl.strength.k", { n: cards.length });
  }
  return t(`decl.strength.${declStrength(cards)}`);
}

/** A failed throw of the view (RULES §6.4), from its list or object form. */
function failedThrowOf(f) {
  if (Array.isArray(f)) {
    const [seat, attempted, forced, blocker, shown, penalty] = f;
    return { seat, attempted: cardList(attempted), forced: cardList(forced), blocker, shown: cardList(shown), penalty };
  }
  return {
    seat: f.seat,
    attempted: cardList(f.attempted),
    forced: cardList(f.forced),
    blocker: f.blocker,
    shown: cardList(f.shown),
    penalty: f.penalty,
  };
}

/** The side panel while the table plays; `chat` is the table's chat (a TableChat). */
export function SidePanel({ id, table, view, me, chat, seatName, trumpFn }) {
  const phase = view.phase;
  const failed = view.failed_throws ? view.failed_throws : [];
  const lastTrick = view.tricks && view.tricks.length ? trickOf(view.tricks[view.tricks.length - 1]) : null;
  const pointCards = cardList(view.point_cards);
  const kitty = cardList(view.kitty);
  return html`<aside class="side">
    ${chat}
    <section class="side-box" id="points-box">
      <h3>${pointsLabel(view, me)} <b class="big-num">${view.opponents_points ?? 0}</b></h3>
      <${Cards} cards=${pointCards} size="xs" />
    </section>
    <section class="side-box" id="last-trick">
      <h3>${t("side.last_trick")}</h3>
      <${MiniTrick} trick=${lastTrick} seatName=${seatName} trumpFn=${trumpFn} />
    </section>
    <${CounterPanel} counter=${view.counter} seatName=${seatName} />
    <details class="side-box" id="trick-history">
      <summary><h3>${t("history.title")} <b>${(view.tricks || []).length}</b></h3></summary>
      <${TrickHistory} view=${view} seatName=${seatName} trumpFn=${trumpFn} declTeam=${view.declaring_team} />
    </details>
    <section class="side-box" id="declarations">
      <h3>${t("side.declarations")}</h3>
      ${(view.declarations || []).length
        ? html`<ul class="decl-list">
            ${(view.declarations || []).map(declEntry).map(
              (d, i, all) => html`<li class=${i === all.length - 1 ? "standing" : ""}>
                <span>${seatName(d.seat)}</span><${Cards} cards=${d.cards} size="xs" overlap=${false} />
                <small class="muted">${declLabel(d.cards)}</small>
              </li>`,
            )}
          </ul>`
        : html`<p class="muted">${view.kitty_flip && cardList(view.kitty_flip).length ? t("side.kitty_flip") : t("side.no_declarations")}</p>`}
      ${view.kitty_flip && cardList(view.kitty_flip).length > 0 && html`<${Cards} cards=${cardList(view.kitty_flip)} size="xs" overlap=${false} />`}
    </section>
    ${kitty.length > 0 &&
    html`<section class="side-box" id="kitty-box">
      <h3>${phase === "play" || phase === "kitty" ? t("side.your_kitty") : t("side.kitty")}</h3>
      <${Cards} cards=${kitty} size="xs" overlap=${false} trumpOf=${trumpFn} />
    </section>`}
    ${failed.length > 0 &&
    html`<section class="side-box" id="failed-box">
      <h3>${t("side.failed_throws")}</h3>
      ${failed.slice(-3).map(failedThrowOf).map(
        (f) => html`<p class="small-p">${t("throw.failed", { name: seatName(f.seat) })}<br /><small class="muted">${t("throw.detail", {
          forced: prettyCards(f.forced),
          blocker: seatName(f.blocker),
          shown: prettyCards(f.shown),
          penalty: Math.abs(f.penalty ?? 0), // the thrower's side pays this (RULES §6.4)
        })}</small></p>`,
      )}
    </section>`}
    ${table.status === "finished"
      ? html`<a class="btn" href=${"/games/" + encodeURIComponent(id)}>${t("over.replay")}</a>`
      : html`<a class="btn small ghost" id="replay-so-far" href=${"/games/" + encodeURIComponent(id)} target="_blank" rel="noopener">${t("lobby.replay")}</a>`}
  </aside>`;
}
