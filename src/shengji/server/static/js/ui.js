// Shared view helpers: preact + htm, cards, small widgets.
import { h, render } from "../vendor/preact.mjs";
import htm from "../vendor/htm.mjs";
import { t } from "./i18n.js";
import { SUIT_SYMBOL } from "./cards.js";

export const html = htm.bind(h);
export { render };

export function cardName(card) {
  if (card.joker) return t(card.red ? "card.rj" : "card.bj");
  return t("card.name", { rank: card.rank, suit: t(`suit.${card.suit}`) });
}

const FACE = new Set(["J", "Q", "K"]);

/** One card drawn with CSS. Interactive when onClick is given. */
export function Card({ card, size = "md", selected = false, trump = false, gap = false, mark = false, onClick, index, style, playSuit, ...drag }) {
  const cls = [
    "card",
    `card-${size}`,
    card.red ? "red" : "black",
    card.joker ? "joker" : "",
    selected ? "sel" : "",
    trump ? "trump" : "",
    gap ? "gap" : "",
    mark ? "mark" : "",
    onClick ? "clickable" : "",
  ]
    .filter(Boolean)
    .join(" ");
  const sym = card.joker ? "★" : SUIT_SYMBOL[card.suit];
  const face = card.joker
    ? html`<span class="pip joker-pip">★</span>`
    : FACE.has(card.rank)
      ? // The big letter repeats the corner's: drawn by CSS (data-r), so the card's text is its
        // corner alone and its accessible name ("J of diamonds") contains it (WCAG 2.5.3).
        html`<span class="face" aria-hidden="true"><span class="face-r" data-r=${card.rank}></span><span class="face-s">${sym}</span></span>`
      : html`<span class="pip">${sym}</span>`;
  const corner = card.joker
    ? html`<span class="corner"><span class="jk">JOKER</span></span>`
    : html`<span class="corner"><span class=${card.rank === "10" ? "r ten" : "r"}>${card.rank}</span><span class="s">${sym}</span></span>`;
  const props = {
    class: cls,
    "data-card": card.text,
    title: cardName(card),
    "aria-label": cardName(card),
  };
  if (style) props.style = style;
  if (playSuit) props["data-ps"] = playSuit;
  if (drag.draggable) Object.assign(props, drag); // draggable, onDragStart, onDragOver, onDrop
  if (onClick) {
    return html`<button type="button" ...${props} data-index=${index} aria-pressed=${selected ? "true" : "false"} onClick=${onClick}>
      ${corner}${face}
    </button>`;
  }
  return html`<span role="img" ...${props}>${corner}${face}</span>`;
}

/** A row of cards (not interactive). */
export function Cards({ cards, size = "sm", overlap = true, trumpOf }) {
  if (!cards || !cards.length) return html`<span class="muted">—</span>`;
  return html`<span class=${"cards " + (overlap ? "overlap" : "")}>
    ${cards.map((c, i) => html`<${Card} key=${i} card=${c} size=${size} trump=${trumpOf ? trumpOf(c) : false} />`)}
  </span>`;
}

/** Trump suit symbol with its colour. */
export function SuitSym({ suit }) {
  if (!suit) return null;
  const red = suit === "H" || suit === "D";
  return html`<span class=${"suit-sym " + (red ? "red" : "black")} title=${t(`suit.${suit}`)}>${SUIT_SYMBOL[suit]}</span>`;
}

/** A count in words: key.one / key.other etc. chosen by the language's plural rules (Intl.PluralRules). */
export { tn } from "./i18n.js";

export function teamLetter(team) {
  return t(`team.${team}`);
}
