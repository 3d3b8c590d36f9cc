"""External bots (docs/BOT_PROTOCOL.md, issue 34): `exec:CMD` plays whole deals and games
in the arena; a bot that is slow, crashes, answers garbage or an illegal action is logged,
a stand-in plays for it, the game completes and the arena counts the failure; and the bot
receives exactly its seat's view (RULES §11)."""

from __future__ import annotations

import json
import logging
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from shengji import Round
from shengji.arena import play_deal, run_pairing
from shengji.arena.report import failure_lines
from shengji.bots import HeuristicAgent, agent_spec_error, make_agent
from shengji.bots.external import (
    FAILURE_KINDS,
    PROTOCOL,
    BotFailure,
    ExternalAgent,
    check_answer,
    choices,
    parse_exec_spec,
)
from shengji.driver import play_game, play_round, step
from shengji.game import Game
from shengji.views import View, result_json

ROOT = Path(__file__).resolve().parents[1]
PY = shlex.quote(sys.executable)
RANDOM_BOT = f"{PY} {shlex.quote(str(ROOT / 'examples' / 'bots' / 'random_bot.py'))}"
SCRIPTED = shlex.quote(str(ROOT / "tests" / "extbots" / "scripted_bot.py"))


def scripted(mode: str, at: int = 0, record: Path | None = None) -> str:
    """The command of the scripted bad bot."""
    extra = f" {shlex.quote(str(record))}" if record else ""
    return f"{PY} {SCRIPTED} {mode} {at}{extra}"


def test_spec_parsing() -> None:
    """`exec:CMD` and `exec:ms=N:CMD` are agent specs; an empty command is refused."""
    assert parse_exec_spec(f"exec:{PY} bot.py") == (f"{PY} bot.py", 1000)
    assert parse_exec_spec(f"exec:ms=250:{PY} b.py") == (f"{PY} b.py", 250)
    assert agent_spec_error(f"exec:{PY} bot.py") is None
    assert "command" in (agent_spec_error("exec:") or "")
    assert "ms=500" in (agent_spec_error("exec:ms=0:x") or "")
    assert "no program 'no-such-bot-xyz'" in (agent_spec_error("exec:no-such-bot-xyz") or "")
    assert isinstance(make_agent(f"exec:ms=300:{PY} bot.py", 1), ExternalAgent)


def test_example_bot_plays_arena_deals_and_a_game() -> None:
    """The Python example bot plays mirrored deals and a whole game against the
    heuristic, without one failure; the arena reports the (zero) counts."""
    res = run_pairing(f"exec:{RANDOM_BOT}", "heuristic", 2, games=1, seed=3)
    assert len(res.deals) == 2 and len(res.games) == 1
    fa, fb = res.failures()
    assert fb == {}
    assert fa == {**dict.fromkeys(FAILURE_KINDS, 0), "standin": 0}
    for g in (g for pair in res.games for g in pair):
        assert g.rounds >= 1
    line = failure_lines([res])[0]
    assert "timeout 0, crash 0, malformed 0, illegal 0" in line
    assert res.to_json()["failures"]["a"]["standin"] == 0


@pytest.mark.skipif(not Path("/usr/bin/node").exists(), reason="node is not installed")
def test_node_example_bot_plays_a_deal() -> None:
    """The Node.js example bot plays a deal at seats 0 and 2 without a failure."""
    out = play_deal(0, 11, "exec:node " + shlex.quote(str(ROOT / "examples/bots/random_bot.js")),
                    "heuristic", 0)
    assert out.failures_a == {**dict.fromkeys(FAILURE_KINDS, 0), "standin": 0}


@pytest.mark.parametrize(
    ("mode", "kind", "dead"),
    [
        ("timeout", "timeout", False),
        ("crash", "crash", True),
        ("malformed", "malformed", False),
        ("wrong_id", "malformed", False),
        ("illegal", "illegal", False),
        ("badhello", "malformed", True),
    ],
)
def test_failures_are_logged_replaced_and_counted(
    mode: str, kind: str, dead: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Each failure mode: one clear logged error naming the kind, the stand-in makes that
    decision (the rest too after a crash), the deal ends normally, and the count is 1."""
    caplog.set_level(logging.WARNING, "shengji.bots.external")
    bot = ExternalAgent(scripted(mode, 5), 7, deadline_ms=1000)
    agents: list[Any] = [bot, HeuristicAgent(1), HeuristicAgent(2), HeuristicAgent(3)]
    rnd = play_round(Round(5, trump_rank="2", starter=0, declaring_team=0), agents)
    bot.close(rnd.view(0))
    assert rnd.is_over and rnd.result is not None
    assert bot.failures == {k: int(k == kind) for k in FAILURE_KINDS}
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and f"(seat 0): {kind}: " in messages[0]
    if dead:  # the stand-in played every decision from the failed one on
        first = 1 if mode == "badhello" else 5
        assert bot.standin_moves == bot.decisions - first + 1 and bot.decisions > 10
        assert "plays on" in messages[0]
    else:
        assert bot.standin_moves == 1 and bot.decisions > 10
        assert "decision 5" in messages[0]
    if mode == "crash":
        assert "exit status 3" in messages[0] and "crashing on purpose" in messages[0]


def test_silent_bot_times_out_at_the_handshake() -> None:
    """A bot that never answers the hello is a timeout once; the stand-in plays on."""
    bot = ExternalAgent(scripted("silent"), 7, hello_ms=300)
    agents: list[Any] = [bot, HeuristicAgent(1), HeuristicAgent(2), HeuristicAgent(3)]
    rnd = play_round(Round(5, trump_rank="2", starter=0, declaring_team=0), agents)
    bot.close()
    assert rnd.is_over
    assert bot.failures["timeout"] == 1 and bot.standin_moves == bot.decisions


def test_arena_reports_failures_per_kind() -> None:
    """A failing bot in the arena: every deal is still played and the counts add up."""
    res = run_pairing(f"exec:{scripted('illegal', 3)}", "heuristic", 2, seed=1)
    fa, _ = res.failures()
    assert fa["illegal"] == 8 and fa["standin"] == 8  # 2 deals x 2 halves x 2 seats
    assert len(res.deals) == 2
    assert "illegal 8" in failure_lines([res])[0]


def test_answers_are_checked_against_the_view() -> None:
    """`check_answer` refuses wrong shapes (malformed) and illegal actions naming the rule."""
    rnd = Round(2, trump_rank="2", starter=0, declaring_team=0)
    players = [HeuristicAgent(s) for s in range(4)]
    while rnd.decision().phase != "play":
        step(rnd, players)
    seat = rnd.decision().seat
    assert seat is not None
    view = rnd.view(seat)
    vj = view.to_json()
    good = next(iter(view.legal_plays()))
    ok = {"type": "action", "id": 4, "action": ["play", seat, " ".join(c.text for c in good)]}
    assert check_answer(vj, 4, ok) is not None
    cases = [
        ({"type": "act"}, "malformed"),
        ({**ok, "id": 5}, "malformed"),
        ({**ok, "action": ["jump", seat]}, "malformed"),
        ({**ok, "action": ["pass", seat]}, "illegal"),
        ({**ok, "action": ["play", (seat + 1) % 4, ok["action"][2]]}, "illegal"),
    ]
    for msg, kind in cases:
        with pytest.raises(BotFailure) as e:
            check_answer(vj, 4, msg)
        assert e.value.kind == kind
    absent = next(c for c in ("BJ", "RJ", "AS", "KH") if all(h.text != c for h in view.hand))
    with pytest.raises(BotFailure, match="RULES §6"):
        check_answer(vj, 4, {**ok, "action": ["play", seat, absent]})


def test_choices_and_checks_from_the_json_agree_with_the_engine() -> None:
    """Over seeded rounds, the legal kinds, `choices` and `check_answer` read from the
    view's JSON (all a web-table bot has) agree with the engine's own view: the listed
    plays are its legal plays, each passes the check, and its declarations are listed."""
    for seed in range(3):
        rnd = Round(seed, trump_rank="2", starter=0, declaring_team=0)
        players = [HeuristicAgent(s) for s in range(4)]
        while not rnd.is_over:
            d = rnd.decision()
            if d.phase == "play" and d.seat is not None:
                view = rnd.view(d.seat)
                listed, complete = choices(view.to_json())
                want = [["play", d.seat, " ".join(c.text for c in p)] for p in
                        view.legal_plays()]
                assert listed == want[:100] and complete == (len(want) <= 100)
                for n, a in enumerate(listed[:20] if listed else []):
                    check_answer(view.to_json(), n, {"type": "action", "id": n, "action": a})
            elif d.phase == "declare" and d.seat is not None:
                view = rnd.view(d.seat)
                listed, _ = choices(view.to_json())
                assert listed is not None and listed[0] == ["pass", d.seat]
                assert len(listed) == 1 + len(view.legal_declarations())
            step(rnd, players)


class Watched:
    """Wraps the agent of one seat and records that seat's view as the host builds it
    (`Game.view`, what the web server sends, docs/WEB_PROTOCOL.md) at each decision."""

    def __init__(self, agent: ExternalAgent, table: Game) -> None:
        self.agent, self.table, self.views = agent, table, []

    def act(self, view: View) -> Any:
        """Record the host's view of this seat, then let the bot decide."""
        assert view.seat is not None
        self.views.append(self.table.view(view.seat).to_json())
        return self.agent.act(view)


def test_bot_sees_exactly_its_seats_view(tmp_path: Path) -> None:
    """Over a whole game, each `decide` line holds exactly the view the host builds for the
    bot's seat (the web protocol's `state.view`): its own hand, never another hand or a
    kitty it may not see (RULES §4, §11); the hello and end lines hold no cards but its own."""
    record = tmp_path / "lines.jsonl"
    game = Game(17)
    bot = ExternalAgent(scripted("ok", 0, record), 3)
    watched = Watched(bot, game)
    agents: list[Any] = [HeuristicAgent(0), watched, HeuristicAgent(2), HeuristicAgent(3)]
    play_game(game, agents, max_rounds=2)
    bot.close(game.view(1), game.winner)
    lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "hello" and lines[0]["protocol"] == PROTOCOL
    assert lines[0]["seat"] == 1 and set(lines[0]) == {
        "type", "protocol", "seat", "options", "deadline_ms", "hello_ms"}
    decides = [x for x in lines if x["type"] == "decide"]
    assert [x["view"] for x in decides] == watched.views
    assert len(decides) == bot.decisions and bot.standin_moves == 0
    for d in decides:
        v = d["view"]
        assert v["seat"] == 1 and len(v["hand"]) == v["hand_sizes"][1]
        if v["starter"] != 1 or v["phase"] in ("deal", "declare"):
            assert v["kitty"] is None and v["kitty_taken"] is None
    results = [x for x in lines if x["type"] == "result"]  # one per round ended before
    assert [x["result"] for x in results] == [result_json(r) for r in game.results[:-1]]
    end = lines[-1]
    assert end["type"] == "end" and end["view"] == game.view(1).to_json()
