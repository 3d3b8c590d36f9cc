// The table's countdowns (the turn timer, the declaration window, a stand-in's wait):
// the server's `table.clock` as a local deadline, a ticker that re-renders while one
// runs, and the bar that shows it.
import { useState, useEffect, useRef } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { sound } from "./feel.js";

/**
 * The server's countdown (`table.clock`) as a local deadline: the server sends how many
 * milliseconds were left when it sent the state; the client counts down from there.
 */
export function clockDeadline(clock, receivedAt) {
  if (!clock || typeof clock.remaining_ms !== "number") return null;
  return { kind: clock.kind, seat: clock.seat, start: receivedAt, end: receivedAt + clock.remaining_ms, total: clock.total_ms };
}

/** Whole seconds left of a local deadline at `now` (never negative). */
export function secondsLeft(dl, now) {
  return dl ? Math.max(0, Math.ceil((dl.end - Math.max(now, dl.start)) / 1000)) : null;
}

/** Re-render every 250 ms while a countdown runs. */
function useTicker(active) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * The running countdown of the received state `st` (while the table plays) and the time
 * now, ticking; a warning sound when my own turn (`me`) has 5 seconds left (once per
 * countdown).
 */
export function useClock(st, me) {
  const table = st ? st.table : null;
  const dl = st && table && table.status === "playing" ? clockDeadline(table.clock, st.receivedAt) : null;
  const now = useTicker(!!dl);
  const hurried = useRef(null);
  const myLeft = dl && dl.seat === me && me != null ? secondsLeft(dl, now) : null;
  useEffect(() => {
    if (myLeft == null || myLeft > 5 || myLeft === 0 || hurried.current === dl.end) return;
    hurried.current = dl.end;
    sound("hurry");
  }, [myLeft]);
  return { dl, now };
}

/** A countdown bar and the seconds left (the turn timer, the declaration window, a stand-in's wait). */
export function ClockBar({ dl, now, id }) {
  if (!dl) return null;
  const left = secondsLeft(dl, now);
  const frac = dl.total > 0 ? Math.max(0, Math.min(1, (dl.end - Math.max(now, dl.start)) / dl.total)) : 0;
  const urgent = left <= 5;
  const label = dl.kind === "window" ? t("clock.window", { n: left }) : dl.kind === "absent" ? t("clock.absent", { n: left }) : t("clock.turn", { n: left });
  return html`<div class=${"clock clock-" + dl.kind + (urgent ? " urgent" : "")} id=${id} data-kind=${dl.kind} data-left=${left} role="timer" aria-label=${label} title=${label}>
    <span class="clock-bar"><span class="clock-fill" style=${`width:${(frac * 100).toFixed(1)}%`}></span></span>
    <b class="clock-num">${left}</b>
  </div>`;
}
