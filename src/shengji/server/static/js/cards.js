// Card notation, play suits and the small rule checks the client does itself
// (RULES §1, §3.3, §5, §6.2). The server stays authoritative: these only drive
// the buttons; every action is checked again by the engine.

export const SUITS = ["S", "H", "D", "C"];
export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SYMBOL_SUIT = { "♠": "S", "♥": "H", "♦": "D", "♣": "C" };

const cache = new Map();

/** Parse one card in notation ("10H", "AS", "BJ", "RJ", "T♥"). */
export function parseCard(token) {
  const key = String(token).trim();
  let c = cache.get(key);
  if (c) return c;
  let t = key.toUpperCase();
  const last = key.slice(-1);
  if (SYMBOL_SUIT[last]) t = t.slice(0, -1) + SYMBOL_SUIT[last];
  if (t === "BJ" || t === "RJ") {
    c = { text: t, rank: null, suit: null, joker: true, red: t === "RJ", points: 0 };
  } else {
    let rank = t.slice(0, -1);
    const suit = t.slice(-1);
    if (rank === "T") rank = "10";
    c = {
      text: rank + suit,
      rank,
      suit,
      joker: false,
      red: suit === "H" || suit === "D",
      points: rank === "10" || rank === "K" ? 10 : rank === "5" ? 5 : 0,
    };
  }
  cache.set(key, c);
  return c;
}

/** Cards from whatever the JSON holds: "AS AS", ["AS","AS"], [{text:"AS"}], null. */
export function cardList(x) {
  if (x == null) return [];
  if (typeof x === "string") return x.split(/[\s,]+/).filter(Boolean).map(parseCard);
  if (Array.isArray(x)) {
    const out = [];
    for (const item of x) {
      if (item == null) continue;
      if (typeof item === "string") out.push(...cardList(item));
      else if (typeof item === "object" && (item.text || item.card)) out.push(parseCard(item.text || item.card));
    }
    return out;
  }
  return [];
}

export function cardsText(cards) {
  return cards.map((c) => c.text).join(" ");
}

/** Cards for reading: "10♥ 10♥ RJ". */
export function prettyCards(cards) {
  return cards.map((c) => (c.joker ? c.text : c.rank + SUIT_SYMBOL[c.suit])).join(" ");
}

/**
 * The round's trump as {rank, suit, final, noTrump, gapTractors, throwTractors} from a
 * view; the last two are the table's options `gap_tractors` (RULES §5.4) and
 * `throw_tractors` (§6.1), read from `view.options` (or `options` when given).
 */
export function trumpOf(view, options) {
  const tr = view && view.trump;
  let rank = view ? view.trump_rank : null;
  let suit = view ? view.trump_suit : null;
  if (tr && typeof tr === "object") {
    if ("rank" in tr) rank = tr.rank;
    if ("suit" in tr) suit = tr.suit;
  }
  const final = view ? (view.trump_final != null ? !!view.trump_final : !!tr) : false;
  const opts = options || (view && view.options) || {};
  return {
    rank: rank || null,
    suit: suit || null,
    final,
    noTrump: final && !suit,
    gapTractors: opts.gap_tractors !== "trumps_only",
    throwTractors: opts.throw_tractors !== "off",
  };
}

/** Play suit (RULES §5.1): "T" for trump, else the natural suit. */
export function playSuit(card, trump) {
  if (card.joker) return "T";
  if (trump.rank && card.rank === trump.rank) return "T";
  if (trump.suit && card.suit === trump.suit) return "T";
  return card.suit;
}

/**
 * Level of a card inside its play suit (RULES §5.4): 0 is the lowest, equal cards share
 * a level and adjacent levels are consecutive (as the engine's Trump). With the option
 * `gap_tractors=trumps_only` (`trump.gapTractors` false) the trump rank leaves a hole in
 * a plain suit (not at its ends), so the cards either side of it are not consecutive.
 */
export function cardLevel(card, trump) {
  const plain = RANKS.filter((r) => r !== trump.rank);
  if (playSuit(card, trump) !== "T") {
    const lvl = plain.indexOf(card.rank);
    const gap = trump.rank ? RANKS.indexOf(trump.rank) : -1;
    if (trump.gapTractors === false && gap > 0 && gap < 12 && RANKS.indexOf(card.rank) > gap) return lvl + 1;
    return lvl;
  }
  const base = trump.suit ? plain.length : 0; // plain cards of the trump suit first
  const isRank = !card.joker && trump.rank && card.rank === trump.rank;
  if (isRank) return card.suit === trump.suit ? base + 1 : base;
  if (card.joker) {
    const b = base + (trump.rank ? (trump.suit ? 2 : 1) : 0);
    return card.red ? b + 1 : b;
  }
  return plain.indexOf(card.rank);
}

/** Strength of a declaration (RULES §3.3): 1 single, 2 pair, 3 two identical jokers. */
export function declStrength(cards) {
  if (!cards.length) return 0;
  if (cards.length === 2 && cards[0].text === cards[1].text) return cards[0].joker ? 3 : 2;
  return 1;
}

/** Declarations this seat may make now (RULES §3.3): the engine's own list, from the view. */
export function legalDeclarations(view) {
  if (!view || view.seat == null || !Array.isArray(view.legal_declarations)) return [];
  return view.legal_declarations.map(cardList);
}

/** A declaration entry from the view: [seat, cards] or {seat, cards}. */
export function declEntry(d) {
  if (Array.isArray(d)) return { seat: d[0], cards: cardList(d[1]) };
  return { seat: d.seat, cards: cardList(d.cards) };
}

/** A trick from the view: {leader, plays: [{seat, cards}], winner, points}. */
export function trickOf(t) {
  if (!t) return null;
  const plays = (t.plays || []).map((p) =>
    Array.isArray(p) ? { seat: p[0], cards: cardList(p[1]) } : { seat: p.seat, cards: cardList(p.cards) },
  );
  return { leader: t.leader, plays, winner: t.winner ?? null, points: t.points ?? 0 };
}
