// Small inline SVG icons (no emoji fonts needed).
import { html } from "./ui.js";

const svg = (body, label) => html`<svg class="icon" viewBox="0 0 24 24" width="1em" height="1em" aria-hidden=${label ? "false" : "true"}
  role=${label ? "img" : null} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${label ? html`<title>${label}</title>` : null}${body}</svg>`;

export const Globe = ({ label } = {}) =>
  svg(html`<circle cx="12" cy="12" r="9" /><path d="M3 12h18" /><path d="M12 3a14 14 0 0 1 0 18a14 14 0 0 1 0-18z" />`, label);

export const Robot = ({ label } = {}) =>
  svg(html`<rect x="5" y="8" width="14" height="11" rx="3" /><path d="M12 4v4" /><circle cx="12" cy="3.5" r="1" /><circle cx="9.5" cy="13" r="1.2" fill="currentColor" /><circle cx="14.5" cy="13" r="1.2" fill="currentColor" /><path d="M9.5 16.5h5" /><path d="M3 12v3M21 12v3" />`, label);

export const CardsIcon = ({ label } = {}) =>
  svg(html`<rect x="8" y="3" width="11" height="15" rx="2" /><path d="M6 6.5 4.6 7a2 2 0 0 0-1.2 2.5l3.4 9.6a2 2 0 0 0 2.6 1.2l5-1.8" />`, label);

export const Book = ({ label } = {}) =>
  svg(html`<path d="M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2z" /><path d="M4 19V5" /><path d="M8 7h7M8 11h5" />`, label);

export const Speaker = ({ label } = {}) =>
  svg(html`<path d="M4 9h4l5-4v14l-5-4H4z" /><path d="M16.5 8.5a5 5 0 0 1 0 7" /><path d="M19 6a8.5 8.5 0 0 1 0 12" />`, label);

export const SpeakerOff = ({ label } = {}) =>
  svg(html`<path d="M4 9h4l5-4v14l-5-4H4z" /><path d="M17 9l5 6M22 9l-5 6" />`, label);

// Replay controls: drawn, so they show in every browser (⏮/⏭ are missing from many fonts).
export const First = ({ label } = {}) => svg(html`<path d="M6 5v14" /><path d="M18 6l-9 6 9 6z" fill="currentColor" />`, label);
export const Prev = ({ label } = {}) => svg(html`<path d="M16 6l-9 6 9 6z" fill="currentColor" />`, label);
export const Next = ({ label } = {}) => svg(html`<path d="M8 6l9 6-9 6z" fill="currentColor" />`, label);
export const Last = ({ label } = {}) => svg(html`<path d="M18 5v14" /><path d="M6 6l9 6-9 6z" fill="currentColor" />`, label);

export const History = ({ label } = {}) =>
  svg(html`<path d="M3 12a9 9 0 1 0 3-6.7" /><path d="M3 4v5h5" /><path d="M12 8v4l3 2" />`, label);
