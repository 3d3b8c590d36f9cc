// The round summary (and the game's end): the verdict, the points and the kitty, the
// levels before and after, the accuracy review; and when it shows by itself.
import { useState } from "../vendor/preact-hooks.mjs";
import { html, Cards, teamLetter } from "./ui.js";
import { t, tn } from "./i18n.js";
import { cardList } from "./cards.js";
import { SummaryAccuracy } from "./review.js";
import { shapeOf, seatRange, teamNames } from "./seats.js";
import { RuleLink } from "./toasts.js";

/**
 * Friends mode's part of the round summary (RULES §12.4): the leader and the friends who
 * joined, the verdict for the sides, and every player's level before and after.
 */
function FriendsSummary({ view, r, seatName }) {
  const n = (r.sides || []).length;
  const before = r.levels_before || [];
  const after = r.levels_after || view.levels || [];
  const gains = r.level_gains || [];
  const friendNames = (r.friends || []).map(seatName).join(", ") || t("summary.no_friends");
  let verdict;
  if (r.levels_gained > 0) verdict = tn(r.gainer === "declarers" ? "summary.gain_leader" : "summary.gain_opponents", r.levels_gained);
  else if (r.next_starter != null && r.sides && r.sides[r.next_starter] === "opponent") verdict = t("summary.takeover_friends", { name: seatName(r.next_starter) });
  else verdict = t("summary.no_change");
  const sp = r.side_points || [];
  return html`<div class="friends-summary">
    <p class="muted" id="sum-leader">${t("summary.leader_was", { name: seatName(r.leader ?? r.starter), friends: friendNames })}</p>
    <p class="verdict">${verdict}</p>
    ${sp.length === 2 && html`<p class="muted" id="sum-sides">${t("summary.side_points", { leader: sp[0], opp: sp[1] })}</p>`}
    <table class="levels-table per-player" id="sum-levels">
      <thead><tr><th></th><th>${t("summary.before")}</th><th>${t("summary.after")}</th></tr></thead>
      <tbody>
        ${seatRange(n).map((seat) => {
          const side = r.sides[seat];
          return html`<tr class=${"side-" + side} data-seat=${seat}>
            <th><span class=${"chip side-chip side-" + side}>${t(`side.${side}`)}</span> <small>${seatName(seat)}</small></th>
            <td>${before[seat] ?? "—"}</td><td><b>${after[seat] ?? "—"}</b>${gains[seat] ? html` <small class="gain">+${gains[seat]}</small>` : null}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

/**
 * The round summary. `docked`: it opened by itself over the next deal, so it is a panel at
 * the side, not a modal: the deal, the hand and the declare buttons stay in reach.
 */
export function Summary({ view, seatName, onClose, tableId, docked }) {
  const r = view.result || view.last_result;
  const shape = shapeOf(view.options);
  const friends = Array.isArray(r.sides);
  const before = r.levels_before || [];
  const after = r.levels_after || view.levels || [];
  const declTeam = r.declaring_team ?? (r.starter != null ? r.starter % 2 : 0);
  const oppTeam = 1 - declTeam;
  const gainerTeam = r.gainer === "declarers" ? declTeam : oppTeam;
  let verdict;
  if (r.levels_gained > 0) verdict = tn("summary.gain", r.levels_gained, { team: teamLetter(gainerTeam) });
  else if (r.next_declaring_team != null && r.next_declaring_team !== declTeam) verdict = t("summary.takeover", { team: teamLetter(oppTeam) });
  else verdict = t("summary.no_change");
  const over = view.game_over;
  return html`<div class=${"modal-back" + (docked ? " docked" : "")} role=${docked ? "region" : "dialog"} aria-modal=${docked ? null : "true"} aria-labelledby="summary-title">
    <div class="modal summary" id="summary" data-docked=${docked ? "true" : "false"}>
      <h2 id="summary-title">${over ? t("over.title") : t("summary.title", { n: view.round_no })}</h2>
      ${!friends && html`<p class="muted">${t("summary.declarers_were", { team: teamLetter(declTeam), name: seatName(r.starter) })}</p>`}
      ${over && html`<p class="winner-line" id="winner">${winnerText(view, shape, seatName)}</p>`}
      ${friends ? html`<${FriendsSummary} view=${view} r=${r} seatName=${seatName} />` : html`<p class="verdict">${verdict}</p>`}
      <div class="sum-grid">
        <div class="sum-points"><small>${t("summary.opp_points")}</small><b id="sum-points">${r.opponents_points}</b>${!friends && oppTeam != null && html`<small>${teamLetter(oppTeam)}</small>`}</div>
        <div>
          <small>${t("summary.kitty")}</small>
          <${Cards} cards=${cardList(r.kitty)} size="sm" overlap=${false} />
          <small class="muted">${t("summary.kitty_points", { points: r.kitty_points ?? 0, mult: r.multiplier ?? 0, name: seatName(r.last_trick_winner) })}</small>
        </div>
      </div>
      ${r.penalties
        ? // RULES §6.4: a failed throw costs the thrower's side; \`penalties\` is its net effect on the
          // opponents' points (added when the declarers threw, taken off when the opponents did).
          html`<p class="muted" id="sum-penalties">${t(r.penalties > 0 ? "summary.penalties_decl" : "summary.penalties_opp", {
            team: friends ? t(r.penalties > 0 ? "side.leader_side" : "side.opponents") : teamLetter(r.penalties > 0 ? declTeam : oppTeam),
            points: (r.penalties > 0 ? "+" : "−") + Math.abs(r.penalties),
          })} <${RuleLink} ref_="6.4" /></p>`
        : null}
      ${!friends &&
      html`<table class="levels-table">
        <thead><tr><th></th><th>${t("summary.before")}</th><th>${t("summary.after")}</th></tr></thead>
        <tbody>
          ${[0, 1].map(
            (team) => html`<tr class=${"team" + team}>
              <th><span class=${"chip team-chip team" + team}>${teamLetter(team)}</span> <small>${teamNames(team, shape.n, seatName)}</small></th>
              <td>${before[team] ?? "—"}</td><td><b>${after[team] ?? "—"}</b></td>
            </tr>`,
          )}
        </tbody>
      </table>`}
      ${!over && r.next_starter != null && html`<p>${t(friends ? "summary.next_leader" : "summary.next_starter", { name: seatName(r.next_starter) })}</p>`}
      <${SummaryAccuracy} tableId=${tableId} round=${view.result ? view.round_no + 1 : view.round_no} seatName=${seatName} />
      <div class="modal-buttons">
        ${over && html`<a class="btn" href=${"/games/" + encodeURIComponent(tableId)}>${t("over.replay")}</a>`}
        ${over && html`<a class="btn" href="/">${t("over.lobby")}</a>`}
        <button class="btn primary" id="summary-close" onClick=${onClose}>${over ? t("app.close") : t("summary.continue")}</button>
      </div>
    </div>
  </div>`;
}

/** Who won the game (RULES §9): a team, or a player in friends mode (§12.4). */
export function winnerText(view, shape, seatName) {
  if (shape.friends) return t("over.winner_player", { name: seatName(view.winner) });
  return t("over.winner", { team: teamLetter(view.winner), names: teamNames(view.winner, shape.n, seatName, " & ") });
}

/**
 * Whether the last round's summary shows: it opens by itself over the next deal (docked,
 * at the side) and at the game's end, until closed; the info bar's button opens it again.
 */
export function useSummary(view) {
  const [summaryClosed, setSummaryClosed] = useState(null);
  const [summaryOpen, setSummaryOpen] = useState(false);
  const phase = view ? view.phase : null;
  const resKey = view && view.last_result ? `${view.round_no}` : null;
  const show = view && view.last_result && (summaryOpen || (summaryClosed !== resKey && (phase === "deal" || phase === "declare" || view.game_over)));
  return {
    show,
    docked: !!show && !view.game_over && !summaryOpen && (phase === "deal" || phase === "declare"),
    open: () => setSummaryOpen(true),
    close: () => {
      setSummaryOpen(false);
      setSummaryClosed(resKey);
    },
  };
}
