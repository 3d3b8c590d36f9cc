// A seat at the table: its player (or bot), team or side, level, cards left, badges,
// its turn clock, and the host's controls (bots, kick, swap, seat links).
import { html, teamLetter } from "./ui.js";
import { t } from "./i18n.js";
import { Robot, CardsIcon } from "./icons.js";
import { ringSpot, spotStyle, sideOf, seatRange, posOf } from "./seats.js";
import { ClockBar } from "./clock.js";

/** A seat's shown name: the player's own, or the bot's kind (localized) and seat number. */
export function displayName(s, seat) {
  if (s.kind && s.kind !== "human") return t("bot.name", { kind: t(`bot.${s.kind}`), n: seat + 1 });
  return s.name || t("seat.label", { n: seat + 1 });
}

/** The name of seat `seat` at `table` (its `seats`): "Seat n" where the table has none there. */
export function seatLabel(table, seat) {
  const s = table && table.seats ? table.seats[seat] : null;
  return s ? displayName(s, seat) : t("seat.label", { n: seat + 1 });
}

export function SeatPanel({ seat, pos, spot, shape, table, view, me, isHost, waiting, swapFrom, onSit, onBot, onKick, onSwap, onLink, canSit, dl, now }) {
  const s = table.seats ? table.seats[seat] : null;
  const team = seat % 2;
  const friends = shape.friends;
  // Friends mode (RULES §12.4): no fixed teams; the side once the view says it.
  const side = friends ? sideOf(view, seat) : null;
  const name = s ? displayName(s, seat) : t("seat.empty");
  const level = view && view.levels ? view.levels[friends ? seat : team] ?? "2" : "2";
  const turn = view && view.to_act === seat && !view.game_over && view.phase !== "deal";
  const nCards = view && view.hand_sizes ? view.hand_sizes[seat] : null;
  const isBot = s && s.kind && s.kind !== "human";
  const badges = [];
  if (view && view.starter === seat && view.phase !== "deal" && !friends) badges.push(["starter", t("seat.starter")]);
  // RULES §3.4: not the declaring team. In friends mode the leader's own declaration
  // needs no badge beside "Leader" (a smaller seat at a table of ten).
  if (view && view.declarer === seat && !(friends && side === "leader")) badges.push(["declarer", t("seat.declarer"), t("seat.declarer.hint")]);
  if (s && s.vacant) badges.push(["vacant", t("seat.vacant")]);
  else if (s && s.kind === "human" && s.connected === false) badges.push(["offline", t("seat.offline")]);
  if (table.host_seat === seat) badges.push(["host", t("seat.host")]);
  // How often this round a stand-in acted for the seat (its time ran out, or it was away).
  const standins = view ? ((table.standins || []).filter((m) => m.seat === seat && m.round === view.round_no)).length : 0;
  if (standins > 0) badges.push(["standin", t("seat.standin", { n: standins })]);
  const cls = [
    "seat",
    `seat-${pos}`,
    friends ? `side-${side || "unknown"}` : `team${team}`,
    turn ? "turn" : "",
    me === seat ? "me" : "",
    s ? "" : "empty",
    swapFrom === seat ? "swap-from" : "",
  ].join(" ");
  return html`<div class=${cls} data-seat=${seat} data-pos=${pos} data-side=${side || ""} style=${spot ? spotStyle(spot) : null}>
    <div class="seat-head">
      <span class="avatar" aria-hidden="true">${s ? (isBot ? html`<${Robot} />` : name.slice(0, 1).toUpperCase()) : "+"}</span>
      <span class="seat-name">${name}</span>
      ${me === seat && html`<span class="you">${t("seat.you")}</span>`}
    </div>
    <div class="seat-meta">
      ${friends
        ? side && side !== "opponent" && html`<span class=${"chip side-chip side-" + side}>${t(`side.${side}`)}</span>`
        : html`<span class=${"chip team-chip team" + team}>${teamLetter(team)}</span>`}
      <span class="chip lv-chip-seat">${t("info.level_short", { level })}</span>
      ${nCards != null && !waiting && html`<span class="chip cards-chip" title=${t("seat.cards")}><${CardsIcon} /> ${nCards}</span>`}
    </div>
    ${badges.length > 0 && html`<div class="badges">${badges.map(([k, label, hint]) => html`<span class=${"badge badge-" + k} title=${hint || null}>${label}</span>`)}</div>`}
    ${dl && dl.seat === seat && html`<${ClockBar} dl=${dl} now=${now} id=${"clock-seat-" + seat} />`}
    ${canSit && !s && html`<button class="btn primary small sit-btn" onClick=${() => onSit(seat)}>${t("seat.sit")}</button>`}
    ${isHost &&
    waiting &&
    html`<div class="host-ctl">
      ${(!s || isBot) &&
      html`<button class="btn small bot-btn" data-kind="random" title=${t("host.bot_random")} onClick=${() => onBot(seat, "random")}><${Robot} /> ${t("bot.random")}</button>
        <button class="btn small bot-btn" data-kind="heuristic" title=${t("host.bot_heuristic")} onClick=${() => onBot(seat, "heuristic")}><${Robot} /> ${t("bot.heuristic")}</button>
        ${html`<button class="btn small bot-btn" data-kind="fast" title=${t("host.bot_fast")} onClick=${() => onBot(seat, "fast")}><${Robot} /> ${t("bot.fast")}</button>
        <button class="btn small bot-btn" data-kind="expert" title=${t("host.bot_expert")} onClick=${() => onBot(seat, "expert")}><${Robot} /> ${t("bot.expert")}</button>
        <button class="btn small bot-btn" data-kind="master" title=${t("host.bot_master")} onClick=${() => onBot(seat, "master")}><${Robot} /> ${t("bot.master")}</button>`}`}
      ${s && table.host_seat !== seat && html`<button class="btn small danger kick-btn" onClick=${() => onKick(seat)}>${t("host.kick")}</button>`}
      <button class="btn small swap-btn" title=${t("host.swap_hint")} onClick=${() => onSwap(seat)}>⇄</button>
    </div>`}
    ${isHost &&
    table.status === "playing" &&
    s &&
    table.host_seat !== seat &&
    html`<div class="host-ctl">
      ${s.kind === "human" && !s.vacant
        ? html`<button class="btn small danger kick-btn" onClick=${() => onKick(seat)}>${t("host.kick")}</button>`
        : html`<button class="btn small link-btn" onClick=${() => onLink(seat)}>${t("host.seat_link")}</button>
            ${s.vacant && html`<button class="btn small bot-btn" data-kind="heuristic" onClick=${() => onBot(seat, "heuristic")}><${Robot} /> ${t("bot.heuristic")}</button>`}`}
    </div>`}
  </div>`;
}

/**
 * The felt: every seat around it (the own seat at the bottom; a ring at larger tables,
 * RULES §12.1) and `children` in the middle. `seating` is the table's useSeating.
 */
export function Felt({ st, shape, me, seating, send, dl, now, children }) {
  const { table, view } = st;
  const waiting = table.status === "waiting";
  const bottom = me ?? 0;
  return html`<div class=${"felt" + (shape.n !== 4 ? ` ring ring-${shape.n}` : "")} data-players=${shape.n}>
    ${seatRange(shape.n).map(
      (seat) => html`<${SeatPanel}
        key=${seat}
        seat=${seat}
        pos=${posOf(seat, bottom, shape.n)}
        spot=${shape.n !== 4 && !waiting ? ringSpot(seat, bottom, shape.n) : null}
        shape=${shape}
        table=${table}
        view=${view}
        me=${me}
        isHost=${st.is_host}
        waiting=${waiting}
        swapFrom=${seating.swapFrom}
        canSit=${me == null}
        onSit=${seating.sit}
        onBot=${(s, kind) => send({ type: "bot", seat: s, kind })}
        onKick=${(s) => send({ type: "kick", seat: s })}
        onLink=${(s) => send({ type: "seat_link", seat: s })}
        onSwap=${seating.onSwap}
        dl=${dl}
        now=${now}
      />`,
    )}
    ${children}
  </div>`;
}
