"""`Round.clone` and the one constructor behind it (issue 30): a clone is its original.

A clone must equal its original in every public property and in every seat's view
(RULES §11) when it is made, and stay equal when both go on with the same actions,
in every kind of position: the deal with declarations standing, the final declaration
window, the kitty, mid-trick, after failed throws, after a redeal, at the end; and so
must clones of the rounds that `from_view`, `from_position` and `with_hidden` build.
Going on with the clone alone leaves the original as it was (search depends on it).
"""

from __future__ import annotations

import ast
import itertools
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import C
from helpers import assigned_targets
from shengji import Declare, Draw, Pass, Round, RuleOptions
from shengji.actions import Action
from shengji.vocab import Phase

ROUND_PY = Path(__file__).resolve().parent.parent / "src" / "shengji" / "round.py"
SEATS = (0, 1, 2, 3)


def _round_class() -> ast.ClassDef:
    tree = ast.parse(ROUND_PY.read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Round")


def _method(name: str) -> ast.FunctionDef:
    return next(
        n for n in _round_class().body if isinstance(n, ast.FunctionDef) and n.name == name
    )


#: every public property of `Round`, read from its source (a compiled `Round` has no
#: `property` objects to list)
PROPERTIES = sorted(
    n.name for n in _round_class().body
    if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
    and any(isinstance(d, ast.Name) and d.id == "property" for d in n.decorator_list)
)


def state(rnd: Round) -> dict[str, Any]:
    """Everything a round tells: every property, every per-seat query and every view."""
    out: dict[str, Any] = {name: getattr(rnd, name) for name in PROPERTIES}
    out["decision"] = rnd.decision()
    out["display_trump"] = rnd.display_trump()
    out["trick_views"] = rnd.trick_views()
    out["declaration_cards"] = rnd.declaration_cards()
    out["point_cards_won"] = rnd.point_cards_won()
    for s in SEATS:
        out[f"hand_counts({s})"] = rnd.hand_counts(s)
        out[f"hand({s})"] = rnd.hand(s)
        out[f"sorted_hand({s})"] = rnd.sorted_hand(s)
        out[f"legal_declarations({s})"] = rnd.legal_declarations(s)
        out[f"has_declaration({s})"] = rnd.has_declaration(s)
        # the first plays in order (a kitty has millions of 8-card choices, §4)
        out[f"legal_plays({s})"] = list(itertools.islice(rnd.legal_plays(s), 60))
    for seat in (*SEATS, None):
        view = rnd.view(seat)
        out[f"view({seat})"] = view
        out[f"view({seat}).to_json"] = view.to_json()
        # fields the view leaves out of its equality, compared on their own
        out[f"view({seat}).hand_counts"] = view.hand_counts
        out[f"view({seat}).lead_shape"] = view.lead_shape
    return out


def assert_same(a: Round, b: Round) -> None:
    sa, sb = state(a), state(b)
    assert sa.keys() == sb.keys()
    differ = [k for k in sa if sa[k] != sb[k]]
    assert not differ, f"clone differs from its original in {differ}"


def declaring_policy(rnd: Round, rng: random.Random) -> Action:
    """A random legal action that declares whenever it can (declarations, overturns)."""
    d = rnd.decision()
    if d.phase in (Phase.DEAL, Phase.DECLARE):
        seat = d.last_drawer if d.phase is Phase.DEAL else d.seat
        if seat is not None and rnd.has_declaration(seat) and rng.random() < 0.5:
            return Declare(seat, rng.choice(rnd.legal_declarations(seat)))
    return rnd.random_action(rng)


def passing_policy(rnd: Round, rng: random.Random) -> Action:
    """Nobody declares in the first deal: a first round redeals (RULES §3.5) or flips the
    kitty; the deal after a redeal is played at random."""
    d = rnd.decision()
    if rnd.attempt:
        return rnd.random_action(rng)
    if d.phase is Phase.DEAL:
        return Draw()
    if d.phase is Phase.DECLARE:
        assert d.seat is not None
        return Pass(d.seat)
    return rnd.random_action(rng)


POLICIES = {"random": lambda rnd, rng: rnd.random_action(rng), "declaring": declaring_policy,
            "passing": passing_policy}
OPTIONS = {
    "seed": RuleOptions(),
    "houses": RuleOptions(round1_no_declaration="flip", strict_tractor_follow=True,
                          gap_tractors="on", throw_tractors="off", first_drawer=2),
}


def positions() -> Iterator[tuple[str, Round, random.Random]]:
    """Seeded rounds stopped at many points of their life, with the rng to go on."""
    for opt_name, options in OPTIONS.items():
        for pol_name, policy in POLICIES.items():
            for seed in range(4):
                first = seed % 2 == 0
                kw: dict[str, Any] = {} if first else {
                    "starter": seed % 4, "declaring_team": seed % 2, "trump_rank": "7",
                    "levels": ("7", "5"), "round_no": 3,
                }
                rnd = Round(seed, options, **kw)
                rng = random.Random(seed * 31 + len(pol_name))
                steps = 0
                while not rnd.is_over:
                    # the declaration window and the kitty are short: every step of them
                    if (steps % 23 == 7 or rnd.phase in (Phase.DECLARE, Phase.KITTY)
                            or rnd.phase is Phase.PLAY and steps % 9 == 0):
                        yield f"{opt_name}/{pol_name}/{seed}@{steps}", rnd, rng
                    rnd.apply(policy(rnd, rng))
                    steps += 1
                yield f"{opt_name}/{pol_name}/{seed}@over", rnd, rng


def test_the_positions_cover_every_phase_and_the_hard_cases() -> None:
    seen: set[str] = set()
    for _, rnd, _ in positions():
        seen.add(str(rnd.phase))
        if rnd.phase is Phase.PLAY and rnd.current:
            seen.add("mid-trick")
        if rnd.failed_throws:
            seen.add("failed throw")
        if rnd.attempt:
            seen.add("redealt")
        if rnd.standing is not None and rnd.phase in (Phase.DEAL, Phase.DECLARE):
            seen.add("declaration standing")
        if rnd.kitty_flip:
            seen.add("kitty flipped")
    assert seen >= {
        "deal", "declare", "kitty", "play", "over", "mid-trick", "failed throw", "redealt",
        "declaration standing", "kitty flipped",
    }


def test_a_clone_equals_its_original_when_made_and_after_the_same_actions() -> None:
    n = 0
    for name, rnd, rng in positions():
        copy = rnd.clone()
        assert copy is not rnd, name
        assert_same(rnd, copy)
        # both go on with the same actions (those of one rng), compared after each
        twin = random.Random(rng.random())
        a, b = rnd.clone(), copy
        for _ in range(4):
            if a.is_over:
                break
            action = POLICIES["random"](a, twin)
            assert a.apply(action) == b.apply(action), name
            assert_same(a, b)
        n += 1
    assert n > 120


def test_going_on_with_a_clone_leaves_its_original_as_it_was() -> None:
    for name, rnd, rng in positions():
        if rnd.is_over:
            continue
        before = state(rnd)
        copy = rnd.clone()
        play = random.Random(rng.random())
        for _ in range(30):
            if copy.is_over:
                break
            copy.step(copy.random_action(play))
        assert state(rnd) == before, name


def test_clones_of_built_positions_equal_them() -> None:
    """`from_view` (a search world), `from_position` and `with_hidden` build through the
    same constructor: their clones are them too."""
    built = 0
    for name, rnd, _ in positions():
        if rnd.phase not in (Phase.KITTY, Phase.PLAY) or rnd.attempt:
            continue
        seat = rnd.decision().seat
        hands = [list(rnd.hand_counts(s)) for s in SEATS]
        hidden = rnd.kitty if rnd.phase is Phase.PLAY else rnd.kitty_taken
        world = Round.from_view(rnd.view(seat), hands, hidden)
        assert_same(world, world.clone())
        # the world is the round as that seat sees it, hidden cards as they are
        assert world.view(seat) == rnd.view(seat), name
        shuffled = [h[:] for h in hands]
        if seat is not None:
            a, b = (seat + 1) % 4, (seat + 2) % 4
            i = next((i for i in range(54) if shuffled[a][i] and not shuffled[b][i]), None)
            j = next((j for j in range(54) if shuffled[b][j] and not shuffled[a][j]), None)
            if i is not None and j is not None:
                shuffled[a][i] -= 1
                shuffled[b][i] += 1
                shuffled[b][j] -= 1
                shuffled[a][j] += 1
        other = rnd.with_hidden(shuffled)
        assert_same(other, other.clone())
        if seat is not None:
            assert other.view(seat) == rnd.view(seat), name  # RULES §11
        built += 1
    assert built > 30
    pos = Round.from_position(
        [C("3S 4S 5S"), C("6S 7S 8S"), C("9S 10S JS"), C("3H 4H 5H")],
        kitty=C("6H 7H 8H 9H 10H JH QH KH"), trump_suit="H", leader=1, declaring_team=0,
    )
    assert_same(pos, pos.clone())
    assert pos.kitty_taken == pos.kitty and pos.deck == ()


def test_clone_hands_every_field_to_the_constructor_by_its_name() -> None:
    """`_copy` passes `_set_state` its arguments by position (for speed): each must be
    the field of its parameter's name (`self._x`, a copy of it, or the local `x`)."""
    params = [a.arg for a in _method("_set_state").args.args[1:]]
    calls = [
        n for n in ast.walk(_method("_copy"))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr == "_set_state"
    ]
    assert len(calls) == 1 and not calls[0].keywords
    args = calls[0].args
    assert len(args) <= len(params)
    wrong = []
    for param, arg in zip(params, args, strict=False):
        fields = {
            n.attr for n in ast.walk(arg)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == "self"
        }
        ok = (isinstance(arg, ast.Name) and arg.id == param) or fields == {f"_{param}"}
        if not ok:
            wrong.append(f"{param} <- {ast.unparse(arg)}")
    assert not wrong, wrong
    # what clone leaves to the defaults is the per-action scratch state, nothing else
    assert params[len(args):] == ["events", "want_events"]


def test_every_field_of_a_round_is_set_by_the_one_constructor() -> None:
    """No method gives a round a field `_set_state` does not set (issue 30)."""
    def assigned(fn: ast.AST) -> set[str]:
        out = set()
        for _, t in assigned_targets(fn):
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                out.add(t.attr)
        return out

    ctor = assigned(_method("_set_state"))
    everywhere = assigned(_round_class())
    assert {"_hands", "_phase", "_tricks", "_sorted_hands", "_result"} <= ctor
    assert everywhere - ctor == set()
    params = {a.arg for a in _method("_set_state").args.args[1:]}
    # each field is a parameter, but for those derived from another: `_rank_idx`, and the
    # table's parts read once from `table` (RULES §12.1)
    assert {f[1:] for f in ctor} - params == {
        "rank_idx", "n", "d", "n_kitty", "n_hand", "friends_mode"
    }


@pytest.mark.parametrize("seed", [0, 5])
def test_a_redeal_starts_the_deal_over_and_keeps_the_history(seed: int) -> None:
    """A redeal (§3.5) resets the deal through the constructor and keeps the history."""
    rnd = Round(seed)
    rng = random.Random(seed)
    while rnd.attempt == 0:
        events = rnd.apply(passing_policy(rnd, rng))
    assert [e.kind for e in events][-1] == "redealt"
    assert rnd.phase is Phase.DEAL and rnd.drawn == 0 and len(rnd.actions) == 104
    assert rnd.kitty_taken == rnd.deck[100:]
    assert_same(rnd, rnd.clone())
