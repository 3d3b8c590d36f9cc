"""Declarations and overturns of the trump suit (RULES §3.3)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BJ_ID, CARDS, RANKS, RJ_ID, as_list
from .errors import IllegalAction
from .options import RuleOptions


def declaration_strength(ids: Sequence[int], trump_rank: str) -> int:
    """Strength of a declaration (§3.3): 1 one trump-rank card, 2 two identical trump-rank
    cards, 3 two identical jokers. Raises `IllegalAction` for anything else."""
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


def overturn_power(ids: Sequence[int], strength: int, joker_pairs: str = "equal") -> int:
    """How strong a declaration is against others (§3.3): its strength, except that with
    option `joker_pairs="red_over_black"` two red jokers (4) beat two black jokers (3)."""
    if strength == 3 and joker_pairs == "red_over_black" and ids[0] == RJ_ID:
        return 4
    return strength


def overturn_error(
    seat: int,
    ids: Sequence[int],
    strength: int,
    standing: tuple[int, int, tuple[int, ...]] | None,
    options: RuleOptions,
) -> str | None:
    """Why the declaration `ids` (of `strength`) by `seat` cannot stand against the
    standing (seat, strength, ids), or None (§3.3: only another player, only strictly
    stronger; options `self_reinforce` and `joker_pairs`)."""
    if standing is None:
        return None
    s_seat, s_strength, s_ids = standing
    if s_seat == seat:
        if not options.self_reinforce:
            return (
                "RULES §3.3: a declaration can only be overturned by another player "
                "(option self_reinforce is off)"
            )
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


def declaration_suit(ids: Sequence[int]) -> str | None:
    """The trump suit a declaration makes (None for two jokers, §3.3)."""
    return CARDS[ids[0]].suit


def candidate_declarations(hand: Sequence[int], trump_rank: str) -> list[tuple[int, ...]]:
    """Every declaration a hand can show, weakest first (§3.3)."""
    hand = as_list(hand)
    r = RANKS.index(trump_rank)
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
