// Tricks on the table: the one being played (or the last one won, or the declarations
// during the deal) around the middle of the felt, the last trick in the side panel, and
// the round so far: every trick with its leader, its winner and its points (the view
// carries the round's tricks, RULES §11), newest first.
import { html, Cards } from "./ui.js";
import { t } from "./i18n.js";
import { trickOf, declEntry } from "./cards.js";
import { Robot } from "./icons.js";
import { ringSpot, spotStyle, seatRange, posOf } from "./seats.js";
import { ClockBar } from "./clock.js";

/** The seats whose cards in trick `trick` of round `round` a stand-in played. */
function standinSeats(table, round, trick) {
  const out = new Set();
  for (const m of (table && table.standins) || []) if (m.round === round && m.trick === trick) out.add(m.seat);
  return out;
}

export function TrickArea({ view, table, bottom, n, seatName, trumpFn, dl, now }) {
  const cur = trickOf(view.current_trick);
  let trick = cur;
  let done = false;
  let trickNo = (view.tricks || []).length;
  if ((!cur || !cur.plays.length) && view.phase === "play" && view.tricks && view.tricks.length) {
    trick = trickOf(view.tricks[view.tricks.length - 1]);
    done = true;
    trickNo -= 1;
  }
  const standins = view.phase === "play" ? standinSeats(table, view.round_no, trickNo) : new Set();
  const slots = {};
  if (view.phase === "deal" || view.phase === "declare") {
    // Show each seat's latest declaration where it would play.
    for (const d of (view.declarations || []).map(declEntry)) slots[d.seat] = { cards: d.cards, decl: true };
  } else if (trick) {
    for (const p of trick.plays) slots[p.seat] = { cards: p.cards, lead: p.seat === trick.leader, win: done && p.seat === trick.winner };
  }
  const ring = n !== 4;
  return html`<div class=${"trick" + (done ? " done" : "") + (ring ? " ring-trick" : "")} id="trick">
    ${seatRange(n).map((seat) => {
      const pos = posOf(seat, bottom, n);
      const sl = slots[seat];
      // at a larger table each play lies between its seat and the middle (RULES §12.1)
      const style = ring ? spotStyle(ringSpot(seat, bottom, n, 1.1)) : null;
      return html`<div class=${"slot slot-" + pos + (sl && sl.win ? " win" : "")} data-seat=${seat} style=${style}>
        ${sl && html`<${Cards} cards=${sl.cards} size=${n > 6 ? "sm" : "md"} trumpOf=${trumpFn} />`}
        ${sl && standins.has(seat) && html`<span class="standin-mark" title=${t("standin.played")}><${Robot} label=${t("standin.played")} /></span>`}
        ${sl && sl.lead && html`<span class="slot-tag">${t("trick.lead")}</span>`}
        ${sl && sl.win && html`<span class="slot-tag win-tag">${t("trick.won", { points: trick.points })}</span>`}
        ${sl && sl.decl && html`<span class="slot-tag">${t("deal.declared")}</span>`}
      </div>`;
    })}
    <div class="trick-center">
      ${view.phase === "deal" && html`<div class="deal-info"><b>${t("deal.dealing")}</b><small id="cards-left">${t("deal.cards_left", { n: view.cards_left ?? 0 })}</small></div>`}
      ${view.phase === "declare" && html`<div class="deal-info"><b>${t("deal.last_chance")}</b>${dl && dl.kind === "window" && html`<${ClockBar} dl=${dl} now=${now} id="clock-window" />`}</div>`}
      ${view.phase === "kitty" && view.starter !== view.seat && html`<div class="deal-info"><b>${t("kitty.exchanging", { name: seatName(view.starter) })}</b></div>`}
      ${done && html`<div class="deal-info small"><small>${t("trick.last_won", { name: seatName(trick.winner) })}</small></div>`}
    </div>
  </div>`;
}

export function MiniTrick({ trick, seatName, trumpFn }) {
  if (!trick) return html`<p class="muted">—</p>`;
  return html`<div class="mini-trick">
    ${trick.plays.map(
      (p) => html`<div class=${"mt-row" + (p.seat === trick.winner ? " win" : "")}>
        <span class="mt-name">${p.seat === trick.winner ? "★ " : ""}${seatName(p.seat)}</span>
        <${Cards} cards=${p.cards} size="xs" trumpOf=${trumpFn} />
      </div>`,
    )}
    ${trick.winner != null && html`<small class="muted">${t("trick.won_by", { name: seatName(trick.winner), points: trick.points })}</small>`}
  </div>`;
}


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
