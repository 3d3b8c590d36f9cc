"""The arena's report: the results table, its notes, and `shengji arena` itself.

`arena_main` runs each pairing with a progress bar, then prints the table (and
writes the JSON and the optional plot). The table is a rich `Table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..options import RuleOptions
from .plot import plot_results, require_matplotlib
from .results import PairingResult, time_summary, write_json
from .run import run_pairing
from .stats import Interval

__all__ = ["arena_main", "results_table"]


def _pct(x: Interval | None) -> str:
    if x is None:
        return "-"
    return f"{100 * x.value:.1f}% [{100 * x.lo:.1f}–{100 * x.hi:.1f}]"


def _ms(x: dict[str, float] | None) -> str:
    return "-" if x is None else f"{x['median']:.1f}/{x['p95']:.1f}"


def results_table(results: Sequence[PairingResult]) -> Table:
    """A rich table of the pairings' figures (95% confidence intervals in brackets)."""
    table = Table(
        title="Arena: mirrored duplicate deals, A's view, 95% CI", title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("A vs B", style="bold")
    table.add_column("deals", justify="right")
    table.add_column("deal wins", justify="right")
    table.add_column("levels/deal", justify="right")
    table.add_column("leveling rate", justify="right")
    table.add_column("levels A:B", justify="right")
    table.add_column("games", justify="right")
    table.add_column("game wins", justify="right")
    table.add_column("A ms med/p95", justify="right")
    table.add_column("B ms med/p95", justify="right")
    for r in results:
        times_a, times_b = r.decision_times()
        ta, tb = time_summary(times_a), time_summary(times_b)
        if r.deals:
            lv = r.levels_per_deal()
            lvs = f"{lv.value:+.3f} ±{lv.half_width:.3f}"
            la, lb = r.levels_gained()
            wins, rate, ab = _pct(r.deal_win_rate()), _pct(r.leveling_rate()), f"{la}:{lb}"
        else:
            lvs = wins = rate = ab = "-"
        gw = r.game_win_rate()
        table.add_row(
            f"{r.a} vs {r.b}",
            f"{r.n_deals}×2",
            wins,
            lvs,
            rate,
            ab,
            str(r.n_games) if r.games else "-",
            _pct(gw),
            _ms(ta),
            _ms(tb),
        )
    return table


def arena_main(
    a: str,
    bs: Sequence[str],
    *,
    deals: int,
    games: int = 0,
    seed: int = 0,
    workers: int = 1,
    options: RuleOptions | None = None,
    plot: str | Path | None = None,
    json_path: str | Path | None = None,
    console: Console | None = None,
    ray: str | None = None,
) -> list[PairingResult]:
    """`shengji arena`: run each pairing A vs B with a progress bar, then print the table.

    With `plot`, matplotlib (extra `[plot]`) must be installed: checked before any deal
    is played (`PlotUnavailableError` otherwise).
    """
    if plot is not None:
        require_matplotlib()
    console = console or Console()
    results: list[PairingResult] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        for b in bs:
            task = progress.add_task(f"{a} vs {b}", total=deals + games)

            def advance(n: int, task: TaskID = task) -> None:
                progress.advance(task, n)

            res = run_pairing(
                a, b, deals, games=games, seed=seed, workers=workers, options=options,
                progress=advance, ray=ray,
            )
            results.append(res)
    console.print(results_table(results))
    console.print(
        "[dim]deal wins: played deals whose gainer (RULES §8.2) was A's side; levels/deal: "
        "levels gained by A minus by B per played deal; leveling rate: levels gained by A / "
        "by both; each mirrored deal is one sample; ms: time per kitty/play decision "
        "(median/95th percentile); declaring side won "
        + ", ".join(f"{100 * r.declaring_win_rate():.1f}%" for r in results if r.deals)
        + " of played deals. Time: "
        + ", ".join(f"{r.a} vs {r.b} {r.seconds:.1f}s" for r in results)
        + "[/]"
    )
    if json_path is not None:
        write_json(results, json_path)
        console.print(f"results written to {json_path}")
    if plot is not None:
        plot_results(results, plot)
        console.print(f"plot written to {plot}")
    return results
