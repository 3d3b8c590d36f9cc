"""The `shengji` command: play, replay and arena (demo belongs to the engine's tests)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from shengji import GameRecord, replay
from shengji.cli import app

runner = CliRunner()


def test_help_lists_the_commands() -> None:
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    for cmd in ("demo", "play", "replay", "arena", "serve"):
        assert cmd in res.output


def test_play_quit_saves_a_record(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    res = runner.invoke(
        app,
        ["play", "--seed", "4", "--option", "strict_tractor_follow=true", "--save", str(path),
         "--partner", "random"],
        input="\n" * 30 + "quit\n",
    )
    assert res.exit_code == 0, res.output
    assert "Round 1" in res.output and "Stopped." in res.output
    rec = GameRecord.load(path)
    assert rec.options.strict_tractor_follow is True and rec.seed == 4
    assert replay(rec).round.drawn > 0


def test_play_rejects_bad_options() -> None:
    res = runner.invoke(app, ["play", "--option", "no_such_rule=1"])
    assert res.exit_code != 0
    assert "no_such_rule" in res.output
    res = runner.invoke(app, ["play", "--partner", "genius"])
    assert res.exit_code != 0


def test_replay_all_prints_the_game(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    from shengji import Game
    from shengji.bots import make_agent
    from shengji.driver import play_game

    game = Game(6)
    play_game(game, [make_agent("heuristic", s) for s in range(4)], max_rounds=1)
    game.record.save(path)
    res = runner.invoke(app, ["replay", str(path), "--all"])
    assert res.exit_code == 0, res.output
    assert "Round over." in res.output and "Trick  1:" in res.output
    res = runner.invoke(app, ["replay", str(path)], input="\nq\n")
    assert res.exit_code == 0 and "Round over." not in res.output


def test_replay_rejects_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nope"}')
    res = runner.invoke(app, ["replay", str(bad), "--all"])
    assert res.exit_code == 1 and "malformed record" in res.output


def test_arena_command(tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        ["arena", "--a", "heuristic", "--b", "random,heuristic", "--deals", "3", "--seed", "1",
         "--workers", "1", "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png"),
         "--games", "1"],
    )
    assert res.exit_code == 0, res.output
    assert "heuristic vs random" in res.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert len(doc["pairings"]) == 2 and doc["pairings"][0]["mirrored_deals"] == 3
    assert (tmp_path / "r.png").exists()
    res = runner.invoke(app, ["arena", "--deals", "0"])
    assert res.exit_code != 0


def test_serve_starts_the_app_on_the_given_address(monkeypatch, tmp_path) -> None:
    from shengji.server import ServerConfig

    calls: list[ServerConfig] = []
    monkeypatch.setattr("shengji.server.run", calls.append)
    url = f"sqlite:///{tmp_path / 'x.db'}"
    result = runner.invoke(app, ["serve", "--port", "8123", "--db", url])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8123/" in result.output
    assert len(calls) == 1
    config = calls[0]
    assert (config.host, config.port, config.db) == ("127.0.0.1", 8123, url)
    # every other option at its ServerConfig default
    assert config == ServerConfig(port=8123, db=url)
    assert (config.deal_ms, config.window_ms, config.bot_delay_ms, config.round_pause_ms) \
        == (150, 10_000, 700, 6_000)
    assert config.fast_timings is False and config.debug is False


def test_demo_prints_a_round() -> None:
    result = runner.invoke(app, ["demo", "--seed", "1", "--rounds", "1"])
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.output and "trick 1" in result.output.replace("  ", " ")
    assert "opponents' points" in result.output


def test_play_with_a_preset_and_options_stores_them(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    res = runner.invoke(
        app,
        ["play", "--seed", "3", "--preset", "common_online", "--option", "stop_levels=5,10,K",
         "--option", "throw_penalty=returned", "--save", str(path)],
        input="quit\n",
    )
    assert res.exit_code == 0, res.output
    opts = GameRecord.load(path).options
    assert opts.kitty_multiplier == "power" and opts.round1_no_declaration == "flip"
    assert opts.stop_levels == ("5", "10", "K") and opts.throw_penalty == "returned"


def test_play_rejects_a_bad_preset_or_option_value_naming_it() -> None:
    res = runner.invoke(app, ["play", "--preset", "tournament"])
    assert res.exit_code != 0 and "unknown preset" in res.output
    res = runner.invoke(app, ["play", "--option", "first_drawer=1.5"])
    assert res.exit_code != 0 and "first_drawer" in res.output


def test_option_help_lists_every_option() -> None:
    from shengji.options import OPTION_INFO

    res = runner.invoke(app, ["play", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    flat = " ".join(res.output.split())
    for name in OPTION_INFO:
        assert name in flat
    assert "common_online" in flat


# ---------------------------------------------------------------- issue 29 item 9: the terminal


def _trick_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "→" in ln and ln.strip().lower().startswith("trick")]


def _check_trick_notes(lines: list[str]) -> None:
    """Each won trick says what its points did (RULES §7), and only then: "opponents +N → T"
    (T: their new total), "declarers keep N", or nothing for a trick without points."""
    import re

    assert lines
    seen = {"opp": 0, "decl": 0, "none": 0}
    for ln in lines:
        assert "(+" not in ln, ln  # the old bare "(+45)", whoever won
        m = re.search(r"\(opponents \+(\d+) → (-?\d+)\)$", ln)
        if m:
            assert int(m.group(1)) > 0
            seen["opp"] += 1
        elif re.search(r"\(declarers keep \d+\)$", ln):
            seen["decl"] += 1
        else:
            assert ln.rstrip().endswith(("South", "East", "North", "West", "You")), ln
            seen["none"] += 1
    assert all(seen.values()), seen  # the seeds used show all three cases


def test_demo_shows_a_tricks_points_only_when_won_and_says_whose() -> None:
    res = runner.invoke(app, ["demo", "--seed", "1", "--rounds", "1"])
    assert res.exit_code == 0, res.output
    _check_trick_notes(_trick_lines(res.output))


def test_the_opponents_total_after_a_trick_moves_by_its_points() -> None:
    """In a replay (no failed throws with the heuristic) each "opponents +N → T" adds N to
    the previous total, and a "declarers keep" trick leaves it as it was."""
    import io
    import re

    from rich.console import Console

    from shengji import Game
    from shengji.bots import make_agent
    from shengji.driver import play_game
    from shengji.tui import Replay

    game = Game(6)
    play_game(game, [make_agent("heuristic", s) for s in range(4)], max_rounds=1)
    out = io.StringIO()
    Replay(game.record, console=Console(file=out, width=400, color_system=None), stdin=None,
           all_=True).run()
    lines = _trick_lines(out.getvalue())
    _check_trick_notes(lines)
    total = 0
    for ln in lines:
        m = re.search(r"opponents \+(\d+) → (-?\d+)", ln)
        if m:
            total += int(m.group(1))
            assert int(m.group(2)) == total, ln
    assert total == game.results[0].opponents_points - game.results[0].kitty_points


def test_replay_answers_unknown_input_with_help_and_does_not_advance(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    from shengji import Game
    from shengji.bots import make_agent
    from shengji.driver import play_game

    game = Game(6)
    play_game(game, [make_agent("heuristic", s) for s in range(4)], max_rounds=1)
    game.record.save(path)
    # Enter after the bury, then "x" and "next trick please": neither advances.
    res = runner.invoke(app, ["replay", str(path)], input="\nx\nnext trick please\nq\n")
    assert res.exit_code == 0, res.output
    assert res.output.count("is not a replay command") == 2
    assert "'x' is not a replay command" in res.output and "q to quit" in res.output
    assert len(_trick_lines(res.output)) == 1  # still at the first trick
    res = runner.invoke(app, ["replay", str(path)], input="\nx\n\nn\nq\n")
    assert len(_trick_lines(res.output)) == 3  # Enter and n each advance one trick


def test_demo_opens_with_a_readable_summary_of_the_rules() -> None:
    res = runner.invoke(app, ["demo", "--seed", "1", "--rounds", "1"])
    first = res.output.splitlines()[0]
    assert first == "Tractor demo seed 1, preset seed, rules: RULES defaults"
    res = runner.invoke(app, ["demo", "--seed", "1", "--rounds", "1", "--option",
                              "throw_penalty=none"], env={"COLUMNS": "200"})
    first = res.output.splitlines()[0]
    assert first == "Tractor demo seed 1, preset seed, rules: throw_penalty=none", first
    assert "{" not in res.output.splitlines()[0] and "'" not in first


# ---------------------------------------------------------------- #34: --ray without a cluster


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_ray_without_a_cluster_says_what_to_do_and_exits_2(monkeypatch, tmp_path) -> None:
    """`train`/`arena --ray auto` with no cluster: one line (start one with `ray start
    --head`, or use `--ray local`), exit 2, no traceback, and Ray's 30 s wait never
    starts: `ray.init` is not called at all."""
    ray = __import__("pytest").importorskip("ray")
    import shengji.learn.cluster as cluster

    def no_init(*args: object, **kwargs: object) -> None:
        raise AssertionError("ray.init was called: the check did not stop it")

    monkeypatch.setattr(ray, "init", no_init)
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{_closed_port()}")
    for args in (["train", "--minutes", "0.1", "--out", str(tmp_path / "c.pt"), "--ray", "auto"],
                 ["arena", "--deals", "1", "--workers", "1", "--ray", "auto"]):
        res = runner.invoke(app, args, env={"COLUMNS": "300"})
        assert res.exit_code == 2, res.output
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert "Traceback" not in res.output
        out = " ".join(res.output.split())
        assert "no Ray cluster answers there" in out and "127.0.0.1:" in out, out
        assert "ray start --head" in out and "--ray local" in out
    assert not (tmp_path / "c.pt").exists()
    # An explicit address that does not answer, and "auto" when no cluster is recorded.
    res = runner.invoke(app, ["arena", "--deals", "1", "--ray", f"127.0.0.1:{_closed_port()}"],
                        env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "no Ray cluster answers there" in res.output
    monkeypatch.setattr(cluster, "_auto_address", lambda: None)
    res = runner.invoke(app, ["arena", "--deals", "1", "--ray", "auto"], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    assert "no running Ray cluster was found" in res.output and "--ray local" in res.output


def test_ray_check_accepts_local_and_an_answering_address() -> None:
    """`--ray local` needs no cluster; an address where something listens passes the
    check (Ray itself then connects); a malformed one is refused naming it."""
    import socket

    import pytest

    from shengji.learn.cluster import ClusterError, check_cluster

    assert check_cluster("local") is None
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert check_cluster(f"127.0.0.1:{port}") == f"127.0.0.1:{port}"
        assert check_cluster(f"ray://127.0.0.1:{port}") == f"ray://127.0.0.1:{port}"
    with pytest.raises(ClusterError, match="not HOST:PORT"):
        check_cluster("head:port")
