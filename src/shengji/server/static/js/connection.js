// The table's connection (net.js, docs/WEB_PROTOCOL.md): the state the server sent, the
// connection's status, an action in flight, and what a state's events sound and say;
// the banners for the connection and the table's own status (an error, a pause).
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { Connection, setToken, getToken } from "./net.js";
import { cardList, prettyCards } from "./cards.js";
import { sound, turnAlert } from "./feel.js";
import { callText } from "./seats.js";
import { seatLabel } from "./seatpanel.js";
import { explain } from "./toasts.js";

/**
 * Sounds and announcements, from the events the server sent with a state (what the
 * last action caused, as this seat may see it), never from comparing two views.
 */
function narrate(m, toast) {
  const evs = m.events || [];
  if (!evs.length) return;
  const me_ = m.view && m.view.seat != null ? m.view.seat : m.you;
  const nameOf = (seat) => seatLabel(m.table, seat);
  const won = evs.find((e) => e.type === "trick_won");
  if (won) sound(me_ != null && won.winner % 2 === me_ % 2 ? "win" : "card");
  else if (evs.some((e) => e.type === "played")) sound("card");
  for (const e of evs) {
    if (e.type !== "throw_failed") continue; // RULES §6.4
    sound("fail");
    toast(
      "info",
      t("throw.failed", { name: nameOf(e.seat) }),
      t("throw.detail", {
        forced: prettyCards(cardList(e.forced)),
        blocker: nameOf(e.blocker),
        shown: prettyCards(cardList(e.shown)),
        penalty: Math.abs(e.penalty ?? 0), // the thrower's side pays this (RULES §6.4)
      }),
    );
  }
  for (const e of evs) {
    // RULES §12.4: a friend is known once the trick holding the called copy ends
    if (e.type === "friend_joined") toast("info", t("call.joined_toast", { name: nameOf(e.seat), call: callText(String(e.card), e.ordinal) }));
  }
  const v = m.view;
  const actor = [...evs].reverse().find((e) => typeof e.seat === "number");
  if (v && me_ != null && v.to_act === me_ && !v.game_over && (v.phase === "play" || v.phase === "kitty" || v.phase === "call") && (!actor || actor.seat !== me_)) sound("turn");
}

/** A stand-in played for a seat whose time ran out: say so (marked on the cards too). */
function standinToast(m, toast) {
  for (const e of m.events || []) {
    if (e.by !== "standin" || !["played", "kitty_buried", "passed", "declared"].includes(e.type)) continue;
    toast("info", t(m.you === e.seat ? "standin.toast_you" : "standin.toast", { name: seatLabel(m.table, e.seat) }));
  }
}

/**
 * The connection to table `id`: `st` (the last `state` message, with `receivedAt`), `net`
 * (the connection's status), `send`, `act` (an action), and `pending` (an action sent, not
 * yet answered by a state or a refusal). Every message goes first to `receive.current`
 * (the other concerns' handlers: the hint, the check, chat, seat links, the friend call);
 * a refusal is a toast here.
 */
export function useTableConnection({ id, lang, toast, receive }) {
  const [st, setSt] = useState(null);
  const [net, setNet] = useState("connecting");
  const [pending, setPending] = useState(false);
  const conn = useRef(null);
  useEffect(() => {
    const c = new Connection(id, {
      lang,
      onStatus: setNet,
      onMessage: (m) => {
        if (receive.current) receive.current(m);
        if (m.type === "state") {
          setSt({ ...m, receivedAt: performance.now() });
          setPending(false);
          narrate(m, toast);
          standinToast(m, toast);
        } else if (m.type === "error") {
          setPending(false);
          if (/^invalid token/.test(m.message || "")) setToken(id, null);
          const e = explain(m.message, m.rule, m.code, m.facts);
          toast("error", e.title, e.detail, e.ref);
          sound("error");
        }
      },
    });
    conn.current = c;
    return () => c.close();
  }, [id]);
  useEffect(() => conn.current && conn.current.setLang(lang), [lang]);
  const send = (m) => conn.current && conn.current.send(m);
  const act = (action) => send({ type: "action", action });
  return { st, net, send, act, pending, setPending };
}

/** The turn alert (tab badge, optional notification): whose turn the view says it is. */
export function useTurnAlert(view, me) {
  useEffect(() => {
    if (!view) return;
    const mine = me != null && view.to_act === me && !view.game_over && (view.phase === "play" || view.phase === "kitty" || view.phase === "call");
    turnAlert(mine, t("feel.your_turn"));
  }, [view]);
  useEffect(() => () => turnAlert(false), []);
}

/** The page before the first state: connecting, refused, or no such table. */
export function Connecting({ net }) {
  return html`<main class="table-page"><div class="center-msg">
    ${net === "gone"
      ? html`<p>${t("table.not_found")}</p><a class="btn" href="/">${t("over.lobby")}</a>`
      : net === "refused" || net === "crowded"
        ? html`<p id="net-refusal" role="alert">${t("app." + net)}</p>`
        : html`<p class="muted">${t("app.connecting")}</p>`}
  </div></main>`;
}

/** The table's record as a download (the host's way out of a table in error). */
async function exportRecord(id, toast) {
  const r = await fetch(`/api/tables/${encodeURIComponent(id)}/export`, {
    headers: { authorization: `Bearer ${getToken(id) || ""}` },
  });
  if (!r.ok) return toast("error", t("error.refused"), await r.text());
  const blob = new Blob([await r.text()], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `shengji-${id}.json`;
  a.click();
}

/** The banners over the table: reconnecting, the table in error, a pause. */
export function StatusBanners({ id, st, net, me, send, toast }) {
  const table = st.table;
  return html`${net !== "open" && html`<div class="net-banner" id="net-banner" role="status">${t(net === "refused" || net === "crowded" ? "app." + net : "app.reconnecting")}</div>`}
    ${table.status === "error" &&
    html`<div class="net-banner error-banner" role="alert">${t("table.error")}
      ${st.is_host && html` <button class="btn small" id="export-btn" onClick=${() => exportRecord(id, toast)}>${t("table.export")}</button>`}</div>`}
    ${table.paused === "idle" &&
    html`<div class="net-banner paused-banner" id="paused-banner" role="status">${t("table.paused_idle")}
      ${me != null && html` <button class="btn small" id="resume-btn" onClick=${() => send({ type: "resume" })}>${t("table.resume")}</button>`}</div>`}
    ${table.paused === "storage" && html`<div class="net-banner error-banner" id="paused-banner" role="alert">${t("table.paused_storage")}</div>`}`;
}
