"""The expert's named levels and the research bot `omniscient` (issue 31): one spec parser
for the arena, `shengji play` and web tables; `omniscient` plays legal rounds in the
arena, is labelled as cheating, and is refused wherever people play (RULES §11)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from browser_helpers import create_and_sit, new_page
from server_harness import WSPlayer, new_table, serve, table_of
from shengji import Round
from shengji.arena import play_game_outcome, results_table, run_pairing
from shengji.bots import (
    AGENT_KINDS,
    ExpertAgent,
    OmniscientAgent,
    agent_label,
    make_agent,
    parse_agent_spec,
    table_spec_error,
)
from shengji.cli import app

OMNI = "omniscient:iters=8,candidates=3"


def test_named_levels_are_the_expert_at_a_budget() -> None:
    for spec, ms in (("fast", 50), ("expert", 250), ("master", 1000)):
        agent = make_agent(spec, 1)
        assert isinstance(agent, ExpertAgent) and not isinstance(agent, OmniscientAgent)
        assert (agent.ms, agent.iters) == (ms, None)
        assert spec in AGENT_KINDS
    tuned = make_agent("master:worlds=40,candidates=4", 1)
    assert isinstance(tuned, ExpertAgent)
    assert (tuned.ms, tuned.max_worlds, tuned.n_candidates) == (1000, 40, 4)
    fixed = make_agent("master:iters=5", 1)  # an iteration budget replaces the level's time
    assert isinstance(fixed, ExpertAgent) and (fixed.ms, fixed.iters) == (None, 5)
    assert parse_agent_spec("expert:ms=250,workers=1") == ("expert", {"ms": 250, "workers": 1})


def test_workers_search_the_same_worlds_in_several_processes() -> None:
    from helpers import mid_trick_position

    assert parse_agent_spec("expert:ms=250,workers=2") == ("expert", {"ms": 250, "workers": 2})
    with pytest.raises(ValueError, match="at most 8 processes"):
        parse_agent_spec("expert:workers=9")
    with pytest.raises(ValueError, match="positive integer"):
        parse_agent_spec("master:workers=0")
    # an iteration budget: the same decisions with one process or two (the same seeds)
    for seed, tricks in ((3, 2), (4, 7)):
        rnd, seat = mid_trick_position(seed, tricks)
        view = rnd.view(seat)
        one = make_agent("expert:iters=40,candidates=4", 9).act(view)
        two = make_agent("expert:iters=40,candidates=4,workers=2", 9).act(view)
        three = make_agent("expert:iters=40,candidates=4,workers=3", 9).act(view)
        assert one == two == three


def test_omniscient_is_no_table_kind_and_says_why() -> None:
    assert "omniscient" not in AGENT_KINDS
    assert parse_agent_spec(OMNI)[0] == "omniscient"  # the arena accepts it
    err = table_spec_error("omniscient")
    assert err is not None and "sees every hand" in err and "arena" in err
    assert table_spec_error("master") is None and table_spec_error("expert:ms=50") is None
    assert agent_label("omniscient:iters=8") == "omniscient:iters=8 (cheating: sees all hands)"
    assert agent_label("expert") == "expert"
    assert "(cheating: sees all hands)" in repr(make_agent("omniscient", 0))


def test_an_unattached_omniscient_refuses_to_act() -> None:
    rnd = Round(3)
    agent = make_agent(OMNI, 0)
    with pytest.raises(RuntimeError, match="only in the arena"):
        agent.act(rnd.view(0))
    other = Round(4)
    for r in (rnd, other):
        for _ in range(8):  # a few cards dealt: the two rounds' hands differ
            r.step(r.random_action(random.Random(0)))
    agent.attach(other)  # a round that is not the view's
    with pytest.raises(RuntimeError, match="not the one this view shows"):
        agent.act(rnd.view(0))


def test_omniscient_plays_legal_deals_and_games_in_the_arena() -> None:
    # the arena applies every action through the engine, which refuses an illegal one
    # in a game it reads each round in turn from the game
    game = play_game_outcome(0, 12, OMNI, "heuristic", 0, max_rounds=2)
    assert game.rounds == 2
    res = run_pairing(OMNI, "heuristic", 1, seed=5)
    assert len(res.deals) == 1 and all(d.times_a for d in res.deals[0])
    headings = [str(c.header) for c in results_table([res]).columns]
    assert any("(cheating: sees all hands)" in h for h in headings)


def test_shengji_play_refuses_omniscient_opponents() -> None:
    r = CliRunner().invoke(app, ["play", "--opponents", "omniscient"])
    assert r.exit_code == 2
    assert "sees every hand" in r.output
    r = CliRunner().invoke(app, ["play", "--partner", "omniscient:iters=5"])
    assert r.exit_code == 2 and "sees every hand" in r.output
    r = CliRunner().invoke(app, ["play", "--opponents", "expert:workers=9"])
    assert r.exit_code == 2 and "at most 8 processes" in r.output


def test_counted_levels_search_fewer_rollouts_at_larger_tables_rules_12() -> None:
    """A web table's level is a rollout count (`LEVEL_ITERS`, issue 35); at a §12 table a
    rollout plays more cards among more seats, so the count shrinks with the deck
    (`level_iters`: (108 / cards)^2.5) and never below 8."""
    from shengji.bots import LEVEL_ITERS
    from shengji.bots.base import level_iters
    from shengji.options import RuleOptions

    assert level_iters("expert") == level_iters("expert", RuleOptions()) == 400
    assert level_iters("expert", RuleOptions(players=6, decks=2)) == 400  # 108 cards still
    six = RuleOptions(players=6, mode="friends")  # three decks
    assert level_iters("expert", six) == round(400 * (108 / 162) ** 2.5) == 145
    assert level_iters("master", RuleOptions(players=10, mode="friends")) == round(
        LEVEL_ITERS["master"] * (108 / 270) ** 2.5)
    assert level_iters("fast", RuleOptions(players=10, mode="friends")) == 8
    agent = make_agent("expert", 1, counted=True, options=six)
    assert isinstance(agent, ExpertAgent) and (agent.ms, agent.iters) == (None, 145)
    agent = make_agent("expert", 1, options=six)  # not counted: the level's time
    assert isinstance(agent, ExpertAgent) and (agent.ms, agent.iters) == (250, None)


def test_web_tables_refuse_omniscient_and_seat_the_levels(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        tid, host = new_table(client)
        h = WSPlayer(client, tid)
        h.hello(host)
        msg = h.error({"type": "bot", "seat": 1, "kind": "omniscient"})
        assert "sees every hand" in msg
        table = table_of(client, tid)  # nor does the server make one for a stored seat
        with pytest.raises(ValueError, match="sees every hand"):
            table.manager.make_agent("omniscient:iters=5", 0)
        for seat, kind in ((1, "fast"), (2, "master")):
            h.send({"type": "bot", "seat": seat, "kind": kind})
            state = h.until(lambda m, s=seat, k=kind: m["type"] == "state"
                            and (m["table"]["seats"][s] or {}).get("kind") == k)
            assert state["table"]["seats"][seat]["kind"] == kind


def test_the_web_host_seats_the_fast_and_master_levels(
    server: str, browser: Any,
) -> None:
    with new_page(browser) as page:
        create_and_sit(page, server, "Ana")
        for seat, kind, label in ((1, "fast", "Fast expert bot"), (2, "master", "Master bot")):
            button = page.locator(f".seat[data-seat='{seat}'] .bot-btn[data-kind='{kind}']")
            assert label in button.inner_text()
            button.click()
            page.wait_for_selector(f".seat[data-seat='{seat}']:not(.empty)")
            assert label in page.locator(f".seat[data-seat='{seat}'] .seat-name").inner_text()
        assert not page.locator(".bot-btn[data-kind='omniscient']").count()
