// Table chat: the last messages, a line to write, and a switch that hides it (remembered).
// Messages are player text: always rendered as text (Preact escapes it), never as HTML.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { getPref, setPref } from "./feel.js";

export const MAX_CHAT = 200; // as the server's chat.MAX_CHAT
export const REACTIONS = ["gg", "nice", "wow", "oops", "thanks", "hurry"]; // chat.REACTIONS
const KEEP = 100;

/** The messages after one `chat` message from the server (history replaces, else appends). */
export function mergeChat(messages, m) {
  const incoming = Array.isArray(m.messages) ? m.messages : [];
  if (m.history) return incoming.slice(-KEEP);
  const seen = new Set(messages.map((x) => x.n));
  return [...messages, ...incoming.filter((x) => !seen.has(x.n))].slice(-KEEP);
}

/** The table's chat: the messages so far; `receive` takes the server's `chat` messages (stable). */
export function useChat() {
  const [messages, setMessages] = useState([]);
  const receive = useRef((m) => {
    if (m.type === "chat") setMessages((xs) => mergeChat(xs, m));
  }).current;
  return { messages, receive };
}

/** The chat at a table (`chat` from useChat): the seated write, spectators where the table lets them. */
export function TableChat({ chat, table, me, seatName, send }) {
  return html`<${ChatPanel} messages=${chat.messages} me=${me} canWrite=${me != null || !!(table.settings && table.settings.spectator_chat)} seatName=${seatName} onSend=${(text) => send({ type: "chat", text })} onReact=${(reaction) => send({ type: "chat", reaction })} />`;
}

export function ChatPanel({ messages, onSend, onReact, seatName, me, canWrite = true }) {
  const [shown, setShown] = useState(() => getPref("chat", true) !== false);
  const [text, setText] = useState("");
  const [seenN, setSeenN] = useState(-1);
  const list = useRef(null);
  const lastN = messages.length ? messages[messages.length - 1].n : -1;
  useEffect(() => {
    if (shown) {
      setSeenN(lastN);
      if (list.current) list.current.scrollTop = list.current.scrollHeight;
    }
  }, [lastN, shown]);
  const unread = shown ? 0 : messages.filter((x) => x.n > seenN).length;
  const flip = () => {
    setPref("chat", !shown);
    setShown(!shown);
  };
  const submit = (e) => {
    e.preventDefault();
    const v = text.trim();
    if (!v) return;
    onSend(v.slice(0, MAX_CHAT));
    setText("");
  };
  const who = (x) => (x.system ? t("chat.table") : x.seat == null ? t("chat.spectator") : seatName(x.seat));
  // An h2: the chat comes right after the page's h1 (the table's name); the boxes after it are h3.
  return html`<section class=${"side-box chat-box" + (shown ? "" : " chat-hidden")} id="chat">
    <h2>
      <span>${t("chat.title")}${unread > 0 && html` <b class="chat-unread" id="chat-unread">${unread}</b>`}</span>
      <button type="button" class="btn small ghost" id="chat-toggle" aria-pressed=${shown ? "false" : "true"} onClick=${flip}>${shown ? t("chat.hide") : t("chat.show")}</button>
    </h2>
    ${shown &&
    html`<ul class="chat-list" id="chat-list" ref=${list} aria-live="polite">
        ${messages.length === 0 && html`<li class="muted">${t("chat.empty")}</li>`}
        ${messages.map(
          (x) => html`<li key=${x.n} class=${"chat-msg" + (x.seat != null && x.seat === me ? " mine" : "") + (x.system ? " system" : x.seat == null ? " spectator" : " team" + (x.seat % 2))} data-n=${x.n}>
            <b class="chat-who">${who(x)}</b> ${x.reaction
              ? html`<span class="chat-text chat-reaction" data-reaction=${x.reaction}>${t(`reaction.${x.reaction}`)}</span>`
              : html`<span class="chat-text">${x.text}</span>`}
          </li>`,
        )}
      </ul>
      ${!canWrite && html`<p class="muted chat-read-only" id="chat-read-only">${t("chat.read_only")}</p>`}
      ${canWrite && onReact &&
      html`<div class="reactions" role="group" aria-label=${t("chat.reactions")}>
        ${REACTIONS.map((r) => html`<button type="button" class="btn small ghost reaction-btn" data-reaction=${r} onClick=${() => onReact(r)}>${t(`reaction.${r}`)}</button>`)}
      </div>`}
      ${canWrite && html`<form class="chat-form" onSubmit=${submit}>
        <input id="chat-input" value=${text} maxlength=${MAX_CHAT} placeholder=${t("chat.placeholder")} aria-label=${t("chat.placeholder")} autocomplete="off"
          onInput=${(e) => setText(e.target.value)} />
        <button class="btn small" type="submit" id="chat-send" disabled=${!text.trim()}>${t("chat.send")}</button>
      </form>`}`}
  </section>`;
}
