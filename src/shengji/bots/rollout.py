"""The expert's rollouts: a sampled world played to the end by the heuristic (issue 31).

The hot path of the search, compiled with the engine (`_build.COMPILED`): every seat
plays `HeuristicAgent.choose_play` from its own `Knowledge`, which is carried forward
one play at a time (`Knowledge.observe`, `observe_public`), never rebuilt; plays go
through `Round.step` (the engine's checks, no events built) and no view is made. The
expert (`bots/expert.py`) calls `play_out` for each candidate in each world and reads
`utility` at the end.
"""

from __future__ import annotations

from ..actions import Play
from ..cards import CARDS
from ..round import Round
from .heuristic import HeuristicAgent
from .knowledge import Knowledge

__all__ = ["play_out", "utility"]


# The plays a rollout makes, kept: a `Play` is immutable and the same (seat, cards) comes
# back in rollout after rollout, so it is built once (and its cards once) rather than at
# every step (4 rounds of `bench/search.py`, 7,455 rollouts, leave about 7,000 of them).
# Bounded: cleared when it holds `_MAX_PLAYS` (a few MB).
_PLAYS: dict[tuple[int, tuple[int, ...]], Play] = {}
_MAX_PLAYS = 20_000


def play_out(policy: HeuristicAgent, rnd: Round, ks: list[Knowledge], endgame: int) -> bool:
    """Play `rnd` on with `policy` for every seat, `ks[s]` being seat `s`'s knowledge
    (updated as the plays are made); True once the round is over, False when it stops at
    a trick's start where the seat to lead holds at most `endgame` cards (`endgame` > 0:
    the caller solves the rest exactly)."""
    k0 = ks[0]
    plays_made = _PLAYS
    start = rnd.current
    lead = list(start[0][1]) if start else None  # the current trick's lead, as a list
    # friends mode (RULES §12.4) with a call open: a join changes the seats' sides
    joins = rnd.call_by if rnd.friends_mode and k0.open_calls else None
    while rnd.phase == "play":
        seat = rnd.to_act
        assert seat is not None
        plays = rnd.current
        if endgame and not plays and rnd.hand_sizes[seat] <= endgame:
            return False
        ids = policy.choose_play(ks[seat], plays)
        cards = tuple(ids)
        key = (seat, cards)
        action = plays_made.get(key)
        if action is None:
            if len(plays_made) >= _MAX_PLAYS:
                plays_made.clear()
            action = plays_made[key] = Play(seat, tuple([CARDS[i] for i in ids]))
        # the policy's plays are legal: a follow is checked by `choose_play` itself (§6.2),
        # a lead is of the seat's cards of one suit, and a throw is still checked (§6.4)
        rnd.step_legal_play(seat, cards, action)
        if plays:  # a follow is put down as played (RULES §6.2); it may end the trick
            actual = ids
            for k in ks:
                k.observe(seat, actual, lead)
            k0.observe_public(seat, actual, lead)
            if joins is not None and not rnd.current and rnd.call_by != joins:
                joins = _see_joins(rnd, ks)
        else:  # a lead: a failed throw puts down only the cards it forces (§6.4)
            actual = lead = list(rnd.current[-1][1])
            for k in ks:
                k.observe(seat, actual, None)
            k0.observe_public(seat, actual, None)
    return True


def _see_joins(rnd: Round, ks: list[Knowledge]) -> tuple[int | None, ...]:
    """A trick ended with a called copy in it (RULES §12.4): every seat's knowledge learns
    the friends and the calls open now; the new `call_by` to compare with."""
    friends = rnd.friends
    # a call is spent only once its copy is played, so the open ones have no `call_by`
    open_ids = [cid for (cid, _), by in zip(rnd.calls, rnd.call_by, strict=True) if by is None]
    for k in ks:
        k.see_join(friends, open_ids)
    return rnd.call_by


def utility(rnd: Round, me: int) -> float:
    """The finished round's worth to `me`'s side: levels gained (+) or conceded (-), and a
    little for the points margin so that rollouts inside one level band still differ.
    The side is the team (RULES §8.2, §12.2) or, in friends mode, the side `me` ended
    the round on (§12.4)."""
    res = rnd.result
    assert res is not None
    declaring = res.declared(me)
    gained = (res.gainer == "declarers") == declaring
    levels = float(res.levels_gained if gained else -res.levels_gained)
    # The 80-115 band swaps the declarers without levels: worth a little (§8.2).
    if res.levels_gained == 0:
        levels = 0.5 if gained else -0.5
    # Half the utility is a smooth reading of the points (one band, 40 points with two
    # decks, ~ one level, §8.2, §12.3): it tells apart rollouts within one level band
    # and so lowers the noise.
    band = 20 * rnd.n_decks
    margin = (2 * band - res.opponents_points) / band
    margin = max(-3.0, min(3.0, margin))
    if not declaring:
        margin = -margin
    return 0.5 * levels + 0.5 * margin
