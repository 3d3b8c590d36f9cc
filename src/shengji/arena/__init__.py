"""The arena: bots against bots on mirrored duplicate deals, with statistics.

Split by job:

- `shengji.arena.stats`: confidence intervals (pure functions of numbers);
- `shengji.arena.results`: deal and game outcomes, a pairing's figures, JSON;
- `shengji.arena.run`: playing mirrored deals and games, on processes or Ray;
- `shengji.arena.report`: the results table and `shengji arena` (`arena_main`);
- `shengji.arena.plot`: the optional PNG plot (extra `[plot]`, matplotlib).

Everything public is re-exported here, so `from shengji.arena import run_pairing`
works; importing the package never imports matplotlib.
"""

from __future__ import annotations

from .plot import PLOT_EXTRA_HINT, PlotUnavailableError, plot_results, require_matplotlib
from .report import arena_main, results_table, results_tables
from .results import DealOutcome, GameOutcome, PairingResult, summarize, time_summary, write_json
from .run import (
    ProgressFn,
    TimedAgent,
    deal_round,
    deal_seed,
    play_deal,
    play_game_outcome,
    play_mirrored_deal,
    play_mirrored_game,
    run_pairing,
)
from .stats import (
    Interval,
    mean_ci,
    proportion_ci,
    ratio_ci,
    running_ci,
    running_mean,
    share_ci,
    t_quantile,
)

__all__ = [
    "PLOT_EXTRA_HINT",
    "DealOutcome",
    "GameOutcome",
    "Interval",
    "PairingResult",
    "PlotUnavailableError",
    "ProgressFn",
    "TimedAgent",
    "arena_main",
    "deal_round",
    "deal_seed",
    "mean_ci",
    "play_deal",
    "play_game_outcome",
    "play_mirrored_deal",
    "play_mirrored_game",
    "plot_results",
    "proportion_ci",
    "ratio_ci",
    "require_matplotlib",
    "results_table",
    "results_tables",
    "running_ci",
    "running_mean",
    "run_pairing",
    "share_ci",
    "summarize",
    "t_quantile",
    "time_summary",
    "write_json",
]
