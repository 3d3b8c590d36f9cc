"""The expert's early stop (`expert:settle=1`, bots/expert.py `_settled`, issue 35): a
search stops once the choice its whole budget would make is settled. It only stops early:
what it reads and chooses at the stop is what a whole budget of that many rollouts reads
and chooses. Web tables' expert and master levels play with it (`make_agent(counted=True)`);
fast and the CLI's and the arena's time budgets without it unless asked."""

from __future__ import annotations

import pytest

from helpers import mid_trick_position
from shengji.actions import Play
from shengji.bots import ExpertAgent, make_agent, parse_agent_spec
from shengji.bots.expert import (
    DEVIATE_Z,
    SETTLE_AT,
    SETTLE_K,
    _choose,
    _settled,
    paired_difference,
)

POSITIONS = ((3, 2), (4, 5), (5, 1), (6, 7), (9, 3), (10, 9))


def test_settle_is_a_switch_and_web_levels_play_with_it() -> None:
    assert parse_agent_spec("expert:iters=40,settle=1") == ("expert", {"iters": 40, "settle": 1})
    with pytest.raises(ValueError, match="settle is a switch"):
        parse_agent_spec("expert:settle=2")
    with pytest.raises(ValueError, match="settle=3"):
        ExpertAgent(1, iters=10, settle=3)
    table = make_agent("expert", 1, counted=True)  # a web table's level: a rollout count
    assert isinstance(table, ExpertAgent) and table.settle == 1 and table.iters == 400
    master = make_agent("master", 1, counted=True)
    assert isinstance(master, ExpertAgent) and master.settle == 1 and master.iters == 1600
    fast = make_agent("fast", 1, counted=True)  # its 80 rollouts: too few worlds to stop
    assert isinstance(fast, ExpertAgent) and fast.settle == 0
    asked_off = make_agent("expert:settle=0", 1, counted=True)
    assert isinstance(asked_off, ExpertAgent) and asked_off.settle == 0
    timed = make_agent("expert", 1)  # `shengji play`/arena: 250 ms, the whole of it
    assert isinstance(timed, ExpertAgent) and timed.settle == 0


def test_a_clear_choice_is_settled_and_a_close_call_is_not() -> None:
    n = SETTLE_AT
    base = [0.1 * (w % 3) for w in range(n)]
    clear = [base, [v - 0.5 for v in base], [v - 0.4 + 0.01 * (w % 2) for w, v in enumerate(base)]]
    assert _choose(clear, [0, 1, 2]) == 0 and _settled(clear, [0, 1, 2], n, 100)
    # a rival level with the heuristic's move on average, with spread: it might still
    # end DEVIATE_Z standard errors ahead, so the search goes on
    close = [base, [v + (0.3 if w % 2 else -0.3) for w, v in enumerate(base)]]
    assert _choose(close, [0, 1]) == 0 and not _settled(close, [0, 1], n, 100)
    # no world left: whatever it chooses now is its choice
    assert _settled(close, [0, 1], n, 0)
    # a candidate far ahead of the heuristic's move and of the third: settled on it
    ahead = [base, [v + 1.0 + 0.01 * (w % 2) for w, v in enumerate(base)],
             [v + 0.2 for v in base]]
    assert _choose(ahead, [0, 1, 2]) == 1 and _settled(ahead, [0, 1, 2], n, 100)
    # ahead of the heuristic's by just over DEVIATE_Z standard errors: not settled yet
    d = [0.3 if w % 2 else -0.3 for w in range(n)]
    bump = 1.2 * DEVIATE_Z * paired_difference(d, [0.0] * n)[1]
    edge = [base, [v + x + bump for v, x in zip(base, d, strict=True)]]
    assert _choose(edge, [0, 1]) == 1 and not _settled(edge, [0, 1], n, 100)


def test_a_long_budget_to_come_keeps_the_true_means_uncertainty() -> None:
    """The projection counts how uncertain the mean seen so far still is: a rival half a
    standard error less than SETTLE_K behind the heuristic's move is settled with a few
    worlds to come, but not with thousands (then the end's mean could lie up to SETTLE_K
    standard errors from today's, and the end's standard error is near 0), however many
    there are."""
    n = SETTLE_AT
    base = [0.1 * (w % 3) for w in range(n)]
    d = [0.3 if w % 2 else -0.3 for w in range(n)]
    m, se = paired_difference(d, [0.0] * n)

    def rival(behind_by: float) -> list[float]:
        return [v + x - m - behind_by * se for v, x in zip(base, d, strict=True)]

    behind = [base, rival(SETTLE_K - 0.5)]
    assert _choose(behind, [0, 1]) == 0
    assert _settled(behind, [0, 1], n, 4)
    for left in (1_000, 10_000, 1_000_000):
        assert not _settled(behind, [0, 1], n, left)
    # half a standard error more than SETTLE_K behind: settled whatever the budget left
    far = [base, rival(SETTLE_K + 0.5)]
    assert all(_settled(far, [0, 1], n, left) for left in (4, 1_000, 1_000_000))


def test_settle_only_stops_early() -> None:
    """At each position the settled search's move is the whole-budget search's move at the
    rollouts the settled one did (the same worlds in the same order: it reads a prefix),
    never more rollouts than the whole budget, and fewer somewhere."""
    fewer = 0
    for seed, tricks in POSITIONS:
        rnd, seat = mid_trick_position(seed, tricks)
        view = rnd.view(seat)
        settled = ExpertAgent(40 + seed, iters=400, settle=1)
        move = settled.act(view)
        assert isinstance(move, Play) and view.is_legal(move.cards)
        whole = ExpertAgent(40 + seed, iters=400)
        whole.act(view)
        if settled.last_search is None:  # one candidate: nothing searched either way
            assert whole.last_search is None
            continue
        assert whole.last_search is not None
        done = settled.last_search["done"]
        assert isinstance(done, int) and done <= whole.last_search["done"]
        assert settled.last_search["asked"] == 400
        fewer += done < whole.last_search["done"]
        prefix = ExpertAgent(40 + seed, iters=done)
        assert prefix.act(view) == move
        assert prefix.last_search is not None and prefix.last_search["done"] == done
    assert fewer >= 3
