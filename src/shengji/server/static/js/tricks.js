// The round so far: every trick with its leader, its winner and its points (the
// view carries the round's tricks, RULES §11), newest first.
import { html, Cards } from "./ui.js";
import { t } from "./i18n.js";
import { trickOf } from "./cards.js";

export function TrickHistory({ view, seatName, trumpFn, declTeam }) {
  const tricks = (view.tricks || []).map(trickOf);
  if (!tricks.length) return html`<p class="muted">${t("history.none")}</p>`;
  return html`<ol class="trick-history" id="trick-list" reversed>
    ${tricks
      .map((tr, k) => ({ tr, k }))
      .reverse()
      .map(
        ({ tr, k }) => html`<li class=${"th-item" + (tr.winner != null && declTeam != null && tr.winner % 2 !== declTeam && tr.points ? " scored" : "")} data-trick=${k + 1} data-winner=${tr.winner ?? ""} data-points=${tr.points}>
          <div class="th-head">
            <b>${t("history.trick", { n: k + 1 })}</b>
            <span class="th-win">★ ${seatName(tr.winner)}</span>
            <span class="th-pts">${t("history.points", { points: tr.points })}</span>
          </div>
          <div class="th-plays">
          ${tr.plays.map(
            (p) => html`<div class=${"mt-row" + (p.seat === tr.winner ? " win" : "")}>
              <span class="mt-name">${seatName(p.seat)}</span>
              <${Cards} cards=${p.cards} size="xs" overlap=${p.cards.length > 4} trumpOf=${trumpFn} />
            </div>`,
          )}
          </div>
        </li>`,
      )}
  </ol>`;
}
