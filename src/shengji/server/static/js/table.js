// The table page: seating (waiting room), the deal, the kitty, tricks, summaries. The
// page's state lives in hooks by concern (the connection, the toasts, the selection, the
// preferences, the friend call, seating, the summary), each in the module of the panels
// that show it; Table puts them together.
import { useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { cardList, cardsText, trumpOf, playSuit } from "./cards.js";
import { Hand } from "./hand.js";
import { useHint } from "./hint.js";
import { TableChat, useChat } from "./chat.js";
import { shapeOf, FriendBanner } from "./seats.js";
import { useClock } from "./clock.js";
import { Toasts, useToasts } from "./toasts.js";
import { useTableConnection, useTurnAlert, Connecting, StatusBanners } from "./connection.js";
import { Felt, seatLabel } from "./seatpanel.js";
import { useSeating, SeatNotices, WaitCenter } from "./seating.js";
import { usePrefs } from "./prefs.js";
import { useHandSelection } from "./selection.js";
import { useFriendCall } from "./call.js";
import { InfoBar } from "./infobar.js";
import { TrickArea } from "./tricks.js";
import { ActionBar } from "./actions.js";
import { SidePanel } from "./side.js";
import { Summary, useSummary } from "./summary.js";

export { layoutHand } from "./hand.js";
export { clockDeadline, secondsLeft } from "./clock.js";
export { explain, RuleLink } from "./toasts.js";
export { displayName } from "./seatpanel.js";

export function Table({ id, lang }) {
  const { toasts, toast, close } = useToasts();
  // Each concern takes the server's messages of its own (set below, once the hooks exist).
  const receive = useRef(null);
  const { st, net, send, act, pending, setPending } = useTableConnection({ id, lang, toast, receive });
  const table = st ? st.table : null;
  const view = st ? st.view : null;
  const me = view && view.seat != null ? view.seat : st ? st.you ?? null : null;
  const trump = trumpOf(view);
  const shape = shapeOf((view && view.options) || (table && table.options));
  const hand = view ? cardList(view.hand) : [];
  const phase = view ? view.phase : null;
  const waiting = !table || table.status === "waiting";
  const myTurn = me != null && view && view.to_act === me && !view.game_over;

  const { dl, now } = useClock(st, me);
  useTurnAlert(view, me);
  const chat = useChat();
  const prefs = usePrefs({ hand, trump, round: view ? view.round_no : -1 });
  const play = useHandSelection({ view, table, me, hand, myTurn, pending, setPending, act, send, autoplay: prefs.autoplay });
  const hint = useHint({ send, seq: st ? st.seq : null, phase, hand, setSel: play.setSel });
  const call = useFriendCall({ phase, me, pending, setPending, act });
  const seating = useSeating({ id, send, toast });
  const summary = useSummary(view);
  receive.current = (m) => {
    for (const c of [hint, play, chat, seating, call]) c.receive(m);
  };

  function seatName(seat) {
    if (seat == null || !table || !table.seats) return "—";
    return seatLabel(table, seat);
  }
  const trumpFn = (c) => trump.final && playSuit(c, trump) === "T";

  if (!st) return html`<${Connecting} net=${net} />`;

  const lead = play.lead;
  const tableChat = html`<${TableChat} chat=${chat} table=${table} me=${me} seatName=${seatName} send=${send} />`;
  return html`<main class=${"table-page" + (waiting ? " waiting" : " phase-" + phase)} data-phase=${phase || ""} data-status=${table.status} data-me=${me ?? ""} data-to-act=${view ? view.to_act ?? "" : ""} data-lead=${lead ? cardsText(lead) : ""} data-lead-suit=${lead ? playSuit(lead[0], trump) : ""}>
    <${Toasts} toasts=${toasts} onClose=${close} />
    <${StatusBanners} id=${id} st=${st} net=${net} me=${me} send=${send} toast=${toast} />
    <${SeatNotices} seating=${seating} table=${table} me=${me} send=${send} />
    <div class="head">
      <div class="table-title">
        <h1>${table.name}</h1>
        <span class=${"status status-" + table.status}>${t(`status.${table.status}`)}</span>
        ${me == null && html`<span class="badge">${t("seat.spectating")}</span>`}
        ${table.status !== "waiting" && html`<a class="btn small ghost head-replay" id="head-replay" href=${"/games/" + encodeURIComponent(id)} target=${table.status === "finished" ? null : "_blank"} rel="noopener">${table.status === "finished" ? t("over.replay") : t("lobby.replay")}</a>`}
      </div>
      ${!waiting && html`<${InfoBar} view=${view} me=${me} seatName=${seatName} onSummary=${summary.open} />`}
    </div>
    <div class="board">
      ${view && !waiting && html`<${FriendBanner} view=${view} seatName=${seatName} />`}
      <${Felt} st=${st} shape=${shape} me=${me} seating=${seating} send=${send} dl=${dl} now=${now}>
        ${waiting
          ? html`<${WaitCenter} seating=${seating} table=${table} chat=${tableChat} />`
          : view && html`<${TrickArea} view=${view} table=${table} bottom=${me ?? 0} n=${shape.n} seatName=${seatName} trumpFn=${trumpFn} dl=${dl} now=${now} />`}
      </${Felt}>
      <${ActionBar} st=${st} shape=${shape} me=${me} myTurn=${myTurn} pending=${pending} hand=${hand} play=${play} prefs=${prefs} hint=${hint} call=${call}
        swapFrom=${seating.swapFrom} seatName=${seatName} send=${send} act=${act} dl=${dl} now=${now} trumpFn=${trumpFn} />
      ${me != null &&
      !waiting &&
      html`<${Hand}
        hand=${hand}
        order=${prefs.order}
        reorder=${prefs.reorder}
        onMove=${prefs.onMove}
        selected=${play.selIdx}
        selectable=${play.selectable}
        trumpFn=${trumpFn}
        groupOf=${prefs.groupOf}
        suitOf=${(c) => playSuit(c, trump)}
        marks=${play.marks}
        onToggle=${play.toggle}
      />`}
    </div>
    ${view && !waiting && html`<${SidePanel} id=${id} table=${table} view=${view} me=${me} chat=${tableChat} seatName=${seatName} trumpFn=${trumpFn} />`}
    ${summary.show && html`<${Summary} view=${view} docked=${summary.docked} seatName=${seatName} tableId=${id} onClose=${summary.close} />`}
  </main>`;
}
