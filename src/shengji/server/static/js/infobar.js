// The bar over the felt: the round, the trump, each team's level (or, in friends mode,
// every player's), the points the opponents took, and the way back to the last summary.
import { html, SuitSym, teamLetter } from "./ui.js";
import { t } from "./i18n.js";
import { trumpOf } from "./cards.js";
import { shapeOf, sideOf, seatRange, teamNames } from "./seats.js";

function TrumpBadge({ view }) {
  const tr = trumpOf(view);
  if (!view) return null;
  if (tr.final && tr.noTrump) {
    return html`<b class="trump-badge" id="trump">${tr.rank ? html`<span class="tr-rank">${tr.rank}</span>` : null}<span class="no-trump">${t("trump.none")}</span></b>`;
  }
  return html`<b class=${"trump-badge" + (tr.final || !tr.suit ? "" : " tentative")} id="trump" data-rank=${tr.rank || ""} data-suit=${tr.suit || ""} title=${tr.final ? "" : t("trump.undecided")}>
    <span class="tr-rank">${tr.rank || "—"}</span>
    ${tr.suit ? html`<${SuitSym} suit=${tr.suit} />` : html`<span class="tr-unknown" title=${t("trump.undecided")}>?</span>`}
  </b>`;
}

/** Whose points the counter shows, from this player's side (RULES §7): only the opponents score. */
export function pointsLabel(view, me) {
  if (me == null || view.declaring_team == null) return t("info.opp_points");
  return me % 2 === view.declaring_team ? t("info.opp_points") : t("info.our_points");
}

/**
 * Friends mode (RULES §12.4): every player's own level, in the bar; the leader and the
 * joined friends marked as the view says.
 */
function PlayerLevels({ view, n, seatName, me }) {
  const levels = view.levels || [];
  return html`<div class="ib levels-ib" id="levels-bar">
    <small>${t("info.levels")}</small>
    <span class="lv-row">
      ${seatRange(n).map((seat) => {
        const side = sideOf(view, seat);
        const name = seatName(seat);
        return html`<span class=${"lv-chip side-" + (side || "unknown") + (me === seat ? " me" : "")} data-seat=${seat} data-level=${levels[seat] ?? ""}
          title=${name + " · " + t("info.level_short", { level: levels[seat] ?? "—" }) + (side ? " · " + t(`side.${side}`) : "")}>
          <i>${name}</i><b>${levels[seat] ?? "—"}</b></span>`;
      })}
    </span>
  </div>`;
}

export function InfoBar({ view, me, seatName, onSummary }) {
  if (!view) return null;
  const levels = view.levels || ["2", "2"];
  const dt = view.declaring_team;
  const shape = shapeOf(view.options);
  if (shape.friends) {
    return html`<div class="infobar friends-bar">
      <div class="ib"><small>${t("info.round")}</small><b id="round-no">${(view.round_no ?? 0) + 1}</b></div>
      <div class="ib"><small>${t("info.trump")}</small><${TrumpBadge} view=${view} /></div>
      <div class="ib points-ib"><small id="points-label">${pointsLabel(view, me)}</small><b id="opp-points">${view.opponents_points ?? 0}</b></div>
      <${PlayerLevels} view=${view} n=${shape.n} seatName=${seatName} me=${me} />
      ${view.last_result && html`<button class="btn small ghost" id="summary-btn" onClick=${onSummary}>${t("summary.open")}</button>`}
    </div>`;
  }
  return html`<div class="infobar">
    <div class="ib"><small>${t("info.round")}</small><b id="round-no">${(view.round_no ?? 0) + 1}</b></div>
    <div class="ib"><small>${t("info.trump")}</small><${TrumpBadge} view=${view} /></div>
    ${[0, 1].map(
      (team) => html`<div class=${"ib team-ib team" + team + (dt === team ? " declaring" : "")} title=${teamNames(team, shape.n, seatName)}>
        <small>${teamLetter(team)}${dt === team ? html` <span class="decl-flag">${t("info.declarers")}</span>` : ""}</small>
        <b title=${t("info.level_short", { level: levels[team] })}><span class="lv-long">${t("info.level_short", { level: levels[team] })}</span><span class="lv-num">${levels[team]}</span></b>
      </div>`,
    )}
    <div class="ib points-ib"><small id="points-label">${pointsLabel(view, me)}</small><b id="opp-points">${view.opponents_points ?? 0}</b></div>
    ${view.last_result && html`<button class="btn small ghost" id="summary-btn" onClick=${onSummary}>${t("summary.open")}</button>`}
  </div>`;
}
