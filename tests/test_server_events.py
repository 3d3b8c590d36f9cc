"""The server speaks the engine's vocabulary (issue 8): refusals carry `IllegalAction.rule`
as a field, and the replay is built from the engine's events."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server_harness import HUMAN_WINDOW_MS, Human, host_table, serve
from shengji import Game, IllegalAction, RuleOptions, action_from_json
from shengji.server.replay import replay_payload
from shengji.server.tables import Refusal

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def is_state(m: dict[str, Any]) -> bool:
    return bool(m["type"] == "state")


def test_refusals_and_checks_carry_the_engines_rule_field(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS, seed_source=lambda: 4) as client:
        p, table = host_table(client, {1: "random", 2: "random", 3: "random"})
        human = Human(p, table, seed=4)
        st = human.play_until(lambda m: is_state(m) and m["view"]["phase"] == "play"
                              and m["view"]["to_act"] == 0, timeout=30)
        hand = st["view"]["hand"]
        # A card we do not hold (RULES §6: it is not in the hand).
        missing = next(c for c in ("RJ", "BJ", "AS", "AH") if hand.count(c) == 0)
        p.send({"type": "action", "action": ["play", 0, missing]})
        err = p.until(lambda m: m["type"] == "error")
        assert err["rule"] is not None and err["message"].startswith(f"RULES §{err['rule']}")
        p.send({"type": "check", "cards": missing})
        chk = p.until(lambda m: m["type"] == "check")
        assert chk["legal"] is False and chk["rule"] == err["rule"]
        # Malformed actions: the engine's MalformedAction rule, if it cites one; never parsed.
        with pytest.raises(IllegalAction) as exc:
            action_from_json(["play", 0, 7])
        p.send({"type": "action", "action": ["play", 0, 7]})
        bad = p.until(lambda m: m["type"] == "error")
        assert (bad["message"], bad["rule"]) == (exc.value.message, exc.value.rule)
        # The server's own refusals have no rule.
        p.send({"type": "sit", "seat": 1, "name": "x"})
        own = p.until(lambda m: m["type"] == "error")
        assert own["rule"] is None
        p.close()


def test_a_refusal_logs_only_its_rule() -> None:
    r = Refusal("RULES §6.2: you hold AS AS and must play them", "6.2")
    assert r.log_text() == "RULES §6.2"
    assert Refusal("the game is not being played").log_text() == "the game is not being played"


@pytest.mark.parametrize("seed", [1, 6])
def test_the_replay_from_events_deals_the_hands_and_kitty_the_engine_dealt(seed: int) -> None:
    g = Game(seed)
    rng = random.Random(seed)
    dealt: list[list[Counter[str]]] = []
    taken: list[Counter[str]] = []
    while not g.is_over:
        before = g.decision().phase
        g.apply(g.random_action(rng))
        after = g.decision().phase
        if before == "deal" and after == "declare":
            dealt.append([Counter(map(str, g.view(s).hand)) for s in range(4)])
        if after == "kitty" and before != "kitty":
            starter = g.decision().seat
            assert starter is not None
            taken.append(Counter(map(str, g.view(starter).kitty_taken or ())))
    actions = [a.to_json() for a in g.actions]
    rep = replay_payload(seed, RuleOptions(), actions, True)
    assert rep["status"] == "finished" and len(rep["steps"]) == len(g.results)
    for i, step in enumerate(rep["steps"]):
        assert [Counter(h) for h in step["hands"]] == dealt[i], f"round {i}"
        assert Counter(step["kitty_taken"]) == taken[i], f"round {i}"
        assert step["result"]["opponents_points"] == g.results[i].opponents_points
    part = replay_payload(seed, RuleOptions(), actions[:300], False)
    assert part["status"] == "playing" and "hands" not in part["steps"][-1]


def test_the_replay_marks_the_plays_a_stand_in_made() -> None:
    g = Game(3)
    rng = random.Random(3)
    while g.round_no == 0:
        g.apply(g.random_action(rng))
    actions = [a.to_json() for a in g.actions]
    plays = [i for i, a in enumerate(actions) if a[0] == "play"]
    marked = {plays[0]: "standin", plays[9]: "standin"}
    rep = replay_payload(3, RuleOptions(), actions, False, marked)
    first = rep["steps"][0]
    seats = [actions[i][1] for i in (plays[0], plays[9])]
    assert [m["seat"] for m in first["standins"]] == seats
    assert first["standins"][0]["trick"] == 0  # the first play leads the first trick
    assert rep["steps"][1]["standins"] == []  # a new round starts unmarked
    assert replay_payload(3, RuleOptions(), actions, False)["steps"][0]["standins"] == []
