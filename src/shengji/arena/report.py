"""The arena's report: the results table, its notes, and `shengji arena` itself.

`arena_main` runs each pairing with a progress bar, then prints the table (and
writes the JSON and the optional plot). The table is a rich `Table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.cells import cell_len
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
from rich.table import Column, Table

from ..bots import agent_label
from ..options import RuleOptions
from .plot import plot_results, require_matplotlib
from .results import PairingResult, time_summary, write_json
from .run import run_pairing
from .stats import Interval

__all__ = [
    "FIGURES", "TITLE", "arena_main", "failure_lines", "figures", "results_table", "results_tables",
]


TITLE = "Arena: mirrored duplicate deals, A's view, 95% CI"
"""The results table's title."""

FIGURES = (
    "mirrored deals",
    "deal wins",
    "levels per deal",
    "leveling rate",
    "levels A:B",
    "games",
    "game wins",
    "A time med/p95",
    "B time med/p95",
)
"""The rows of the results table, one figure each (see `arena_main`'s notes)."""


def _pct(x: Interval | None) -> str:
    """A share with its CI, in percent: `95.1% [90.1–97.8]`."""
    if x is None:
        return "-"
    return f"{100 * x.value:.1f}% [{100 * x.lo:.1f}–{100 * x.hi:.1f}]"


def _ms(x: dict[str, float] | None) -> str:
    """Median/95th percentile decision time with its unit: `1.2/3.4 ms` (no decimals from
    100 on), or in µs when the median is under 0.1 ms (`12/41 µs`: the heuristic decides
    in microseconds, which "0.0/0.0 ms" hid)."""
    if x is None:
        return "-"
    scale, unit = (1000, "µs") if x["median"] < 0.1 else (1, "ms")
    values = (scale * x["median"], scale * x["p95"])
    return "/".join(f"{v:.0f}" if v >= 100 else f"{v:.1f}" for v in values) + " " + unit


def figures(r: PairingResult) -> list[str]:
    """A pairing's figures as the table shows them, one per row of `FIGURES`."""
    times_a, times_b = r.decision_times()
    if r.deals:
        lv = r.levels_per_deal()
        la, lb = r.levels_gained()
        deal = [
            _pct(r.deal_win_rate()),
            f"{lv.value:+.3f} ±{lv.half_width:.3f}",
            _pct(r.leveling_rate()),
            f"{la}:{lb}",
        ]
    else:
        deal = ["-"] * 4
    return [
        f"{r.n_deals}×2",
        *deal,
        str(r.n_games) if r.games else "-",
        _pct(r.game_win_rate()),
        _ms(time_summary(times_a)),
        _ms(time_summary(times_b)),
    ]


_HEADER_MAX = 24  # a longer agent name folds in its column's heading


def _heading(r: PairingResult) -> str:
    """A pairing's column heading: A, then "vs B" on a line of its own."""
    return f"{agent_label(r.a)}\nvs {agent_label(r.b)}"


def _column_width(r: PairingResult, cells: Sequence[str]) -> int:
    """A pairing's column width: its widest figure (`cells`) or heading line, the heading
    counting for at most `_HEADER_MAX` columns."""
    heading = min(_HEADER_MAX, max(cell_len(x) for x in _heading(r).splitlines()))
    return max(heading, *(cell_len(c) for c in cells))


def results_table(results: Sequence[PairingResult]) -> Table:
    """The pairings' figures as a rich table: one row per figure, one column per pairing.

    95% confidence intervals are in brackets (or after ±). A pairing's name heads its
    column and wraps within it; figures never wrap. `results_tables` splits many
    pairings over several tables so that each fits the console.
    """
    table = Table(  # at least as wide as its title, so that the title never wraps
        title=TITLE, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
        padding=(0, 0, 0, 1), pad_edge=False, min_width=cell_len(TITLE),
    )
    table.add_column("", style="bold", no_wrap=True)
    cols = [figures(r) for r in results]
    for r, cells in zip(results, cols, strict=True):
        w = _column_width(r, cells)
        table.add_column(
            _heading(r), justify="right", overflow="fold", min_width=w, max_width=w
        )
    for k, name in enumerate(FIGURES):
        table.add_row(name, *(cells[k] for cells in cols))
    return table


def results_tables(results: Sequence[PairingResult], width: int = 80) -> list[Table]:
    """The results as tables no wider than `width` columns (pairings side by side while
    they fit; a pairing too wide for `width` on its own still gets a table of its own)."""
    label = max(cell_len(f) for f in FIGURES)
    out: list[list[PairingResult]] = []
    used = 0
    for r in results:
        w = 2 + _column_width(r, figures(r))  # the column divider, the left padding, the figures
        if not out or used + w > width:
            out.append([])
            used = label
        out[-1].append(r)
        used += w
    return [results_table(chunk) for chunk in out]


def failure_lines(results: Sequence[PairingResult]) -> list[str]:
    """One line per external bot (`exec:`) of each pairing: its failures per kind and how
    many decisions its stand-in made (docs/BOT_PROTOCOL.md)."""
    from ..bots.external import FAILURE_KINDS

    lines: list[str] = []
    for r in results:
        for name, counts in zip((r.a, r.b), r.failures(), strict=True):
            if not name.startswith("exec:") and not counts:
                continue
            kinds = ", ".join(f"{k} {counts.get(k, 0)}" for k in FAILURE_KINDS)
            lines.append(f"{name} (vs {r.b if name == r.a else r.a}): failures: {kinds}; "
                         f"{counts.get('standin', 0)} decision(s) made by the stand-in "
                         "(heuristic)")
    return lines


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
    columns = (  # at most ~73 columns: the pairing's name folds rather than being cut
        TextColumn(
            "[bold]{task.description}",
            table_column=Column(overflow="fold", max_width=_HEADER_MAX),
        ),
        BarColumn(bar_width=10),
        MofNCompleteColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        for b in bs:
            task = progress.add_task(f"{agent_label(a)} vs {agent_label(b)}",
                                     total=deals + games)

            def advance(n: int, task: TaskID = task) -> None:
                progress.advance(task, n)

            res = run_pairing(
                a, b, deals, games=games, seed=seed, workers=workers, options=options,
                progress=advance, ray=ray,
            )
            results.append(res)
    for table in results_tables(results, console.width):
        console.print(table)
    console.print(
        "[dim]deal wins: played deals whose gainer (RULES §8.2) was A's side; levels per deal: "
        "levels gained by A minus by B per played deal; leveling rate: levels gained by A / "
        "by both; each mirrored deal is one sample; time: per decision "
        "(median/95th percentile); declaring side won "
        + ", ".join(f"{100 * r.declaring_win_rate():.1f}%" for r in results if r.deals)
        + " of played deals. Time: "
        + ", ".join(f"{agent_label(r.a)} vs {agent_label(r.b)} {r.seconds:.1f}s"
                    for r in results)
        + "[/]"
    )
    for line in failure_lines(results):
        console.print(line, markup=False, highlight=False)
    if json_path is not None:
        write_json(results, json_path)
        console.print(f"results written to {json_path}")
    if plot is not None:
        plot_results(results, plot)
        console.print(f"plot written to {plot}")
    return results
