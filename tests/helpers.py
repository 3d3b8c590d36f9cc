"""Engine-side helpers for tests: drive rounds, snapshot state, rig positions."""

from __future__ import annotations

import ast
import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from conftest import C
from shengji import Declare, Draw, Game, Play, Round, RoundResult, RuleOptions
from shengji.cards import CARDS
from shengji.follow import follow_error, iter_follows, iter_leads, random_follow, random_lead
from shengji.record import GameRecord
from shengji.shapes import Shape, shape_of
from shengji.trump import Trump


def snapshot(table: Game | Round) -> str:
    """Everything observable about a round or game: all four views, the spectator's, hands."""
    rnd = table.round if isinstance(table, Game) else table
    data = {
        "views": [table.view(s).to_json() for s in (0, 1, 2, 3, None)],
        "hands": [list(rnd.hand_counts(s)) for s in range(4)],
        "kitty": list(rnd.kitty),
        "actions": len(table.actions),
        "decision": repr(table.decision()),
    }
    return json.dumps(data, sort_keys=True)


def deal_all(rnd: Round) -> Round:
    """Draw all 100 cards without declaring."""
    while rnd.phase == "deal":
        rnd.apply(Draw())
    return rnd


def play_randomly(table: Game | Round, seed: int, stop=None) -> None:
    """Apply uniformly random legal actions until the end (or until stop(table))."""
    rng = random.Random(seed)
    while table.decision().phase != "over":
        if stop is not None and stop(table):
            return
        table.apply(table.random_action(rng))


# ---------------------------------------------------------------- rigged positions
# (the house-rule tests and their browser checks share them)


def rigged_deal(
    hands: dict[int, str], kitty: str = "", options: RuleOptions | None = None, **kw: object
) -> Round:
    """A round whose deal gives each seat the listed cards (the rest filled with low plain
    cards of no trump rank) and the kitty the listed cards, drawn through real `Draw`s."""
    rnd = Round(0, options, **kw)  # type: ignore[arg-type]
    rank = rnd.trump_rank
    pool = Counter({i: 2 for i in range(54)})
    want = {s: [c.id for c in C(hands.get(s, ""))] for s in range(4)}
    kit = [c.id for c in C(kitty)]
    for ids in [*want.values(), kit]:
        pool.subtract(ids)
    assert min(pool.values()) >= 0, "a card is wanted more than twice"
    filler = sorted(
        (i for i, n in pool.items() for _ in range(n)),
        key=lambda i: (CARDS[i].is_joker or CARDS[i].rank == rank, i),
    )
    for s in range(4):
        while len(want[s]) < 25:
            want[s].append(filler.pop(0))
    while len(kit) < 8:
        kit.append(filler.pop(0))
    deck = [want[(rnd.first_drawer + k) % 4].pop(0) for k in range(100)] + kit
    rnd = Round(0, options, deck=deck, **kw)  # type: ignore[arg-type]
    while rnd.phase == "deal":
        rnd.apply(Draw())
    return rnd


def position(
    hands: list[str],
    *,
    rank: str = "2",
    suit: str | None = "H",
    kitty: str = "3C 3C 4C 4C 6C 6C 7C 7C",
    declaring_team: int = 0,
    leader: int = 0,
    levels: tuple[str, str] = ("2", "2"),
    opponents_points: int = 0,
    options: RuleOptions | None = None,
) -> Round:
    """A round in its play phase with these (short) hands: the last tricks of a round."""
    return Round.from_position(
        [C(h) for h in hands], kitty=C(kitty), trump_rank=rank, trump_suit=suit,
        leader=leader, declaring_team=declaring_team, levels=levels,
        opponents_points=opponents_points, options=options,
    )


def play_trick(rnd: Round, *plays: str) -> None:
    leader = rnd.to_act
    assert leader is not None
    for k, p in enumerate(plays):
        rnd.apply(Play((leader + k) % 4, tuple(C(p))))


THROW_HANDS = ["AH AH QH", "KH 3D 4D", "5D 6D 7D", "8D 9D 10D"]


KITTY = "KS 10H 5D 3C 3C 4C 6C 7C"  # 25 points


FOLLOWERS = {0: "8D 8D 9D 9D JD JD", 2: "6D 6D 7D 7D 8C 8C", 3: "3S 3S 4S 6S 7S 8S"}


def last_trick_result(lead: str, option: str) -> RoundResult:
    """The last trick: opponent seat 1 leads `lead` and wins it; the round's result."""
    n = len(C(lead))
    hands = [" ".join(FOLLOWERS[s].split()[:n]) if s != 1 else lead for s in range(4)]
    rnd = position(hands, kitty=KITTY, leader=1,
                   options=RuleOptions(kitty_multiplier=option))
    play_trick(rnd, lead, hands[2], hands[3], hands[0])
    r = rnd.result
    assert r is not None and r.last_trick_winner == 1  # the opponents win the last trick
    return r


def round_result(
    opponents_points: int, levels: tuple[str, str], declaring_team: int, **opts: object
) -> RoundResult:
    """Finish a round with the opponents at `opponents_points` (the last trick, a single,
    is won by the declarers) and return its result."""
    rank = levels[declaring_team]
    trump_suit = "H"
    hands = ["AS", "7D", "9D", "JD"]
    leader = declaring_team  # seat 0 or 1 leads the top spade and wins
    if leader == 1:
        hands = ["7D", "AS", "9D", "JD"]
    if rank == "A":
        hands = [h.replace("AS", "KS") for h in hands]
    rnd = position(hands, rank=rank, suit=trump_suit, declaring_team=declaring_team,
                   leader=leader, levels=levels, opponents_points=opponents_points,
                   options=RuleOptions(**opts))  # type: ignore[arg-type]
    play_trick(rnd, *(hands[(leader + k) % 4] for k in range(4)))
    assert rnd.result is not None and rnd.result.last_trick_winner == leader
    return rnd.result


def scramble(rnd: Round, seat: int, rng: random.Random) -> Round:
    """The round with every card `seat` may not see (other hands, the kitty if it is
    not the starter; during the deal the undealt rest, kitty included) shuffled among
    those places (RULES §11); hand sizes are kept. At any table size (§12.1)."""
    n = rnd.options.n_players
    pool = [i for s in range(n) if s != seat for i, c in enumerate(rnd.hand_counts(s))
            for _ in range(c)]
    dealing = rnd.phase in ("deal", "declare")
    hide_kitty = seat != rnd.starter and not dealing
    if dealing:
        pool += list(rnd.deck[sum(rnd.hand_sizes):])
    elif hide_kitty:
        pool += list(rnd.kitty)
    rng.shuffle(pool)
    hands = [list(rnd.hand_counts(s)) for s in range(n)]
    k = 0
    for s in range(n):
        if s == seat:
            continue
        h = [0] * 54
        for i in pool[k : k + rnd.hand_sizes[s]]:
            h[i] += 1
        hands[s] = h
        k += rnd.hand_sizes[s]
    if dealing:
        return rnd.with_hidden(hands, undealt=pool[k:])
    return rnd.with_hidden(hands, kitty=pool[k:] if hide_kitty else None)


def assigned_targets(tree: ast.AST) -> Iterator[tuple[ast.stmt, ast.expr]]:
    """(statement, target) for every target that an assignment (plain, annotated or
    augmented) anywhere in `tree` writes: for the tests that read source for writes."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            yield node, t


def at_the_kitty(seed: int) -> Round:
    """A round dealt and declared by heuristic bots (seat 0 starts, trump rank 2),
    stopped where the starter buries the kitty (RULES §4)."""
    from shengji.bots import make_agent
    from shengji.driver import step

    rnd = Round(seed, trump_rank="2", starter=0, declaring_team=0)
    agents = [make_agent("heuristic", s) for s in range(4)]
    while rnd.phase != "kitty":
        step(rnd, agents)
    return rnd


def first_round_record(seed: int = 5) -> GameRecord:
    """A game whose first round heuristic bots played to its end (and no further)."""
    from shengji.bots.heuristic import HeuristicAgent
    from shengji.driver import step

    g = Game(seed)
    bots = [HeuristicAgent(s) for s in range(4)]
    while g.round_no == 0:
        step(g, bots)
    return g.record


def mid_trick_position(seed: int, tricks: int) -> tuple[Round, int]:
    """A round played by heuristic bots (seat 1 starts, trump rank 2) until `tricks`
    tricks are done and the next one is led; returns it and the seat that follows next."""
    from shengji.bots import make_agent
    from shengji.driver import step

    rnd = Round(seed, trump_rank="2", starter=1, declaring_team=1)
    agents = [make_agent("heuristic", s) for s in range(4)]
    while rnd.phase != "play" or len(rnd.tricks) < tricks or rnd.current:
        step(rnd, agents)
    step(rnd, agents)  # somebody leads: the next seat follows
    d = rnd.decision()
    assert d.seat is not None
    return rnd, d.seat


def checked_honest(new_agent: Callable[[], Any], positions: Iterable[tuple[int, int]],
                   rng: random.Random) -> int:
    """RULES §11: at each (seed, tricks) `mid_trick_position`, a fresh `new_agent()` acts
    the same after two scrambles of the cards the seat cannot see (which really move some
    of them) as before. Returns how many scrambled positions were checked."""
    checked = 0
    for seed, tricks in positions:
        rnd, seat = mid_trick_position(seed, tricks)
        a = new_agent().act(rnd.view(seat))
        moved = 0
        for _ in range(2):
            other = scramble(rnd, seat, rng)
            moved += any(other.hand_counts(s) != rnd.hand_counts(s) for s in range(4))
            assert other.view(seat) == rnd.view(seat)
            b = new_agent().act(other.view(seat))
            assert a == b
            checked += 1
        assert moved  # the scramble really moved hidden cards
    return checked


def deal_asks_in(rnd: Round, agents: list) -> Iterator[tuple[Round, int]]:  # type: ignore[type-arg]
    """Yield (round, seat) at every declaration ask of `rnd`'s deal and final window
    (RULES §3.1, §3.3), the `agents` (by seat) answering each ask after the yield."""
    while rnd.phase in ("deal", "declare"):
        d = rnd.decision()
        if d.phase == "deal":
            rnd.apply(Draw())
            after = rnd.decision()
            s = after.last_drawer
            if after.phase == "deal" and s is not None and rnd.has_declaration(s):
                yield rnd, s
                action = agents[s].act(rnd.view(s))
                if isinstance(action, Declare):
                    rnd.apply(action)
        else:
            assert d.seat is not None
            yield rnd, d.seat
            rnd.apply(agents[d.seat].act(rnd.view(d.seat)))


def every_nth_play(rnd: Round, agents: list, n: int) -> Iterator[Any]:  # type: ignore[type-arg]
    """Play `rnd` out with `agents` (by seat), yielding the view of the seat to play at
    every `n`-th play decision, before its agent answers it."""
    from shengji.driver import step

    k = 0
    while not rnd.is_over:
        d = rnd.decision()
        if d.phase == "play" and d.seat is not None:
            k += 1
            if k % n == 0:
                yield rnd.view(d.seat)
        step(rnd, agents)


def bury_and_plays(record, seat: int) -> int:  # type: ignore[no-untyped-def]
    """How many bury and play actions `seat` made in the record's first round."""
    from shengji.actions import Bury, action_from_json

    g = Game(record.seed, record.options)
    mine = 0
    for raw in record.actions:
        a = action_from_json(raw, record.options.n_players)
        if g.round_no > 0:
            break
        if isinstance(a, (Play, Bury)) and a.seat == seat:
            mine += 1
        g.apply(a)
    return mine


# ---------------------------------------------------------------- generators against the checker


def all_plays(counts: list[int], size: int) -> set[tuple[int, ...]]:
    """Every distinct sub-multiset of `size` cards of a count array, as sorted ids."""
    items = [(i, c) for i, c in enumerate(counts) if c]
    out = set()
    for takes in itertools.product(*[range(c + 1) for _, c in items]):
        if sum(takes) == size:
            out.add(tuple(sorted(i for (i, _), k in zip(items, takes, strict=True)
                                 for _ in range(k))))
    return out


def checked_follows(counts: list[int], lead_ids: list[int], trump: Trump, strict: bool,
                    draws: int) -> set[tuple[int, ...]]:
    """RULES §6.2: the follow generator lists each legal follow of the lead once, exactly
    the plays of its size that the checker accepts, and `draws` random follows are among
    them. Returns the accepted plays."""
    shape = shape_of(lead_ids, trump)
    generated = [tuple(sorted(p)) for p in iter_follows(counts, shape, trump, strict)]
    assert len(generated) == len(set(generated)), "duplicates in the generator"
    accepted = {p for p in all_plays(counts, len(lead_ids))
                if follow_error(counts, shape, p, trump, strict) is None}
    assert set(generated) == accepted
    rng = random.Random(len(generated))
    for _ in range(draws):
        assert tuple(sorted(random_follow(counts, shape, trump, rng, strict))) in accepted
    return accepted


def checked_leads(counts: list[int], trump: Trump, rng: random.Random,
                  draws: int) -> set[tuple[int, ...]]:
    """RULES §6.1: the lead generator lists each non-empty play of one play suit once, and
    `draws` random leads (from `rng`) are among them. Returns those plays."""
    generated = [tuple(sorted(p)) for p in iter_leads(counts, trump)]
    assert len(generated) == len(set(generated))
    expected = {p for size in range(1, sum(counts) + 1) for p in all_plays(counts, size)
                if len({trump.play_suit[i] for i in p}) == 1}
    assert set(generated) == expected
    for _ in range(draws):
        assert tuple(sorted(random_lead(counts, trump, rng))) in expected
    return expected


def follow_chi2(counts: list[int], shape: Shape, trump: Trump, seed: int,
                n: int = 6000) -> tuple[set[tuple[int, ...]], float]:
    """`n` random follows of `shape` (from a `random.Random(seed)`): each of the
    generator's distinct follows is drawn, and nothing else. Returns those follows and
    the chi-square statistic of the draws against a uniform choice among them."""
    plays = {tuple(sorted(p)) for p in iter_follows(counts, shape, trump)}
    rng = random.Random(seed)
    freq = Counter(tuple(sorted(random_follow(counts, shape, trump, rng))) for _ in range(n))
    assert set(freq) == plays
    expected = n / len(plays)
    return plays, sum((freq[p] - expected) ** 2 / expected for p in plays)
