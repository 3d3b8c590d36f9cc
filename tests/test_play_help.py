"""Issue 30: what the browser no longer recomputes comes from the engine. The seat's own
`forced` play (`View.play_help_json`, sent in the private part of a broadcast) is the
unique legal play (RULES §6.2, with and without `strict_tractor_follow`, and at §12
tables with 3 decks); a legal lead's `kind` and `units` in the reply to `check` are the
engine's decomposition (§6.1, §12.3)."""

import itertools
import json
import random

import pytest

from shengji import Game
from shengji.actions import Play
from shengji.options import RuleOptions
from shengji.shapes import shape_of


def _check_round(options: RuleOptions, seed: int) -> tuple[int, int]:
    """Play one round at random, checking every seat's help at every play decision;
    returns (decisions seen, forced plays seen)."""
    g = Game(seed=seed, options=options)
    rng = random.Random(seed)
    seen = forced = 0
    while not g.is_over and not g.results:
        d = g.decision()
        if d.phase == "play" and d.seat is not None:
            for seat in range(options.n_players):
                help_ = g.view(seat).play_help_json()
                if seat != d.seat:  # nothing for a seat not to act
                    assert help_ == {}
                    continue
                seen += 1
                legal = list(itertools.islice(g.legal_plays(seat), 2))  # the round's own
                if len(legal) == 1:
                    forced += 1
                    assert sorted(help_["forced"]) == sorted(c.text for c in legal[0])
                    g.check(Play(seat, tuple(c for c in legal[0])))
                else:
                    assert help_ == {}
        g.apply(g.random_action(rng))
    return seen, forced


@pytest.mark.parametrize(
    "options",
    [
        RuleOptions(),
        RuleOptions(strict_tractor_follow=True),
        RuleOptions(players=6, decks=3),
        RuleOptions(players=6, decks=3, strict_tractor_follow=True),
    ],
    ids=["default", "strict", "six-3decks", "six-3decks-strict"],
)
def test_the_forced_play_is_the_engines_only_legal_play(options: RuleOptions) -> None:
    seen = forced = 0
    for seed in range(3):
        s, f = _check_round(options, seed)
        seen += s
        forced += f
    assert seen > 50 and forced > 0 and seen - forced > 20, (seen, forced)


def test_there_is_no_help_outside_the_seats_own_play_turn() -> None:
    g = Game(seed=1)
    rng = random.Random(1)
    while g.decision().phase in ("deal", "declare", "kitty"):
        for seat in range(4):
            assert g.view(seat).play_help_json() == {}
        g.apply(g.random_action(rng))
    assert g.view(None).play_help_json() == {}
    # the engine's own JSON (bots, records, external bots) is unchanged by the help
    assert all("forced" not in json.dumps(g.view(s).to_json()) for s in range(4))


@pytest.mark.parametrize("players,decks", [(4, 2), (6, 3)])
def test_a_legal_leads_kind_and_units_in_the_check_reply_are_the_engines(
        players: int, decks: int) -> None:
    from shengji.server import routing

    g = Game(seed=7, options=RuleOptions(players=players, decks=decks))
    rng = random.Random(7)
    while g.decision().phase != "play":
        g.apply(g.random_action(rng))
    seat = g.decision().seat
    assert seat is not None
    v = g.view(seat)
    assert v.trump is not None and v.lead is None

    class _T:  # the two things `_lead_units` reads of a table
        game = g

    leads = list(itertools.islice(v.legal_plays(), 400))
    kinds = set()
    for play in leads:
        got = routing._lead_units(_T(), seat, play)  # type: ignore[arg-type]
        assert got is not None
        shape = shape_of([c.id for c in play], v.trump)
        assert got["kind"] == str(shape.kind)
        assert sorted(c for u in got["units"] for c in u) == sorted(c.text for c in play)
        assert [len(u) for u in got["units"]] == [u.k * u.length for u in shape.units]
        kinds.add(got["kind"])
    assert "single" in kinds and len(kinds) >= 2, kinds
    # following a lead: nothing to read
    g.apply(Play(seat, leads[0]))
    nxt = g.decision().seat
    assert nxt is not None
    follow = next(iter(g.view(nxt).legal_plays()))
    assert routing._lead_units(_T(), nxt, follow) is None  # type: ignore[arg-type]
