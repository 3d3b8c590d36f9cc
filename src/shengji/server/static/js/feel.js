// How the table feels: sounds drawn with WebAudio (no files to download), a mute
// switch, the turn alert (tab title badge and an optional notification) and the
// player's table preferences, all remembered in localStorage.
import { useState } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { Speaker, SpeakerOff } from "./icons.js";

const KEYS = { mute: "shengji.mute", autoplay: "shengji.autoplay", sort: "shengji.sort", notify: "shengji.notify", chat: "shengji.chat" };

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** A remembered preference ("mute", "autoplay", "sort", "notify"). */
export function getPref(name, fallback) {
  const v = storage()?.getItem(KEYS[name]);
  if (v == null) return fallback;
  try {
    return JSON.parse(v);
  } catch {
    return fallback;
  }
}

export function setPref(name, value) {
  storage()?.setItem(KEYS[name], JSON.stringify(value));
}

let ctx = null;
/** Sounds played so far, by kind (read by the browser tests). */
export const played = [];

function audio() {
  if (ctx) return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
  } catch {
    ctx = null;
  }
  return ctx;
}

// [frequency Hz, start s, length s, wave, volume]
const SOUNDS = {
  card: [[520, 0, 0.05, "triangle", 0.18], [260, 0.01, 0.06, "sine", 0.12]],
  turn: [[660, 0, 0.12, "sine", 0.2], [880, 0.12, 0.18, "sine", 0.2]],
  win: [[523, 0, 0.1, "triangle", 0.16], [659, 0.09, 0.1, "triangle", 0.16], [784, 0.18, 0.16, "triangle", 0.16]],
  fail: [[220, 0, 0.18, "sawtooth", 0.08], [165, 0.16, 0.24, "sawtooth", 0.08]],
  error: [[150, 0, 0.14, "square", 0.06]],
  hurry: [[990, 0, 0.06, "square", 0.07], [990, 0.12, 0.06, "square", 0.07]],
};

/** Play a short sound unless muted. */
export function sound(kind) {
  if (getPref("mute", false)) return;
  played.push(kind);
  const a = audio();
  const notes = SOUNDS[kind];
  if (!a || !notes) return;
  if (a.state === "suspended") a.resume().catch(() => {});
  const now = a.currentTime + 0.01;
  for (const [f, at, len, wave, vol] of notes) {
    const o = a.createOscillator();
    const g = a.createGain();
    o.type = wave;
    o.frequency.value = f;
    g.gain.setValueAtTime(0.0001, now + at);
    g.gain.exponentialRampToValueAtTime(vol, now + at + 0.01);
    g.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    o.connect(g).connect(a.destination);
    o.start(now + at);
    o.stop(now + at + len + 0.02);
  }
}

/** The mute switch of the top bar. */
export function SoundSwitch() {
  const [muted, setMuted] = useState(() => getPref("mute", false));
  const flip = () => {
    const m = !muted;
    setPref("mute", m);
    setMuted(m);
    if (!m) sound("turn");
  };
  const label = muted ? t("feel.unmute") : t("feel.mute");
  return html`<button type="button" class="btn small ghost icon-btn" id="mute-btn" aria-pressed=${muted ? "true" : "false"} title=${label} aria-label=${label} onClick=${flip}>
    ${muted ? html`<${SpeakerOff} />` : html`<${Speaker} />`}
  </button>`;
}

let baseTitle = null;
/** Mark the tab while it is this player's turn: "● title"; a notification if allowed and the tab is hidden. */
export function turnAlert(on, body) {
  if (baseTitle == null || !document.title.startsWith("● ")) baseTitle = document.title.replace(/^● /, "");
  document.title = on ? "● " + baseTitle : baseTitle;
  if (!on) return;
  if (document.hidden && getPref("notify", false) && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(t("app.title"), { body, tag: "shengji-turn" });
    } catch {
      /* some browsers allow notifications only from a service worker */
    }
  }
}

/** Ask for notification permission (after a click); resolves to whether they are on. */
export async function enableNotifications() {
  if (!("Notification" in window)) return false;
  const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  const on = p === "granted";
  setPref("notify", on);
  return on;
}
