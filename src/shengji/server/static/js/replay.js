// Replay page: /games/{id}. Round by round, trick by trick; once the game is over
// the server also gives every dealt hand, so the hands are shown as they shrink.
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html, Cards, SuitSym, teamLetter } from "./ui.js";
import { t } from "./i18n.js";
import { cardList, trickOf, playSuit, cardLevel, declEntry, prettyCards } from "./cards.js";
import { displayName } from "./table.js";
import { First, Prev, Next, Last, Robot } from "./icons.js";
import { ReviewPanel } from "./review.js";
import { shapeOf, ringSpot, spotStyle } from "./seats.js";

const POS = ["bottom", "right", "top", "left"];
const SUIT_ORDER = { S: 0, H: 1, D: 2, C: 3, T: 4 };

function sortHand(cards, trump) {
  return [...cards].sort(
    (a, b) =>
      SUIT_ORDER[playSuit(a, trump)] - SUIT_ORDER[playSuit(b, trump)] ||
      cardLevel(a, trump) - cardLevel(b, trump) ||
      a.text.localeCompare(b.text),
  );
}

function minus(cards, remove) {
  const out = [...cards];
  for (const c of remove) {
    const i = out.findIndex((x) => x.text === c.text);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

export function Replay({ id }) {
  const [data, setData] = useState(null);
  const [info, setInfo] = useState(null);
  const [err, setErr] = useState(null);
  const [ri, setRi] = useState(0);
  const [ti, setTi] = useState(0);

  useEffect(() => {
    (async () => {
      try {
        const [r1, r2] = await Promise.all([
          fetch(`/api/tables/${encodeURIComponent(id)}/replay`),
          fetch(`/api/tables/${encodeURIComponent(id)}`),
        ]);
        if (r2.ok) setInfo(await r2.json());
        if (r1.status === 409) return setErr(t("replay.not_started"));
        if (r1.status === 404) return setErr(t("table.not_found"));
        if (!r1.ok) return setErr(`HTTP ${r1.status}`);
        const d = await r1.json();
        setData(d);
      } catch (e) {
        setErr(String(e));
      }
    })();
  }, [id]);

  const seatName = (s) => {
    if (s == null) return "—";
    const seat = info && info.seats ? info.seats[s] : null;
    return seat ? displayName(seat, s) : t("seat.label", { n: s + 1 });
  };

  if (err) return html`<main class="replay"><p>${err}</p><a class="btn" href="/">${t("over.lobby")}</a></main>`;
  if (!data) return html`<main class="replay"><p class="muted">${t("app.loading")}</p></main>`;
  const steps = data.steps || [];
  const round = steps[ri];
  if (!round) return html`<main class="replay"><p class="muted">${t("replay.empty")}</p></main>`;
  const trump = {
    rank: round.trump_rank || null,
    suit: round.trump_suit || null,
    final: !!round.trump_final,
    noTrump: !!round.trump_final && !round.trump_suit,
  };
  const tricks = (round.tricks || []).map(trickOf);
  if (round.current_trick && (round.current_trick.plays || []).length) tricks.push(trickOf(round.current_trick));
  const shown = Math.min(ti, tricks.length);
  const trick = shown > 0 ? tricks[shown - 1] : null;
  const trumpFn = (c) => trump.final && playSuit(c, trump) === "T";

  // Hands as they were after the trick on show (finished games only).
  let hands = null;
  if (round.hands) {
    hands = round.hands.map((h, s) => {
      let cards = cardList(h);
      if (s === round.starter && round.kitty_taken) cards = minus([...cards, ...cardList(round.kitty_taken)], cardList(round.kitty));
      for (const tr of tricks.slice(0, shown)) for (const p of tr.plays) if (p.seat === s) cards = minus(cards, p.cards);
      return sortHand(cards, trump);
    });
  }
  const res = round.result;
  const go = (n) => setTi(Math.max(0, Math.min(tricks.length, n)));
  // RULES §12: N seats around the felt (seat 0 at the bottom), teams or finding friends
  const shape = shapeOf(info && info.options);
  const n = Math.max(shape.n, (info && info.seats ? info.seats.length : 0) || 4);
  const ring = n !== 4;
  const seats = Array.from({ length: n }, (_, i) => i);
  const sides = (res && res.sides) || round.sides || null; // friends mode: public, §12.4
  const posOf = (s) => (ring ? "ring" : POS[s]);
  const teamNames = (team) => seats.filter((s) => s % 2 === team).map(seatName).join(" & ");

  return html`<main class="replay" id="replay">
    <div class="table-title">
      <h1>${t("replay.title")}${info ? ` · ${info.name}` : ""}</h1>
      <span class=${"status status-" + data.status}>${t(`status.${data.status}`)}</span>
      ${data.winner != null && html`<span class="badge badge-starter">${shape.friends ? t("over.winner_player", { name: seatName(data.winner) }) : t("over.winner", { team: teamLetter(data.winner), names: teamNames(data.winner) })}</span>`}
    </div>
    <div class="replay-nav">
      <label>${t("replay.round")}
        <select value=${ri} onChange=${(e) => { setRi(Number(e.target.value)); setTi(0); }}>
          ${steps.map((s, i) => html`<option value=${i} selected=${i === ri}>${i + 1}</option>`)}
        </select>
      </label>
      <button class="btn small" onClick=${() => go(0)} id="replay-first" aria-label=${t("replay.first")} title=${t("replay.first")}><${First} /></button>
      <button class="btn small" id="replay-prev" onClick=${() => go(shown - 1)} aria-label=${t("replay.prev")} title=${t("replay.prev")}><${Prev} /></button>
      <b id="replay-pos">${t("replay.trick", { n: shown, total: tricks.length })}</b>
      <button class="btn small" id="replay-next" onClick=${() => go(shown + 1)} aria-label=${t("replay.next")} title=${t("replay.next")}><${Next} /></button>
      <button class="btn small" onClick=${() => go(tricks.length)} id="replay-last" aria-label=${t("replay.last")} title=${t("replay.last")}><${Last} /></button>
    </div>
    <div class="infobar">
      <div class="ib"><small>${t("info.trump")}</small><b class="trump-badge"><span>${trump.rank || ""}</span>${trump.suit ? html`<${SuitSym} suit=${trump.suit} />` : trump.final ? html`<span class="no-trump">${t("trump.none")}</span>` : "?"}</b></div>
      ${shape.friends
        ? html`<div class="ib levels-ib" id="replay-levels"><small>${t("info.levels")}</small><span class="lv-row">${seats.map(
            (s) => html`<span class=${"lv-chip side-" + ((sides && sides[s]) || "unknown")} data-seat=${s}><i>${seatName(s)}</i><b>${(round.levels || [])[s] ?? "—"}</b></span>`,
          )}</span></div>`
        : [0, 1].map(
            (team) => html`<div class=${"ib team-ib team" + team + (round.declaring_team === team ? " declaring" : "")}>
          <small>${teamLetter(team)}${round.declaring_team === team ? html` <span class="decl-flag">${t("info.declarers")}</span>` : ""}</small>
          <b>${t("info.level_short", { level: (round.levels || [])[team] })}</b>
        </div>`,
          )}
      <div class="ib starter-ib"><small>${t(shape.friends ? "side.leader" : "seat.starter")}</small><b title=${seatName(round.starter)}>${seatName(round.starter)}</b></div>
      ${!shape.friends && html`<div class="ib points-ib"><small>${t("info.opp_points")}</small><b>${tricks.slice(0, shown).reduce((s, tr) => s + (tr.winner != null && tr.winner % 2 !== round.declaring_team ? tr.points : 0), 0)}</b></div>`}
    </div>
    <div class=${"felt replay-felt" + (ring ? ` ring ring-${n}` : "")}>
      ${seats.map(
        (s) => html`<div class=${`seat seat-${posOf(s)} ${shape.friends ? "side-" + ((sides && sides[s]) || "unknown") : "team" + (s % 2)}${trick && trick.winner === s ? " turn" : ""}`}
          data-seat=${s} style=${ring ? spotStyle(ringSpot(s, 0, n)) : null}>
          <div class="seat-head"><span class="seat-name">${seatName(s)}</span></div>
          <div class="seat-meta">${shape.friends
            ? sides && sides[s] && html`<span class=${"chip side-chip side-" + sides[s]}>${t(`side.${sides[s]}`)}</span>`
            : html`<span class=${"chip team-chip team" + (s % 2)}>${teamLetter(s % 2)}</span>`}</div>
          ${hands && !ring && html`<${Cards} cards=${hands[s]} size="xs" trumpOf=${trumpFn} />`}
        </div>`,
      )}
      <div class=${"trick" + (ring ? " ring-trick" : "")}>
        ${seats.map((s) => {
          const p = trick ? trick.plays.find((x) => x.seat === s) : null;
          return html`<div class=${"slot slot-" + posOf(s) + (trick && trick.winner === s ? " win" : "")} style=${ring ? spotStyle(ringSpot(s, 0, n, 1.1)) : null}>
            ${p && html`<${Cards} cards=${p.cards} size=${n > 6 ? "sm" : "md"} trumpOf=${trumpFn} />`}
            ${p && (round.standins || []).some((m) => m.trick === shown - 1 && m.seat === s) && html`<span class="standin-mark" title=${t("standin.played")}><${Robot} label=${t("standin.played")} /></span>`}
            ${p && trick.leader === s && html`<span class="slot-tag">${t("trick.lead")}</span>`}
            ${p && trick.winner === s && html`<span class="slot-tag win-tag">${t("trick.won", { points: trick.points })}</span>`}
          </div>`;
        })}
        <div class="trick-center">
          ${!trick &&
          html`<div class="deal-info">
            <b>${t("side.declarations")}</b>
            ${(round.declarations || []).map(declEntry).map((d) => html`<small>${seatName(d.seat)}: ${prettyCards(d.cards)}</small>`)}
            ${!(round.declarations || []).length && html`<small>${t("side.no_declarations")}</small>`}
          </div>`}
        </div>
      </div>
    </div>
    ${hands &&
    ring &&
    // a larger table's hands under the felt, each seat's in a row (RULES §12)
    html`<section class="side-box" id="replay-hands">
      ${seats.map((s) => html`<div class="mt-row" data-seat=${s}><span class="mt-name">${seatName(s)}</span><${Cards} cards=${hands[s]} size="xs" trumpOf=${trumpFn} /></div>`)}
    </section>`}
    ${res &&
    shown === tricks.length &&
    html`<section class="side-box" id="replay-result">
      <h3>${t("summary.title", { n: ri + 1 })}</h3>
      <p>${t("summary.opp_points")}: <b>${res.opponents_points}</b> · ${t("summary.kitty")}: <${Cards} cards=${cardList(res.kitty)} size="xs" overlap=${false} /></p>
      ${shape.friends
        ? html`<p>${seats.map((s) => html`<span class=${"chip side-chip side-" + ((sides && sides[s]) || "unknown")} data-seat=${s}>${seatName(s)} ${(res.levels_before || [])[s]} → ${(res.levels_after || [])[s]}</span> `)}</p>`
        : html`<p>${[0, 1].map((team) => html`<span class=${"chip team-chip team" + team}>${teamLetter(team)} ${(res.levels_before || [])[team]} → ${(res.levels_after || [])[team]}</span> `)}</p>`}
    </section>`}
    <${ReviewPanel} id=${id} ri=${ri} finished=${!!res} tricks=${tricks.length} seatName=${seatName} nSeats=${n} />
    ${(data.chat || []).length > 0 &&
    html`<section class="side-box chat-box" id="replay-chat">
      <h3>${t("chat.title")}</h3>
      <ul class="chat-list">
        ${data.chat.map(
          (x) => html`<li key=${x.n} class=${"chat-msg" + (x.seat == null ? " spectator" : " team" + (x.seat % 2))}>
            <b class="chat-who">${x.seat == null ? t("chat.spectator") : seatName(x.seat)}</b> <span class="chat-text">${x.reaction ? t(`reaction.${x.reaction}`) : x.text}</span>
          </li>`,
        )}
      </ul>
    </section>`}
    <a class="btn back-btn" href="/">${t("over.lobby")}</a>
  </main>`;
}
