"""The heuristic agent: plays like a decent human from its own view only.

It counts cards (every card played, the cards it holds and, as the starter,
the kitty it buried), remembers who showed a void or ran out of pairs in a
suit, and from that proves which of its units no other hand can beat (RULES
§6.1), so it leads sure winners and safe throws (cards shown to stop a failed
throw count as held, §6.4). It declares when long in a suit, buries the kitty to
make voids, pulls trumps when strong, otherwise leads low pairs and tractors
rather than singles and keeps its sure trump winners, gives points to a partner
who holds the trick, ducks low when the trick is lost, and keeps its top trump for
the last trick when the kitty is worth it (§8.1, with the round's multiplier).
Units are read with the round's options (§5.4 gap_tractors, §6.1 throw_tractors,
§6.2 strict_tractor_follow).

The decisions live in one module each, around the seat's `knowledge.Knowledge`
(what it knows, §11) and `heuristic_base.HeuristicBase` (tunables, card values):
`heuristic_declare` (§3.3), `heuristic_bury` (§4), `heuristic_lead` (§6.1) and
`heuristic_follow` (§6.2, §6.3). This module puts them together as `HeuristicAgent`.

Speed: the agent keeps what its seat knows between its turns and updates it from
the plays made since (rebuilt from the view when the view is not a later moment
of the same round); during the deal it lists the legal declarations only when it
holds a trump-rank card or a joker and something changed since it last had none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import Action, Bury, Pass, Play
from ..botkit import CARDS, N_IDS, Card, View, follow_error
from .heuristic_base import HeuristicBase, Ids, lead_shape
from .heuristic_bury import bury_options
from .heuristic_call import choose_calls
from .heuristic_declare import choose_declaration
from .heuristic_follow import fallback, follow
from .heuristic_lead import lead
from .knowledge import Knowledge

__all__ = ["HeuristicAgent"]


class HeuristicAgent(HeuristicBase):
    """A rule-based player; deterministic given its seed (the seed breaks ties). Its
    tunables are `HeuristicBase`'s."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        # What this seat knows of the round being played, kept up to date from the
        # plays made between two of its turns instead of being rebuilt every time.
        self._known: Knowledge | None = None
        self._no_decl: tuple[object, ...] | None = None  # the last ask with no declaration

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled (to a worker process) as its random state; the kept knowledge is rebuilt
        # from the next view, which gives the same choices. Compiled, the class needs this.
        return (_restore_heuristic, (self.rng.getstate(),))

    # ================================================================ entry point
    def act(self, view: View) -> Action:
        """The heuristic's action for the seat's view: declare or pass, bury, or play."""
        seat = view.seat
        assert seat is not None, "an agent plays a seat"
        phase = view.phase
        if phase in ("deal", "declare"):
            return self._declare(view, seat)
        if phase == "kitty":
            return Bury(seat, tuple(self._bury(view)))
        if phase == "call":  # friends mode, the leader (RULES §12.4)
            return choose_calls(view)
        if phase == "play":
            return Play(seat, tuple(CARDS[i] for i in self._play(view, seat)))
        raise ValueError(f"nothing to do in phase {phase!r}")

    def _declare(self, view: View, seat: int) -> Action:
        # A declaration needs a trump-rank card or a joker pair (§3.3): without one, or
        # with the same such cards and the same standing declaration as at the last ask
        # when there was nothing to declare, pass without listing the declarations.
        rank = view.trump_rank
        marks = tuple(c.id for c in view.hand if c.rank == rank or c.is_joker)
        if not marks:
            return Pass(seat)
        ask = (view.round_no, seat, view.phase, len(view.declarations), marks)
        if ask == self._no_decl:
            return Pass(seat)
        options = view.legal_declarations()
        if not options:
            self._no_decl = ask
            return Pass(seat)
        return choose_declaration(view, seat, options, self.rng)

    # ================================================================ the kitty (§4)
    def _bury(self, view: View) -> list[Card]:
        return [CARDS[i] for i in self.bury_options(view, 1)[0]]

    def bury_options(self, view: View, n: int) -> list[list[int]]:
        """The `n` best distinct kitties (ids) by this bot's judgement, best first (§4):
        see `heuristic_bury.bury_options`."""
        return bury_options(self, view, n)

    # ================================================================ the play (§6)
    def play_ids(self, view: View) -> Ids:
        """The play (card ids) this bot would make from `view` (its seat's turn, §6)."""
        assert view.seat is not None
        return self._play(view, view.seat)

    def _play(self, view: View, seat: int) -> Ids:
        t = view.trump
        assert t is not None
        k = self._known
        if k is None or not k.sync(view):
            k = self._known = Knowledge(view, t)
        trick = view.current_trick
        plays = [] if trick is None else [(s, [c.id for c in cs]) for s, cs in trick.plays]
        return self.choose_play(k, plays)

    def choose_play(self, k: Knowledge, plays: Sequence[tuple[int, Sequence[int]]]) -> Ids:
        """The play (ids) for the seat `k` knows about, given the current trick's plays.

        The view-free core of the play phase, also used as the search's rollout policy.
        """
        if not plays:
            return lead(self, k)
        t = k.t
        led = plays[0][1]
        n = len(led)
        ps = t.play_suit[led[0]]
        if k.suit_len[ps] == n or k.n_hand == n:  # one legal play: all of them (§6.2)
            hand = k.hand
            pool = t.suit_ids[ps] if k.suit_len[ps] == n else range(N_IDS)
            return [i for i in pool for _ in range(hand[i])]
        shape = lead_shape(led, t)
        choice = follow(self, k, plays, shape)
        if n == 1:  # a single: legal if in the led suit or void in it (§6.2)
            if len(choice) == 1 and k.hand[choice[0]] and (
                t.play_suit[choice[0]] == ps or k.suit_len[ps] == 0
            ):
                return choice
        elif follow_error(k.hand, shape, choice, t, k.strict) is None:
            return choice
        return fallback(self, k, shape)


def _restore_heuristic(rng_state: tuple[Any, ...]) -> HeuristicAgent:
    """A `HeuristicAgent` with this random state (unpickling)."""
    agent = HeuristicAgent(0)
    agent.rng.setstate(rng_state)
    return agent
