// The review panel on the replay page (issue 32): for a chosen seat and a finished
// round, GET /api/tables/{id}/review?seat=S&round=N (the server computes it in the bots'
// pool and caches it). Shown: the round's accuracy, a graph of the points lost trick by
// trick (inline SVG, with the seat's knowledge and with hindsight), and the marked
// decisions: the class badge, the loss in points (and levels), the better play drawn as
// cards and the reason, worded from the search's figures (analysis.reason.*).
// While a game is on, only the reviewed seat's own token gets the review (RULES §11).
// The review is asked with wait=false: while the server works it out (one decision at a
// time in the bots' pool) it answers 202 with its progress, shown as "analysing 12/27".
// `SummaryAccuracy` is the round summary's part: every human seat's accuracy
// (GET /api/tables/{id}/accuracy?round=N) and, where the review may be seen, a Review
// entry that opens this panel for that seat.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html, Cards } from "./ui.js";
import { t, has } from "./i18n.js";
import { cardList, prettyCards } from "./cards.js";
import { getToken } from "./net.js";

export const CLASSES = ["best", "good", "inaccuracy", "mistake", "blunder"];
const MARKED = new Set(["inaccuracy", "mistake", "blunder"]);

const pct = (x) => `${Math.round((x ?? 0) * 100)}%`;
const num = (x, d = 1) => Number(x ?? 0).toFixed(d);

/** A reading's reason in the player's language (English text from the server else). */
export function reasonText(reading) {
  const r = reading.reason || {};
  const best = reading.candidates[reading.best];
  const bestCards = best && best.cards.length ? prettyCards(cardList(best.cards)) : t("review.pass");
  const figures = {
    best: bestCards,
    loss_points: num(r.loss_points),
    loss_levels: num(r.loss_levels, 2),
    win_played: pct(r.win_played),
    win_best: pct(r.win_best),
    trick_points_played: num(r.trick_points_played, 0),
    trick_points_best: num(r.trick_points_best, 0),
  };
  return has(r.key) ? t(r.key, figures) : String(r.text || "");
}

/** Where a decision was: "Trick 3 · lead", "Bury", "Declaration". */
function where(d) {
  if (d.kind === "bury") return t("review.where.bury");
  if (d.kind === "declare") return t("review.where.declare");
  return t("review.where.play", { n: d.trick }) + " · " + (d.position === 0 ? t("trick.lead") : t("review.follow", { n: d.position }));
}

/**
 * Points lost per trick (index 0: before the first trick: declarations and the bury) and
 * their running total, for one reading ("knowledge" or "hindsight"); null if absent.
 */
export function lossSeries(decisions, reading, tricks) {
  const per = new Array(tricks + 1).fill(0);
  for (const d of decisions) {
    const r = d[reading];
    if (!r) return null;
    const x = d.kind === "play" ? Math.min(d.trick, tricks) : 0;
    per[x] += r.loss_points;
  }
  let run = 0;
  return { per, running: per.map((v) => (run += v)) };
}

/** The evaluation graph: bars of points lost per trick, a line of the running loss. */
export function LossGraph({ decisions, tricks }) {
  const k = lossSeries(decisions, "knowledge", tricks);
  const h = lossSeries(decisions, "hindsight", tricks);
  const W = 560, H = 150, L = 34, B = 22, T = 10, R = 8;
  const top = Math.max(10, ...k.running, ...(h ? h.running : [0]));
  const step = (W - L - R) / (tricks + 1);
  const x = (i) => L + step * (i + 0.5);
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const line = (s) => s.running.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const ticks = [0, top / 2, top];
  return html`<figure class="review-graph" id="review-graph">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${t("review.graph")}>
      ${ticks.map((v) => html`<g>
        <line x1=${L} x2=${W - R} y1=${y(v)} y2=${y(v)} class="grid" />
        <text x=${L - 4} y=${y(v) + 4} text-anchor="end" class="axis">${Math.round(v)}</text>
      </g>`)}
      ${k.per.map((v, i) => v > 0 && html`<rect class="bar" x=${x(i) - step * 0.3} width=${step * 0.6} y=${y(v)} height=${y(0) - y(v)} data-trick=${i}><title>${i === 0 ? t("review.graph_start") : t("review.where.play", { n: i })}: −${num(v)}</title></rect>`)}
      <polyline class="run run-knowledge" points=${line(k)} />
      ${h && html`<polyline class="run run-hindsight" points=${line(h)} />`}
      ${k.per.map((_, i) => (i === 0 || i % 5 === 0 || i === tricks) && html`<text x=${x(i)} y=${H - 6} text-anchor="middle" class="axis">${i === 0 ? "·" : i}</text>`)}
    </svg>
    <figcaption>
      <span class="key key-knowledge">${t("review.knowledge")}</span>
      ${h && html`<span class="key key-hindsight">${t("review.hindsight")}</span>`}
      <span class="muted">${t("review.graph")}</span>
    </figcaption>
  </figure>`;
}

function Verdict({ reading, label }) {
  const best = reading.candidates[reading.best];
  return html`<div class="review-verdict">
    <span class="muted">${label}</span>
    <span class=${"review-badge cls-" + reading.verdict}>${t(`review.class.${reading.verdict}`)}</span>
    ${reading.best !== reading.played && html`<span class="review-loss">${t("review.loss", { points: num(reading.loss_points), levels: num(reading.loss_levels, 2) })}</span>
      <span class="review-better">${t("review.better")} ${best.cards.length ? html`<${Cards} cards=${cardList(best.cards)} size="xs" overlap=${false} />` : t("review.pass")}</span>`}
  </div>`;
}

function DecisionRow({ d }) {
  const k = d.knowledge;
  return html`<li class=${"review-item cls-" + k.verdict} data-verdict=${k.verdict} data-hindsight=${d.hindsight ? d.hindsight.verdict : ""}>
    <div class="review-head">
      <b class="review-where">${where(d)}</b>
      ${d.played.length ? html`<${Cards} cards=${cardList(d.played)} size="xs" overlap=${false} />` : html`<span>${t("review.pass")}</span>`}
    </div>
    <${Verdict} reading=${k} label=${t("review.knowledge")} />
    <p class="review-reason">${reasonText(k)}</p>
    ${d.hindsight && html`<${Verdict} reading=${d.hindsight} label=${t("review.hindsight")} />`}
  </li>`;
}

const authHeaders = (id) => {
  const token = getToken(id);
  return token ? { Authorization: `Bearer ${token}` } : {};
};
const POLL_MS = 700; // how often a review being worked out is asked again
const later = (ms) => new Promise((res) => setTimeout(res, ms));

/** "analysing 12/27" (or "Analysing…" before the count is known). */
function analysing(done, total) {
  return total ? t("review.analysing", { done, total }) : t("review.loading");
}

/**
 * The whole panel for table `id`, round index `ri` (0-based) of `tricks` tricks (null: as
 * many as the review's last trick). `fixedSeat`: that seat only (no seat choice);
 * `autoload`: asked at once.
 */
export function ReviewPanel({ id, ri, finished, tricks, seatName, fixedSeat = null, autoload = false, nSeats = 4 }) {
  const [seat, setSeat] = useState(fixedSeat ?? 0);
  const [state, setState] = useState({ status: "idle" });
  const [all, setAll] = useState(false);
  const alive = useRef(true);
  useEffect(() => () => (alive.current = false), []);
  useEffect(() => {
    setState({ status: "idle" });
    if (autoload && finished) load();
  }, [id, ri, seat]);

  const load = async () => {
    setState({ status: "loading", done: 0, total: 0 });
    try {
      const url = `/api/tables/${encodeURIComponent(id)}/review?seat=${seat}&round=${ri + 1}&wait=false`;
      let r, body;
      for (;;) {
        r = await fetch(url, { headers: authHeaders(id) });
        body = await r.json().catch(() => ({}));
        if (!alive.current) return;
        if (r.status !== 202) break;
        setState({ status: "loading", done: body.done, total: body.total });
        await later(POLL_MS);
      }
      if (r.ok) return setState({ status: "done", review: body });
      const code = body.code;
      const msg = code === "round_unfinished" ? t("review.unfinished") : code === "review_own_seat" ? t("review.own_seat") : code === "rate_limited" ? t("review.rate") : t("review.error", { status: r.status });
      setState({ status: "error", msg });
    } catch (e) {
      setState({ status: "error", msg: String(e) });
    }
  };

  const rv = state.review;
  const decisions = rv ? rv.decisions : [];
  const nTricks = tricks ?? Math.max(1, ...decisions.map((d) => d.trick || 0));
  const marked = decisions.filter((d) => MARKED.has(d.knowledge.verdict) || (d.hindsight && MARKED.has(d.hindsight.verdict)));
  const shown = all ? decisions : marked;
  const counts = CLASSES.map((c) => [c, decisions.filter((d) => d.knowledge.verdict === c).length]);
  return html`<section class="side-box review-panel" id="review-panel">
    <h3>${t("review.title")}</h3>
    <div class="review-controls">
      ${fixedSeat == null
        ? html`<label>${t("review.seat")}
        <select id="review-seat" value=${seat} onChange=${(e) => setSeat(Number(e.target.value))}>
          ${Array.from({ length: nSeats }, (_, s) => s).map((s) => html`<option value=${s} selected=${s === seat}>${seatName(s)}</option>`)}
        </select>
      </label>`
        : html`<b class="review-seat-name">${seatName(seat)}</b>`}
      <button class="btn small" id="review-btn" disabled=${state.status === "loading" || !finished} onClick=${load}>
        ${state.status === "loading" ? analysing(state.done, state.total) : t("review.show", { n: ri + 1 })}
      </button>
      ${!finished && html`<small class="muted">${t("review.unfinished")}</small>`}
    </div>
    ${state.status === "error" && html`<p class="note review-error" id="review-error">${state.msg}</p>`}
    ${rv && html`<div class="review-body" id="review-body">
      <p class="review-accuracy" id="review-accuracy">
        <b>${t("review.accuracy", { value: rv.accuracy == null ? "—" : num(rv.accuracy) })}</b>
        ${rv.hindsight_accuracy != null && html` · ${t("review.hindsight_accuracy", { value: num(rv.hindsight_accuracy) })}`}
        <small class="muted"> · ${t("review.budget", { worlds: rv.budget.worlds, rollouts: rv.budget.rollouts })}</small>
      </p>
      <p class="review-counts">${counts.map(([c, n]) => html`<span class=${"review-badge cls-" + c} data-class=${c}>${t(`review.class.${c}`)} ${n}</span> `)}</p>
      ${decisions.length > 0 && html`<${LossGraph} decisions=${decisions} tricks=${nTricks} />`}
      <label class="review-all"><input type="checkbox" id="review-all" checked=${all} onChange=${(e) => setAll(e.target.checked)} /> ${t("review.all", { n: decisions.length })}</label>
      ${shown.length ? html`<ol class="review-list" id="review-list">${shown.map((d) => html`<${DecisionRow} key=${d.action_index} d=${d} />`)}</ol>` : html`<p class="muted" id="review-clean">${t(decisions.length ? "review.clean" : "review.none")}</p>`}
    </div>`}
  </section>`;
}

/**
 * The round summary's accuracy lines (issue 32): every human seat of table `tableId` in
 * round `round` (1-based), asked again while any is being analysed; a seat whose review
 * this client may see (its own, or any once the game is over) gets a Review entry that
 * opens the review panel under the lines.
 */
export function SummaryAccuracy({ tableId, round, seatName }) {
  const [rows, setRows] = useState(null);
  const [err, setErr] = useState(null);
  const [open, setOpen] = useState(null);
  useEffect(() => {
    let alive = true;
    let timer = null;
    setRows(null);
    setOpen(null);
    const poll = async () => {
      try {
        const r = await fetch(`/api/tables/${encodeURIComponent(tableId)}/accuracy?round=${round}`, { headers: authHeaders(tableId) });
        const body = await r.json().catch(() => ({}));
        if (!alive) return;
        if (r.status === 404) return setRows([]); // no such table (any more): no lines
        if (!r.ok) return setErr(r.status === 429 ? t("review.rate") : t("review.error", { status: r.status }));
        setErr(null);
        setRows(body.seats || []);
        if ((body.seats || []).some((s) => s.status === "analysing")) timer = setTimeout(poll, POLL_MS);
      } catch (e) {
        if (alive) setErr(String(e));
      }
    };
    poll();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [tableId, round]);
  if (err) return html`<p class="note" id="sum-accuracy-error">${err}</p>`;
  if (!rows || !rows.length) return null;
  return html`<section class="sum-accuracy" id="sum-accuracy">
    <h3>${t("summary.accuracy")}</h3>
    <ul class="sum-acc-list">
      ${rows.map((s) => html`<li class="sum-acc-row" data-seat=${s.seat} data-status=${s.status}>
        <b>${seatName(s.seat)}</b>
        ${s.status === "done"
          ? html`<span class="sum-acc-value">${t("review.accuracy", { value: s.accuracy == null ? "—" : num(s.accuracy) })}</span>${s.hindsight_accuracy != null && html`<span class="muted"> · ${t("review.hindsight_accuracy", { value: num(s.hindsight_accuracy) })}</span>`}`
          : s.status === "error"
            ? html`<span class="muted">${t("review.accuracy", { value: "—" })}</span>`
            : html`<span class="muted sum-acc-progress">${analysing(s.done, s.total)}</span>`}
        ${s.may_review && s.status === "done" && html`<button class=${"btn small" + (open === s.seat ? " primary" : "")} data-review-seat=${s.seat} aria-expanded=${open === s.seat ? "true" : "false"} onClick=${() => setOpen(open === s.seat ? null : s.seat)}>${t("summary.review")}</button>`}
      </li>`)}
    </ul>
    ${open != null && html`<${ReviewPanel} key=${open} id=${tableId} ri=${round - 1} finished=${true} tricks=${null} seatName=${seatName} fixedSeat=${open} autoload=${true} />`}
  </section>`;
}
