"""The toolkit for writing bots: the engine's id-level helpers, public and in one place.

A bot sees a `View` (RULES §11) and answers an `Action`. The view gives cards as `Card`s
and the hand as a `Hand` of counts; searching and rule-based bots work faster on card ids
(0-53, `CARDS[i]` is the card) with the trump's tables. Everything such a bot needs from
the engine is here, with a stable name, so that no bot reaches into engine internals:

- cards: `CARDS`, `N_IDS`, `POINTS` (points per id), `cards_from_ids`, `Hand`, `as_list`
  (a count array or ids as a `list`, which compiled code indexes fastest); `randbelow`
  (`rng.randrange(n)`'s very draws in one compiled call);
- trump: `Trump` (tables per id: `play_suit`, `level`, `sort_key`), `TRUMP` (the play
  suit number of trumps, RULES §5);
- shapes (RULES §5.2, §6.1): `Shape`, `Unit`, `shape_of(ids, trump)`, `decompose`
  (a play's units), `match_value` (how well a follow matches a lead, §6.2); with more
  decks (§12.3, `Trump.decks`) a `Unit` is `length` k-tuples of `k` identical cards and
  `Shape.need_k(k)` the k-tuples a follower must match;
- legality (RULES §6): `iter_leads`, `iter_follows` (every distinct legal lead/follow as
  ids), `follow_error` (why a follow is illegal, or None);
- tricks and scoring: `winner_index` (RULES §6.3), `kitty_multiplier` (RULES §8.1);
- search: `Round.from_view` / `Round.clone` / `Round.step` (determinized worlds and
  rollouts), `Round.with_hidden`.
"""

from __future__ import annotations

from .cards import CARDS, N_IDS, POINTS, Card, as_list, cards_from_ids, randbelow
from .follow import follow_error, iter_follows, iter_leads
from .hand import Hand
from .results import TrickView
from .round import Round
from .scoring import kitty_multiplier
from .shapes import Shape, Unit, decompose, match_value, shape_of
from .trick import winner_index
from .trump import TRUMP, Trump
from .views import View

__all__ = [
    "CARDS", "Card", "Hand", "N_IDS", "POINTS", "Round", "Shape", "TRUMP", "TrickView", "Trump",
    "Unit", "View", "as_list", "cards_from_ids", "decompose", "follow_error", "iter_follows",
    "iter_leads", "kitty_multiplier", "match_value", "randbelow", "shape_of", "winner_index",
]
