"""Declarations and overturns of the trump suit (RULES §3.3; with more decks §12.1).

With d decks a declaration shows k identical cards of the trump rank (1 ≤ k ≤ d) or
k ≥ 2 identical jokers. Strengths order them: one trump-rank card 1; k ≥ 2 trump-rank
cards 2k − 2; k jokers 2k − 1 (so more cards overturn, and at equal count jokers beat
trump-rank cards). With two decks these are §3.3's 1, 2 and 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .cards import BJ_ID, CARDS, RANKS, RJ_ID, as_list
from .errors import IllegalAction
from .options import RuleOptions


def declaration_strength(ids: Sequence[int], trump_rank: str, decks: int = 2) -> int:
    """Strength of a declaration (§3.3): 1 one trump-rank card, 2 two identical trump-rank
    cards, 3 two identical jokers; with more decks (§12.1) 2k − 2 for k ≥ 2 identical
    trump-rank cards and 2k − 1 for k identical jokers. Raises `IllegalAction` for
    anything else."""
    if decks != 2:
        return _strength_k(ids, trump_rank, decks)
    r = RANKS.index(trump_rank)
    if len(ids) == 1:
        i = ids[0]
        if i < BJ_ID and i % 13 == r:
            return 1
        raise IllegalAction(
            f"RULES §3.3: a one-card declaration must be a card of the trump rank {trump_rank}"
        )
    if len(ids) == 2:
        a, b = ids
        if a != b:
            raise IllegalAction("RULES §3.3: a two-card declaration must be two identical cards")
        if a in (BJ_ID, RJ_ID):
            return 3
        if a % 13 == r:
            return 2
        raise IllegalAction(
            f"RULES §3.3: a pair declaration must be two cards of the trump rank {trump_rank} "
            "or two identical jokers"
        )
    raise IllegalAction("RULES §3.3: a declaration shows one or two cards")


def _strength_k(ids: Sequence[int], trump_rank: str, decks: int) -> int:
    """`declaration_strength` with `decks` decks (§12.1)."""
    r = RANKS.index(trump_rank)
    k = len(ids)
    if k == 0 or k > decks:
        raise IllegalAction(
            f"RULES §12.1: a declaration shows 1 to {decks} identical cards ({decks} decks)"
        )
    a = ids[0]
    if any(i != a for i in ids):
        raise IllegalAction(f"RULES §12.1: a {k}-card declaration must be {k} identical cards")
    if a in (BJ_ID, RJ_ID):
        if k == 1:
            raise IllegalAction(
                f"RULES §12.1: a one-card declaration must be a card of the trump rank {trump_rank}"
            )
        return 2 * k - 1
    if a % 13 != r:
        raise IllegalAction(
            f"RULES §12.1: a declaration shows cards of the trump rank {trump_rank} "
            "or two or more identical jokers"
        )
    return 1 if k == 1 else 2 * k - 2


def overturn_power(
    ids: Sequence[int], strength: int, joker_pairs: str = "equal", decks: int = 2
) -> int:
    """How strong a declaration is against others (§3.3): its strength, except that with
    option `joker_pairs="red_over_black"` two red jokers (4) beat two black jokers (3).
    With more decks (§12.1) twice the strength, plus one for red jokers over black ones
    of the same count under `red_over_black`."""
    if decks != 2:
        red = joker_pairs == "red_over_black" and strength % 2 == 1 and ids[0] == RJ_ID
        return 2 * strength + (1 if red and strength > 1 else 0)
    if strength == 3 and joker_pairs == "red_over_black" and ids[0] == RJ_ID:
        return 4
    return strength


#: the refusal of a standing declarer's own overturn while `self_reinforce` is off (§3.3)
_NOT_SELF: Final = (
    "RULES §3.3: a declaration can only be overturned by another player "
    "(option self_reinforce is off)"
)


def overturn_error(
    seat: int,
    ids: Sequence[int],
    strength: int,
    standing: tuple[int, int, tuple[int, ...]] | None,
    options: RuleOptions,
    decks: int = 2,
) -> str | None:
    """Why the declaration `ids` (of `strength`) by `seat` cannot stand against the
    standing (seat, strength, ids), or None (§3.3: only another player, only strictly
    stronger; options `self_reinforce` and `joker_pairs`; with more decks §12.1, where
    `self_reinforce` lets the standing declarer add copies of the same card)."""
    if standing is None:
        return None
    if decks != 2:
        return _overturn_error_k(seat, ids, strength, standing, options, decks)
    s_seat, s_strength, s_ids = standing
    if s_seat == seat:
        if not options.self_reinforce:
            return _NOT_SELF
        if len(s_ids) == 1 and len(ids) == 2 and ids[0] == s_ids[0]:
            return None
        return (
            "RULES §3.3: a declaration can only be overturned by another player; the "
            "standing declarer may only reinforce their single into the pair of the same "
            "card (option self_reinforce)"
        )
    jp = options.joker_pairs
    if overturn_power(ids, strength, jp) <= overturn_power(s_ids, s_strength, jp):
        if jp == "red_over_black":
            return (
                "RULES §3.3: an overturn must be strictly stronger than the standing "
                "declaration (a single by a pair or two jokers, a pair by two jokers, "
                "BJ BJ by RJ RJ: option joker_pairs=red_over_black)"
            )
        return (
            "RULES §3.3: an overturn must be strictly stronger than the standing "
            "declaration (a single by a pair or two jokers, a pair by two jokers)"
        )
    return None


def _overturn_error_k(
    seat: int,
    ids: Sequence[int],
    strength: int,
    standing: tuple[int, int, tuple[int, ...]],
    options: RuleOptions,
    decks: int,
) -> str | None:
    """`overturn_error` with `decks` decks (§12.1)."""
    s_seat, s_strength, s_ids = standing
    if s_seat == seat:
        if not options.self_reinforce:
            return _NOT_SELF
        if len(ids) > len(s_ids) and ids[0] == s_ids[0]:
            return None
        return (
            "RULES §12.1: a declaration can only be overturned by another player; the "
            "standing declarer may only reinforce it with more copies of the same card "
            "(option self_reinforce)"
        )
    jp = options.joker_pairs
    if overturn_power(ids, strength, jp, decks) <= overturn_power(s_ids, s_strength, jp, decks):
        return (
            "RULES §12.1: an overturn must be strictly stronger than the standing "
            "declaration (more cards; at equal count jokers over trump-rank cards"
            + (", red jokers over black: option joker_pairs=red_over_black)" if
               jp == "red_over_black" else ")")
        )
    return None


def declaration_suit(ids: Sequence[int]) -> str | None:
    """The trump suit a declaration makes (None for two jokers, §3.3)."""
    return CARDS[ids[0]].suit


def candidate_declarations(
    hand: Sequence[int], trump_rank: str, decks: int = 2
) -> list[tuple[int, ...]]:
    """Every declaration a hand can show, weakest first (§3.3; with more decks every k of
    a kind, §12.1: for k = 1, 2, … the trump-rank k-tuples by suit, then BJ, RJ ones)."""
    hand = as_list(hand)
    r = RANKS.index(trump_rank)
    if decks != 2:
        outk: list[tuple[int, ...]] = []
        for k in range(1, decks + 1):
            for s in range(4):
                i = s * 13 + r
                if hand[i] >= k:
                    outk.append((i,) * k)
            if k >= 2:
                for j in (BJ_ID, RJ_ID):
                    if hand[j] >= k:
                        outk.append((j,) * k)
        return outk
    out: list[tuple[int, ...]] = []
    for s in range(4):
        i = s * 13 + r
        if hand[i]:
            out.append((i,))
    for s in range(4):
        i = s * 13 + r
        if hand[i] >= 2:
            out.append((i, i))
    for j in (BJ_ID, RJ_ID):
        if hand[j] >= 2:
            out.append((j, j))
    return out
