// The table page: seating (waiting room), the deal, the kitty, tricks, summaries.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html, Cards } from "./ui.js";
import { t, tn } from "./i18n.js";
import { Connection, setToken, getToken } from "./net.js";
import {
  cardList,
  cardsText,
  prettyCards,
  trumpOf,
  playSuit,
  legalDeclarations,
  declEntry,
  declStrength,
  trickOf,
} from "./cards.js";
import { getName, saveName } from "./lobby.js";
import { rulesHref } from "./rules.js";
import { Hand, sortOrder, arrange, moveCard, throwCost } from "./hand.js";
import { sound, turnAlert, getPref, setPref, enableNotifications } from "./feel.js";
import { TrickArea, MiniTrick, TrickHistory } from "./tricks.js";
import { ChatPanel, mergeChat } from "./chat.js";
import { useHint, HintButton, HintNote } from "./hint.js";
import { CounterPanel } from "./counter.js";
import { shapeOf, ringSpot, FriendBanner, callText, seatRange, posOf } from "./seats.js";
import { useClock, ClockBar } from "./clock.js";
import { explain, RuleLink, Toasts } from "./toasts.js";
import { displayName, SeatPanel } from "./seatpanel.js";
import { InfoBar, pointsLabel } from "./infobar.js";
import { CallDialog } from "./call.js";
import { Summary, winnerText } from "./summary.js";

export { layoutHand } from "./hand.js";
export { clockDeadline, secondsLeft } from "./clock.js";
export { explain, RuleLink } from "./toasts.js";
export { displayName } from "./seatpanel.js";

/** A declaration's strength in words (RULES §3.3; k of a kind with more decks, §12.1). */
function declLabel(cards) {
  if (cards.length > 2 && cards.every((c) => c.text === cards[0].text)) {
    return t(cards[0].joker ? "decl.strength.jokers_k" : "decl.strength.k", { n: cards.length });
  }
  return t(`decl.strength.${declStrength(cards)}`);
}

function normCards(s) {
  return String(s || "")
    .split(/\s+/)
    .filter(Boolean)
    .map((x) => x.toUpperCase())
    .sort()
    .join(" ");
}

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

export function Table({ id, lang }) {
  const [st, setSt] = useState(null);
  const [net, setNet] = useState("connecting");
  const [toasts, setToasts] = useState([]);
  const [sel, setSel] = useState([]);
  const [checkRes, setCheckRes] = useState(null);
  const [name, setName] = useState(getName());
  const [swapFrom, setSwapFrom] = useState(null);
  const [summaryClosed, setSummaryClosed] = useState(null);
  const [summaryOpen, setSummaryOpen] = useState(false);
  const [pending, setPending] = useState(false);
  // The player's table preferences (remembered) and hand arrangement (this page only).
  const [sortMode, setSortMode] = useState(() => getPref("sort", "trumps"));
  const [custom, setCustom] = useState(null);
  const [reorder, setReorder] = useState(false);
  const [autoplay, setAutoplay] = useState(() => getPref("autoplay", false));
  const [confirmThrow, setConfirmThrow] = useState(false);
  const [callErr, setCallErr] = useState(null); // the server's refusal of our friend call
  const [chat, setChat] = useState([]);
  const conn = useRef(null);
  const [seatLink, setSeatLink] = useState(null);
  const [claim, setClaim] = useState(() => new URLSearchParams(location.search).get("seat"));
  // a seat link used mid-game waits for an opponent's yes or the round's end (docs/WEB_PROTOCOL.md)
  const [claimWait, setClaimWait] = useState(null);
  const toastId = useRef(0);
  const calling = useRef(false); // our friend call is in flight

  // Sounds and announcements, from the events the server sent with a state (what the
  // last action caused, as this seat may see it), never from comparing two views.
  const narrate = (m) => {
    const evs = m.events || [];
    if (!evs.length) return;
    const me_ = m.view && m.view.seat != null ? m.view.seat : m.you;
    const nameOf = (seat) => {
      const s = m.table && m.table.seats ? m.table.seats[seat] : null;
      return s ? displayName(s, seat) : t("seat.label", { n: seat + 1 });
    };
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
  };
  // A stand-in played for a seat whose time ran out: say so (marked on the cards too).
  const standinToast = (m) => {
    for (const e of m.events || []) {
      if (e.by !== "standin" || !["played", "kitty_buried", "passed", "declared"].includes(e.type)) continue;
      const s = m.table && m.table.seats ? m.table.seats[e.seat] : null;
      const who = s ? displayName(s, e.seat) : t("seat.label", { n: e.seat + 1 });
      toast("info", t(m.you === e.seat ? "standin.toast_you" : "standin.toast", { name: who }));
    }
  };
  const toast = (kind, title, detail, ref) => {
    const tid = ++toastId.current;
    // At most one toast of each kind: a newer one replaces the older.
    setToasts((xs) => [...xs.filter((x) => x.kind !== kind), { id: tid, kind, title, detail, ref }]);
    setTimeout(() => setToasts((xs) => xs.filter((x) => x.id !== tid)), kind === "error" ? 8000 : 5000);
  };

  useEffect(() => {
    const c = new Connection(id, {
      lang,
      onStatus: setNet,
      onMessage: (m) => {
        hint.receive(m);
        if (m.type === "state") {
          setSt({ ...m, receivedAt: performance.now() });
          setPending(false);
          narrate(m);
          standinToast(m);
        }
        else if (m.type === "check") setCheckRes(m);
        else if (m.type === "chat") setChat((xs) => mergeChat(xs, m));
        else if (m.type === "seat_link") {
          const url = `${location.origin}/t/${encodeURIComponent(id)}?seat=${encodeURIComponent(m.code)}`;
          if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
          setSeatLink(url);
        } else if (m.type === "seated") {
          setClaim(null);
          setClaimWait(null);
        } else if (m.type === "claim_pending") setClaimWait(m);
        else if (m.type === "error") {
          setPending(false);
          if (/^invalid token/.test(m.message || "")) setToken(id, null);
          const e = explain(m.message, m.rule, m.code, m.facts);
          // shown in the call dialog too (RULES §12.4), with the server's reason where the
          // refusal has no words of its own (the generic code "illegal")
          if (calling.current) setCallErr(e.detail || m.code !== "illegal" ? e : { ...e, detail: String(m.message || "").replace(/^RULES §[\d.]+:\s*/, "") });
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
  const table = st ? st.table : null;
  const view = st ? st.view : null;
  const me = view && view.seat != null ? view.seat : st ? st.you ?? null : null;
  const bottom = me ?? 0;
  const trump = trumpOf(view);
  const shape = shapeOf((view && view.options) || (table && table.options));
  const hand = view ? cardList(view.hand) : [];
  const handKey = cardsText(hand);
  const phase = view ? view.phase : null;
  const waiting = !table || table.status === "waiting";
  const myTurn = me != null && view && view.to_act === me && !view.game_over;
  const { dl, now } = useClock(st, me);

  useEffect(() => setSel([]), [handKey, phase]);
  const hint = useHint({ send, seq: st ? st.seq : null, phase, hand, setSel });
  useEffect(() => setCustom(null), [view ? view.round_no : -1]);

  // The turn alert (tab badge, optional notification): whose turn the view says it is.
  useEffect(() => {
    if (!view) return;
    const mine = me != null && view.to_act === me && !view.game_over && (view.phase === "play" || view.phase === "kitty" || view.phase === "call");
    turnAlert(mine, t("feel.your_turn"));
  }, [view]);
  useEffect(() => () => turnAlert(false), []);

  const failed = view && view.failed_throws ? view.failed_throws : [];

  const selIdx = sel.filter((i) => i < hand.length);
  const selCards = selIdx.map((i) => hand[i]);
  const selKey = normCards(cardsText(selCards));

  const curTrick = view ? trickOf(view.current_trick) : null;
  const lead = curTrick && curTrick.plays.length ? curTrick.plays[0].cards : null;
  // Whether the selection may be played is the engine's answer to `check` (RULES §6.1,
  // §6.2, §12.3, with the table's options): the browser keeps no copy of the rule.
  useEffect(() => {
    if (phase !== "play" || !myTurn || !selCards.length) return undefined;
    const timer = setTimeout(() => send({ type: "check", cards: cardsText(selCards) }), 60);
    return () => clearTimeout(timer);
  }, [selKey, phase, myTurn, curTrick ? curTrick.plays.length : -1]);

  // Auto-play (a per-player switch): when exactly one play is legal, make it; the engine
  // says which (`forced`, in this seat's own part of the view, RULES §6.2).
  const forcedNow = phase === "play" && myTurn && !pending;
  const forcedKey = forcedNow && view.forced ? cardsText(cardList(view.forced)) : "";
  useEffect(() => {
    if (!autoplay || !forcedKey) return undefined;
    const timer = setTimeout(() => {
      act(["play", me, forcedKey]);
      setPending(true);
    }, 700);
    return () => clearTimeout(timer);
  }, [autoplay, forcedKey, view && view.round_no, (view && view.tricks ? view.tricks.length : 0)]);

  // A throw confirmation belongs to the selection and the turn it was asked for.
  useEffect(() => setConfirmThrow(false), [selKey, phase, myTurn]);
  const throwGo = useRef(null);
  useEffect(() => {
    if (confirmThrow && throwGo.current) throwGo.current.focus(); // Enter throws
  }, [confirmThrow]);

  const server = checkRes && normCards(checkRes.cards) === selKey ? checkRes : null;
  const playable = !pending && phase === "play" && myTurn && selCards.length > 0 && !!(server && server.legal);
  let reason = null;
  let reasonRef = null;
  let note = null;
  // the engine's reading of a lead (RULES §6.1; with more decks a triple or a tractor of
  // triples is one unit, §12.3): a throw is several units
  const isThrow = playable && !lead && server.kind === "throw";
  const cost = throwCost(selCards.length, (view && view.options) || (table && table.options));
  if (phase === "play" && myTurn && selCards.length && !playable && !pending) {
    if (server && server.reason) {
      const e = explain(server.reason, server.rule, server.code, server.facts);
      reason = e.detail ? e.title + " — " + e.detail : e.title;
      reasonRef = e.ref;
    }
  } else if (isThrow) {
    note = t("play.throw_note");
  }

  function seatName(seat) {
    if (seat == null || !table || !table.seats) return "—";
    const s = table.seats[seat];
    return s ? displayName(s, seat) : t("seat.label", { n: seat + 1 });
  }

  const toggle = (i) => {
    if (!(phase === "play" || (phase === "kitty" && myTurn))) return;
    setSel((xs) => (xs.includes(i) ? xs.filter((x) => x !== i) : [...xs, i]));
  };

  const act = (action) => send({ type: "action", action });
  const doPlay = (confirmed = false) => {
    if (!playable) return;
    // A throw may fail and cost points (RULES §6.4): say so before it goes.
    if (isThrow && cost.max > 0 && confirmed !== true) {
      setConfirmThrow(true);
      return;
    }
    setConfirmThrow(false);
    act(["play", me, cardsText(selCards)]);
    setPending(true);
  };
  const doBury = () => {
    if (selCards.length !== kittySize || pending) return;
    act(["bury", me, cardsText(selCards)]);
    setPending(true);
  };
  const doCall = (calls) => {
    if (pending) return;
    setCallErr(null);
    calling.current = true;
    act(["call", me, calls]); // RULES §12.4: ["call", seat, [["AS", 2], ...]]
    setPending(true);
  };
  const sit = (seat) => {
    const n = name.trim();
    if (!n) {
      toast("error", t("seat.need_name"));
      document.getElementById("name-input")?.focus();
      return;
    }
    saveName(n);
    send({ type: "sit", seat, name: n });
  };
  const doClaim = () => {
    const n = name.trim();
    if (!n) return toast("error", t("seat.need_name"));
    saveName(n);
    send({ type: "claim", code: claim, name: n });
    history.replaceState(null, "", location.pathname);
  };
  const exportRecord = async () => {
    const r = await fetch(`/api/tables/${encodeURIComponent(id)}/export`, {
      headers: { authorization: `Bearer ${getToken(id) || ""}` },
    });
    if (!r.ok) return toast("error", t("error.refused"), await r.text());
    const blob = new Blob([await r.text()], { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `shengji-${id}.json`;
    a.click();
  };
  const onSwap = (seat) => {
    if (swapFrom == null) setSwapFrom(seat);
    else {
      if (swapFrom !== seat) send({ type: "swap", a: swapFrom, b: seat });
      setSwapFrom(null);
    }
  };

  // The kitty's size (RULES §4; §12.1 at larger tables): the cards the starter took.
  const kittySize = view && view.kitty_taken ? cardList(view.kitty_taken).length || 8 : 8;
  // A call in flight ends with the next state (the call made, or refused below).
  useEffect(() => {
    if (phase !== "call") calling.current = false;
  }, [phase]);

  // Kitty cards marked in the starter's hand while exchanging (RULES §4).
  const marks = new Set();
  if (phase === "kitty" && view.kitty_taken) {
    const used = new Set();
    for (const k of cardList(view.kitty_taken)) {
      for (let i = hand.length - 1; i >= 0; i--) {
        if (!used.has(i) && hand[i].text === k.text) {
          used.add(i);
          marks.add(i);
          break;
        }
      }
    }
  }

  const trumpFn = (c) => trump.final && playSuit(c, trump) === "T";
  const order = arrange(hand, sortOrder(hand, trump, sortMode), custom);
  const setSort = (m) => {
    setPref("sort", m);
    setSortMode(m);
    setCustom(null);
  };
  const onMove = (from, to) => setCustom(moveCard(order, from, to).map((i) => hand[i].text));
  const flipAutoplay = () => {
    setPref("autoplay", !autoplay);
    setAutoplay(!autoplay);
  };
  // The gaps in the hand: between play suits, or between natural suits when sorted by suit.
  const groupOf =
    sortMode === "suit" && !custom
      ? (c) => (c.joker ? "J" : c.suit)
      : (c) => (c.joker || (trump.rank && c.rank === trump.rank) || (trump.suit && c.suit === trump.suit) ? "T" : c.suit);

  if (!st) {
    return html`<main class="table-page"><div class="center-msg">
      ${net === "gone"
        ? html`<p>${t("table.not_found")}</p><a class="btn" href="/">${t("over.lobby")}</a>`
        : net === "refused" || net === "crowded"
          ? html`<p id="net-refusal" role="alert">${t("app." + net)}</p>`
          : html`<p class="muted">${t("app.connecting")}</p>`}
    </div></main>`;
  }

  const decls = me != null && view ? legalDeclarations(view) : [];
  const standing = view && view.declarations && view.declarations.length ? declEntry(view.declarations[view.declarations.length - 1]) : null;

  // The prompt and buttons of the action bar.
  let prompt = "";
  const buttons = [];
  if (waiting) {
    const filled = (table.seats || []).filter(Boolean).length;
    if (me == null) prompt = t("wait.pick_seat");
    else if (filled < shape.n) prompt = tn("wait.waiting", shape.n - filled);
    else prompt = st.is_host ? t("wait.full_host") : t("wait.full");
    if (st.is_host) {
      buttons.push(html`<button key="start" class="btn primary" id="start-btn" disabled=${filled < shape.n} onClick=${() => send({ type: "start" })}>${t("host.start")}</button>`);
      if (swapFrom != null) prompt = t("host.swap_pick", { name: seatName(swapFrom) });
    }
  } else if (!view) {
    prompt = t("app.connecting");
  } else if (view.game_over) {
    prompt = winnerText(view, shape, seatName);
  } else if (phase === "deal" || phase === "declare") {
    prompt = phase === "deal" ? t("deal.prompt") : t("deal.final_prompt");
    if (me == null) prompt = t("deal.dealing");
    for (const d of decls) {
      const label = standing ? t("deal.overturn") : t("deal.declare");
      buttons.push(html`<button key=${"decl " + cardsText(d)} class="btn decl-btn ${standing ? "warn" : "primary"}" data-cards=${cardsText(d)} onClick=${() => act(["declare", me, cardsText(d)])}>
        ${label} <${Cards} cards=${d} size="xs" overlap=${false} />
      </button>`);
    }
    if (phase === "declare" && myTurn) buttons.push(html`<button key="pass" class="btn" id="pass-btn" onClick=${() => act(["pass", me])}>${t("deal.pass")}</button>`);
  } else if (phase === "kitty") {
    if (myTurn) {
      prompt = kittySize === 8 ? t("kitty.prompt", { n: selCards.length }) : t("kitty.prompt_k", { n: selCards.length, k: kittySize });
      buttons.push(html`<button key="bury" class="btn primary" id="bury-btn" disabled=${selCards.length !== kittySize || pending} onClick=${doBury}>${t("kitty.bury")}</button>`);
    } else prompt = t("kitty.exchanging", { name: seatName(view.starter) });
  } else if (phase === "call") {
    prompt = myTurn ? tn("call.prompt", shape.calls) : t("call.waiting", { name: seatName(view.to_act) });
  } else if (phase === "play") {
    if (myTurn) {
      prompt = lead ? tn("play.follow", lead.length) : t("play.lead");
      buttons.push(html`<button key="play" class="btn primary" id="play-btn" disabled=${!playable} onClick=${() => doPlay()}>${t("play.play")}</button>`);
    } else prompt = t("play.waiting", { name: seatName(view.to_act) });
  }
  // Always there while cards can be chosen (disabled when none is): a button that came
  // and went with the selection moved the hand under the player's next click.
  if (me != null && view && !view.game_over && (phase === "play" || (phase === "kitty" && myTurn))) {
    buttons.push(html`<button key="clear" class="btn ghost" id="clear-btn" disabled=${!sel.length} onClick=${() => setSel([])}>${t("play.clear")}</button>`);
  }
  const hintable = (myTurn && (phase === "play" || phase === "kitty")) || ((phase === "deal" || phase === "declare") && decls.length > 0);
  buttons.push(html`<${HintButton} key="hint" state=${hint} enabled=${!!(hintable && me != null && table.settings && table.settings.hints)} />`);

  const resKey = view && view.last_result ? `${view.round_no}` : null;
  const showSummary =
    view && view.last_result && (summaryOpen || (summaryClosed !== resKey && (phase === "deal" || phase === "declare" || view.game_over)));
  const lastTrick = view && view.tricks && view.tricks.length ? trickOf(view.tricks[view.tricks.length - 1]) : null;
  const pointCards = view ? cardList(view.point_cards) : [];
  const kitty = view ? cardList(view.kitty) : [];

  return html`<main class=${"table-page" + (waiting ? " waiting" : " phase-" + phase)} data-phase=${phase || ""} data-status=${table.status} data-me=${me ?? ""} data-to-act=${view ? view.to_act ?? "" : ""} data-lead=${lead ? cardsText(lead) : ""} data-lead-suit=${lead ? playSuit(lead[0], trump) : ""}>
    <${Toasts} toasts=${toasts} onClose=${(x) => setToasts((xs) => xs.filter((y) => y.id !== x))} />
    ${net !== "open" && html`<div class="net-banner" id="net-banner" role="status">${t(net === "refused" || net === "crowded" ? "app." + net : "app.reconnecting")}</div>`}
    ${table.status === "error" &&
    html`<div class="net-banner error-banner" role="alert">${t("table.error")}
      ${st.is_host && html` <button class="btn small" id="export-btn" onClick=${exportRecord}>${t("table.export")}</button>`}</div>`}
    ${table.paused === "idle" &&
    html`<div class="net-banner paused-banner" id="paused-banner" role="status">${t("table.paused_idle")}
      ${me != null && html` <button class="btn small" id="resume-btn" onClick=${() => send({ type: "resume" })}>${t("table.resume")}</button>`}</div>`}
    ${table.paused === "storage" && html`<div class="net-banner error-banner" id="paused-banner" role="alert">${t("table.paused_storage")}</div>`}
    ${seatLink &&
    html`<div class="invite seat-link"><small>${t("host.seat_link_made")}</small>
      <input readonly value=${seatLink} onFocus=${(e) => e.target.select()} />
      <button class="btn small ghost" onClick=${() => setSeatLink(null)}>×</button></div>`}
    ${(table.claims || [])
      .filter((c) => me != null && c.team === me % 2 && c.seat !== me)
      .map((c) => html`<div class="invite claim-ask" role="alert" data-seat=${c.seat}><small>${t("seat.claim_ask", { name: c.name, n: c.seat + 1 })}</small>
        <button class="btn primary small claim-accept" onClick=${() => send({ type: "accept_claim", seat: c.seat, accept: true })}>${t("seat.claim_accept")}</button>
        <button class="btn small ghost claim-refuse" onClick=${() => send({ type: "accept_claim", seat: c.seat, accept: false })}>${t("seat.claim_refuse")}</button></div>`)}
    ${claimWait &&
    me == null &&
    html`<div class="invite claim-wait" id="claim-wait" role="status"><small>${t(claimWait.waiting_for === "acceptance" ? "seat.claim_wait_accept" : "seat.claim_wait_round", { n: claimWait.seat + 1 })}</small></div>`}
    ${claim &&
    !claimWait &&
    me == null &&
    table.status === "playing" &&
    html`<div class="invite claim"><small>${t("seat.claim_hint")}</small>
      <input id="claim-name" value=${name} maxlength="24" placeholder=${t("seat.name_ph")} onInput=${(e) => setName(e.target.value)} />
      <button class="btn primary small" id="claim-btn" onClick=${doClaim}>${t("seat.claim")}</button></div>`}
    <div class="head">
      <div class="table-title">
        <h1>${table.name}</h1>
        <span class=${"status status-" + table.status}>${t(`status.${table.status}`)}</span>
        ${me == null && html`<span class="badge">${t("seat.spectating")}</span>`}
        ${table.status !== "waiting" && html`<a class="btn small ghost head-replay" id="head-replay" href=${"/games/" + encodeURIComponent(id)} target=${table.status === "finished" ? null : "_blank"} rel="noopener">${table.status === "finished" ? t("over.replay") : t("lobby.replay")}</a>`}
      </div>
      ${!waiting && html`<${InfoBar} view=${view} me=${me} seatName=${seatName} onSummary=${() => setSummaryOpen(true)} />`}
    </div>
    <div class="board">
      ${view && !waiting && html`<${FriendBanner} view=${view} seatName=${seatName} />`}
      <div class=${"felt" + (shape.n !== 4 ? ` ring ring-${shape.n}` : "")} data-players=${shape.n}>
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
            swapFrom=${swapFrom}
            canSit=${me == null}
            onSit=${sit}
            onBot=${(s, kind) => send({ type: "bot", seat: s, kind })}
            onKick=${(s) => send({ type: "kick", seat: s })}
            onLink=${(s) => send({ type: "seat_link", seat: s })}
            onSwap=${onSwap}
            dl=${dl}
            now=${now}
          />`,
        )}
        ${waiting
          ? html`<div class="wait-center">
              <label class="field name-field">
                <span>${t("seat.your_name")}</span>
                <input id="name-input" value=${name} maxlength="24" placeholder=${t("seat.name_ph")} onInput=${(e) => setName(e.target.value)} />
              </label>
              <div class="invite">
                <small>${t("wait.invite")}</small>
                <input readonly value=${location.href} onFocus=${(e) => e.target.select()} />
              </div>
              <p class="muted timer-note" id="timer-note">${table.settings && table.settings.turn_s > 0 ? t("wait.timer", { n: table.settings.turn_s }) : t("wait.no_timer")}</p>
              <${ChatPanel} messages=${chat} me=${me} canWrite=${me != null || !!(table.settings && table.settings.spectator_chat)} seatName=${seatName} onSend=${(text) => send({ type: "chat", text })} onReact=${(reaction) => send({ type: "chat", reaction })} />
            </div>`
          : view && html`<${TrickArea} view=${view} table=${table} bottom=${bottom} n=${shape.n} seatName=${seatName} trumpFn=${trumpFn} dl=${dl} now=${now} />`}
      </div>
      <div class=${"actions" + (myTurn ? " my-turn" : "")}>
        <div class="prompt" id="prompt">${prompt}${myTurn && dl && dl.seat === me && html` <${ClockBar} dl=${dl} now=${now} id="clock-mine" />`}</div>
        <div class="buttons">${buttons}</div>
        ${me != null &&
        !waiting &&
        !view?.game_over &&
        html`<div class="hand-tools">
          <button type="button" class="btn small ghost" id="sort-btn" data-mode=${custom ? "custom" : sortMode} title=${t("hand.sort_hint")}
            onClick=${() => setSort(sortMode === "trumps" ? "suit" : "trumps")}>${custom ? t("hand.sort_custom") : t(`hand.sort_${sortMode}`)}</button>
          <button type="button" class="btn small ghost" id="reorder-btn" aria-pressed=${reorder ? "true" : "false"} title=${t("hand.reorder_hint")}
            onClick=${() => setReorder(!reorder)}>${reorder ? t("hand.reorder_done") : t("hand.reorder")}</button>
          <label class="switch" title=${t("feel.autoplay_hint")}><input type="checkbox" id="autoplay-toggle" checked=${autoplay} onChange=${flipAutoplay} /> ${t("feel.autoplay")}</label>
          <button type="button" class="btn small ghost" id="notify-btn" title=${t("feel.notify_hint")} onClick=${() => enableNotifications()}>${t("feel.notify")}</button>
        </div>`}
        ${confirmThrow &&
        playable &&
        // Inline, in the bar that shows the turn clock: the clock keeps running while the
        // player reads, and the question goes away by itself when the turn passes.
        html`<div class="throw-confirm" id="throw-confirm" role="group" aria-labelledby="throw-title">
          <b id="throw-title">${t("throw.confirm_title")}</b>
          <span class="throw-cards"><${Cards} cards=${selCards} size="xs" overlap=${false} trumpOf=${trumpFn} /></span>
          ${server && server.units &&
          html`<small class="muted" id="throw-units">${t("throw.units", { units: server.units.map((u) => prettyCards(cardList(u))).join(" · ") })}</small>`}
          <p id="throw-text">${t(cost.mode === "attempted" ? "throw.confirm_attempted" : "throw.confirm_returned", { per: cost.per, max: cost.max })}</p>
          <p class="muted">${t(me != null && view && me % 2 === view.declaring_team ? "throw.confirm_decl" : "throw.confirm_opp")} <a href=${rulesHref("6.4")}>${t("rules.see", { ref: "6.4" })}</a></p>
          <div class="modal-buttons">
            <button class="btn" id="throw-cancel" onClick=${() => setConfirmThrow(false)}>${t("throw.cancel")}</button>
            <button class="btn primary" id="throw-go" ref=${throwGo} onClick=${() => doPlay(true)}>${t("throw.go")}</button>
          </div>
        </div>`}
        ${phase === "call" &&
        myTurn &&
        html`<${CallDialog} key=${"call-" + view.round_no} view=${view} shape=${shape} hand=${hand} pending=${pending} error=${callErr} onSend=${doCall} />`}
        ${reason && html`<div class="reason" id="reason">${reason} <${RuleLink} ref_=${reasonRef} /></div>`}
        ${note && html`<div class="note" id="note">${note}</div>`}
        <${HintNote} state=${hint} />
      </div>
      ${me != null &&
      !waiting &&
      html`<${Hand}
        hand=${hand}
        order=${order}
        reorder=${reorder}
        onMove=${onMove}
        selected=${selIdx}
        selectable=${phase === "play" || (phase === "kitty" && myTurn)}
        trumpFn=${trumpFn}
        groupOf=${groupOf}
        suitOf=${(c) => playSuit(c, trump)}
        marks=${marks}
        onToggle=${toggle}
      />`}
    </div>
    ${view &&
    !waiting &&
    html`<aside class="side">
      <${ChatPanel} messages=${chat} me=${me} canWrite=${me != null || !!(table.settings && table.settings.spectator_chat)} seatName=${seatName} onSend=${(text) => send({ type: "chat", text })} onReact=${(reaction) => send({ type: "chat", reaction })} />
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
    </aside>`}
    ${showSummary &&
    html`<${Summary}
      view=${view}
      docked=${!view.game_over && !summaryOpen && (phase === "deal" || phase === "declare")}
      seatName=${seatName}
      tableId=${id}
      onClose=${() => {
        setSummaryOpen(false);
        setSummaryClosed(resKey);
      }}
    />`}
  </main>`;
}
