"""The arena: statistics, mirrored deals, determinism, outputs, and A against A."""

from __future__ import annotations

import io
import json
import math
import statistics
import sys
from pathlib import Path

import pytest
from rich.console import Console

from shengji import RuleOptions
from shengji.arena import (
    DealOutcome,
    Interval,
    PairingResult,
    arena_main,
    deal_round,
    deal_seed,
    mean_ci,
    play_deal,
    play_mirrored_deal,
    proportion_ci,
    ratio_ci,
    run_pairing,
    running_ci,
    running_mean,
    t_quantile,
)
from shengji.arena.report import figures

# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (10**6, 1.960)],
)
def test_t_quantile_matches_tables(df: int, expected: float) -> None:
    assert t_quantile(df) == pytest.approx(expected, abs=5e-3)


def test_t_quantile_rejects_no_degrees_of_freedom() -> None:
    with pytest.raises(ValueError):
        t_quantile(0)


def test_mean_ci_known_values() -> None:
    ci = mean_ci([1.0, 2.0, 3.0, 4.0])
    # mean 2.5, sd 1.291, t(3) = 3.182: half width 2.054
    assert ci.value == pytest.approx(2.5)
    assert ci.half_width == pytest.approx(3.182 * 1.2910 / 2, abs=0.01)
    assert ci.contains(2.5) and not ci.contains(5.0)
    assert mean_ci([7.0]) == Interval(7.0, 7.0, 7.0)
    with pytest.raises(ValueError):
        mean_ci([])


def test_mean_ci_coverage_is_about_95_percent() -> None:
    import random

    rng = random.Random(1)
    hits = 0
    for _ in range(400):
        xs = [rng.gauss(0.0, 1.0) for _ in range(12)]
        hits += mean_ci(xs).contains(0.0)
    assert 0.91 < hits / 400 < 0.99


def test_proportion_ci_wilson() -> None:
    ci = proportion_ci(95, 100)
    assert ci.value == pytest.approx(0.95)
    assert ci.lo == pytest.approx(0.8883, abs=1e-3) and ci.hi == pytest.approx(0.9785, abs=1e-3)
    full = proportion_ci(10, 10)
    assert full.hi == 1.0 and full.lo < 1.0  # never degenerate at the edges
    with pytest.raises(ValueError):
        proportion_ci(3, 2)


def test_ratio_ci() -> None:
    ci = ratio_ci([1, 2, 0, 3], [2, 2, 1, 3])
    assert ci is not None and ci.value == pytest.approx(6 / 8)
    assert 0.0 <= ci.lo < ci.value < ci.hi <= 1.0
    assert ratio_ci([0, 0], [0, 0]) is None
    with pytest.raises(ValueError):
        ratio_ci([1], [1, 2])


def test_running_mean_and_ci() -> None:
    xs = [1.0, 3.0, 2.0, 6.0]
    assert running_mean(xs) == [1.0, 2.0, 2.0, 3.0]
    lo, hi = running_ci(xs)
    for k in range(2, 5):
        ci = mean_ci(xs[:k])
        assert lo[k - 1] == pytest.approx(ci.lo) and hi[k - 1] == pytest.approx(ci.hi)
    assert lo[0] == hi[0] == 1.0


def _deal(i: int, a_decl: bool, a_won: bool, la: int, lb: int) -> DealOutcome:
    return DealOutcome(i, a_decl, a_won, la, lb, 0)


def test_pairing_statistics() -> None:
    r = PairingResult("x", "y")
    r.deals = [
        (_deal(0, True, True, 2, 0), _deal(0, False, False, 0, 1)),
        (_deal(1, True, True, 1, 0), _deal(1, False, True, 0, 0)),
        (_deal(2, True, False, 0, 1), _deal(2, False, True, 3, 0)),
    ]
    assert r.n_deals == 3
    assert r.pair_levels() == [0.5, 0.5, 1.0]
    assert r.levels_per_deal().value == pytest.approx(statistics.mean([0.5, 0.5, 1.0]))
    assert r.deal_win_rate().value == pytest.approx(4 / 6)
    assert r.levels_gained() == (6, 2)
    lr = r.leveling_rate()
    assert lr is not None and lr.value == pytest.approx(6 / 8)
    # The win-rate interval is never narrower than Wilson over the mirrored deals.
    w = proportion_ci(4 / 6 * 3, 3)
    assert r.deal_win_rate().lo <= w.lo + 1e-12 and r.deal_win_rate().hi >= w.hi - 1e-12
    doc = r.to_json()
    assert doc["mirrored_deals"] == 3 and doc["levels_gained"] == {"a": 6, "b": 2}
    json.dumps(doc)


# ---------------------------------------------------------------- deals


def test_deal_seeds_are_stable_and_distinct() -> None:
    seeds = [deal_seed(7, i) for i in range(200)]
    assert len(set(seeds)) == 200
    assert seeds == [deal_seed(7, i) for i in range(200)]
    assert deal_seed(7, 0) != deal_seed(8, 0) != deal_seed(7, 0, "game")


def test_a_deal_is_a_round_with_a_fixed_setup() -> None:
    rnd = deal_round(5)
    assert rnd.trump_rank == "2" and rnd.starter == 0 and rnd.declaring_team == 0
    assert rnd.levels == ("2", "2")


def test_mirrored_deal_swaps_the_teams() -> None:
    x, y = play_mirrored_deal(0, deal_seed(1, 0), "heuristic", "random")
    assert x.a_declaring and not y.a_declaring
    for h in (x, y):
        assert h.levels_b == 0 if h.a_won else h.levels_a == 0
    assert play_deal(0, deal_seed(1, 0), "heuristic", "random", 0) == x


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    one = run_pairing("heuristic", "random", 6, games=1, seed=3, workers=1)
    two = run_pairing("heuristic", "random", 6, games=1, seed=3, workers=2)
    assert one.deals == two.deals and one.games == two.games
    assert len(one.games) == 1 and all(g.rounds >= 1 for pair in one.games for g in pair)


def test_unknown_kind_fails_early() -> None:
    with pytest.raises(ValueError):
        run_pairing("heuristic", "genius", 1)


def test_a_against_a_is_zero_within_its_ci() -> None:
    for kind in ("random", "heuristic"):
        r = run_pairing(kind, kind, 30, seed=11, workers=2)
        assert r.levels_per_deal().contains(0.0), (kind, r.levels_per_deal())
        lr = r.leveling_rate()
        assert lr is not None and lr.contains(0.5)
        assert r.deal_win_rate().contains(0.5)


def test_heuristic_beats_random_small() -> None:
    r = run_pairing("heuristic", "random", 20, seed=5, workers=2)
    assert r.deal_win_rate().value >= 0.9
    lr = r.leveling_rate()
    assert lr is not None and lr.value >= 0.95


def test_arena_main_writes_table_json_and_plot(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        console = Console(file=f, width=80, color_system=None)
        results = arena_main(
            "heuristic", ["random", "heuristic"], deals=4, games=1, seed=2, workers=1,
            options=RuleOptions(strict_tractor_follow=True), plot=tmp_path / "p.png",
            json_path=tmp_path / "r.json", console=console,
        )
    assert len(results) == 2
    text = out.read_text()
    assert "vs random" in text and "levels per deal" in text and "leveling rate" in text
    _assert_fits(text, 80)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [p["b"] for p in doc["pairings"]] == ["random", "heuristic"]
    assert doc["pairings"][0]["options"]["strict_tractor_follow"] is True
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


# ---------------------------------------------------------------- strength (long: CI runs them)


@pytest.mark.slow
def test_heuristic_strength_against_random() -> None:
    """RULES-level targets: >= 95% leveling rate and >= 90% deal wins over 1,000 mirrored deals."""
    r = run_pairing("heuristic", "random", 1000, seed=2024, workers=2)
    lr = r.leveling_rate()
    assert lr is not None and lr.value >= 0.95
    assert r.deal_win_rate().value >= 0.90
    assert r.levels_per_deal().lo > 0


@pytest.mark.slow
def test_heuristic_against_itself_is_even() -> None:
    r = run_pairing("heuristic", "heuristic", 300, seed=77, workers=2)
    assert r.levels_per_deal().contains(0.0)
    assert not math.isnan(r.declaring_win_rate())


def test_the_arena_times_each_agents_decisions_and_takes_agent_specs() -> None:
    from shengji.arena import results_table
    from shengji.arena.report import FIGURES

    r = run_pairing("expert:iters=4,candidates=2", "heuristic", 1, seed=2, workers=1)
    ta, tb = r.decision_times()
    assert len(ta) > 10 and len(tb) > 10 and all(t >= 0 for t in ta + tb)
    doc = r.to_json()
    assert doc["decision_ms"]["a"]["n"] == len(ta)
    assert doc["decision_ms"]["a"]["p95"] >= doc["decision_ms"]["a"]["median"]
    assert "times_a" not in doc["deal_results"][0][0]
    table = results_table([r])
    assert table.row_count == len(FIGURES) and len(table.columns) == 2


def test_agent_specs_split_on_commas_keep_their_settings() -> None:
    from shengji.cli import split_agent_specs

    assert split_agent_specs("heuristic,expert:ms=300,worlds=20, random") == [
        "heuristic", "expert:ms=300,worlds=20", "random"
    ]


# ---------------------------------------------------------------- the optional plot (extra [plot])


def test_a_plot_without_matplotlib_is_refused_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import shengji.arena.report as report
    from shengji.arena import PlotUnavailableError, require_matplotlib
    from shengji.cli import app

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    with pytest.raises(PlotUnavailableError, match=r"shengji\[plot\]"):
        require_matplotlib()

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("deals were played before the plot was refused")

    monkeypatch.setattr(report, "run_pairing", must_not_run)
    with pytest.raises(PlotUnavailableError, match="matplotlib"):
        arena_main("heuristic", ["random"], deals=1, plot=tmp_path / "p.png",
                   console=Console(file=io.StringIO()))
    res = CliRunner().invoke(
        app, ["arena", "--deals", "1", "--workers", "1", "--plot", str(tmp_path / "p.png")]
    )
    assert res.exit_code == 2
    assert "matplotlib" in res.output and "[plot]" in res.output
    assert not (tmp_path / "p.png").exists()


_NO_MATPLOTLIB = """
import sys
sys.modules["matplotlib"] = None  # an install without the extra [plot]
import shengji, shengji.arena, shengji.tui
from shengji.server.app import create_app
from shengji.cli import app
from typer.testing import CliRunner
r = CliRunner()
for args in (["--help"], ["demo", "--rounds", "1"], ["rules"],
             ["arena", "--deals", "1", "--workers", "1", "--b", "random"]):
    res = r.invoke(app, args)
    assert res.exit_code == 0, (args, res.output)
print("ok", "matplotlib" in sys.modules and sys.modules["matplotlib"] is not None)
"""


def test_everything_but_the_plot_works_without_matplotlib() -> None:
    """`pip install -e .` (no extras) then README's commands: none needs matplotlib."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", _NO_MATPLOTLIB], cwd=root, capture_output=True, text=True,
        timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(root / "src")},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1] == "ok False"


# ---------------------------------------------------------------- the table fits 80 columns


def _assert_fits(text: str, width: int) -> None:
    lines = text.splitlines()
    assert lines and max(len(x.rstrip()) for x in lines) <= width, text
    assert "…" not in text and "..." not in text, text  # nothing cut short


def _worst_case(a: str, b: str, deals: int) -> PairingResult:
    """A pairing with the widest figures: many deals, one-sided wins, slow decisions."""
    halves = [
        (DealOutcome(i, True, True, 3, 0, 0, times_a=(1.2345, 2.3456), times_b=(0.0001,)),
         DealOutcome(i, False, i % 7 != 0, 3 if i % 7 else 0, 0 if i % 7 else 1, 0))
        for i in range(deals)
    ]
    from shengji.arena import GameOutcome

    games = [(GameOutcome(0, 0, True, 20), GameOutcome(0, 1, False, 31))]
    return PairingResult(a, b, deals=halves, games=games)


@pytest.mark.parametrize("width", [80, 100])
def test_the_results_table_fits_the_console_without_cutting(width: int) -> None:
    """Issue 11: the arena's table was cut at 80 columns. Long agent specs wrap in their
    column's heading; pairings that do not fit side by side go to the next table."""
    from shengji.arena import results_tables

    results = [
        _worst_case("heuristic", "random", 10_000),
        _worst_case("dmc:models/dmc-seed1.pt", "expert:iters=4,candidates=2,ms=300", 50),
        _worst_case("heuristic", "heuristic", 3),
        _worst_case("random", "random", 1),
    ]
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None)
    tables = results_tables(results, width)
    for t in tables:
        console.print(t)
    text = buf.getvalue()
    _assert_fits(text, width)
    assert sum(len(t.columns) - 1 for t in tables) == 4  # every pairing is shown once
    # every figure of every pairing is printed in full
    for r in results:
        for cell in figures(r):
            assert cell in text, cell
    assert "10000×2" in text and "1790/2346" in text and "0.1/0.1" in text
    # a long agent spec folds in its heading (at 24 columns) and loses nothing
    assert "expert:iters=4,candidate" in text and "s=2,ms=300" in text
    assert "dmc:models/dmc-seed1.pt" in text


def test_arena_main_output_fits_80_columns_with_long_agent_specs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The progress bars, the table and the notes of `shengji arena` at 80 columns."""
    import shengji.arena.report as report

    def fake_run(a: str, b: str, deals: int, **kw: object) -> PairingResult:
        progress = kw["progress"]
        assert callable(progress)
        progress(deals)
        return _worst_case(a, b, deals)

    monkeypatch.setattr(report, "run_pairing", fake_run)
    buf = io.StringIO()
    console = Console(file=buf, width=80, color_system=None)
    specs = ["expert:iters=4,candidates=2,ms=300", "random", "heuristic", "expert"]
    arena_main("dmc:models/dmc-seed1.pt", specs, deals=1000, console=console)
    text = buf.getvalue()
    _assert_fits(text, 80)
    assert text.count("1000/1000") == 4  # each progress bar shows its count in full
    assert text.count("1000×2") == 4 and "declaring side won" in text


def test_fast_decisions_show_in_microseconds_and_the_title_stays_on_one_line() -> None:
    """Issue 29 item 9: the heuristic's decision time read "0.0/0.0" ms, and the title of a
    one-pairing table wrapped ("…A's" / "view, 95% CI") at 80 columns."""
    from shengji.arena import results_tables
    from shengji.arena.report import TITLE

    fast = PairingResult("heuristic", "random", deals=[
        (DealOutcome(0, True, True, 1, 0, 0, times_a=(12e-6, 15e-6, 41e-6), times_b=(8e-6,)),
         DealOutcome(0, False, True, 1, 0, 0))])
    cells = figures(fast)
    assert cells[-2] == "15.0/41.0 µs" and cells[-1] == "8.0/8.0 µs"
    slow = _worst_case("heuristic", "random", 3)
    assert figures(slow)[-2:] == ["1790/2346 ms", "0.1/0.1 ms"]  # from 0.1 ms on: in ms
    for width in (80, 60):
        buf = io.StringIO()
        console = Console(file=buf, width=width, color_system=None)
        for t in results_tables([fast], width):
            console.print(t)
        text = buf.getvalue()
        _assert_fits(text, width)
        assert text.splitlines()[0].rstrip() == TITLE, text
        assert "0.0/0.0" not in text and "15.0/41.0 µs" in text
