// The player's table preferences: how the hand is sorted (remembered) or arranged by hand
// (this page only, this round), and auto-play (remembered); the tools under the action bar
// that change them.
import { useState, useEffect } from "../vendor/preact-hooks.mjs";
import { html } from "./ui.js";
import { t } from "./i18n.js";
import { sortOrder, arrange, moveCard } from "./hand.js";
import { getPref, setPref, enableNotifications } from "./feel.js";

/**
 * The preferences for `hand` under `trump`, and the hand's `order` and `groupOf` (its
 * gaps) from them. A hand arranged by hand lasts the round (`round`).
 */
export function usePrefs({ hand, trump, round }) {
  const [sortMode, setSortMode] = useState(() => getPref("sort", "trumps"));
  const [custom, setCustom] = useState(null);
  const [reorder, setReorder] = useState(false);
  const [autoplay, setAutoplay] = useState(() => getPref("autoplay", false));
  useEffect(() => setCustom(null), [round]);
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
  return { sortMode, custom, setSort, order, onMove, groupOf, reorder, setReorder, autoplay, flipAutoplay };
}

/** Sort, arrange by hand, auto-play, notifications. */
export function HandTools({ prefs }) {
  const { sortMode, custom, reorder, autoplay } = prefs;
  return html`<div class="hand-tools">
    <button type="button" class="btn small ghost" id="sort-btn" data-mode=${custom ? "custom" : sortMode} title=${t("hand.sort_hint")}
      onClick=${() => prefs.setSort(sortMode === "trumps" ? "suit" : "trumps")}>${custom ? t("hand.sort_custom") : t(`hand.sort_${sortMode}`)}</button>
    <button type="button" class="btn small ghost" id="reorder-btn" aria-pressed=${reorder ? "true" : "false"} title=${t("hand.reorder_hint")}
      onClick=${() => prefs.setReorder(!reorder)}>${reorder ? t("hand.reorder_done") : t("hand.reorder")}</button>
    <label class="switch" title=${t("feel.autoplay_hint")}><input type="checkbox" id="autoplay-toggle" checked=${autoplay} onChange=${prefs.flipAutoplay} /> ${t("feel.autoplay")}</label>
    <button type="button" class="btn small ghost" id="notify-btn" title=${t("feel.notify_hint")} onClick=${() => enableNotifications()}>${t("feel.notify")}</button>
  </div>`;
}
