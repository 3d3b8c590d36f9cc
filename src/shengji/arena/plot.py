"""The arena's optional plot (extra `[plot]`: `pip install 'shengji[plot]'`).

matplotlib is imported only when a plot is drawn; without it, `require_matplotlib`
raises `PlotUnavailableError`, whose message names the extra to install. Everything
else in the arena works without matplotlib.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from ..bots import agent_label
from .results import PairingResult
from .stats import running_ci, running_mean

__all__ = ["PLOT_EXTRA_HINT", "PlotUnavailableError", "plot_results", "require_matplotlib"]

PLOT_EXTRA_HINT = "pip install 'shengji[plot]' (from a checkout: pip install -e '.[plot]')"
"""How to get matplotlib, the plot's one optional dependency."""


class PlotUnavailableError(RuntimeError):
    """A plot was asked for but matplotlib (the extra `[plot]`) is not installed."""


def require_matplotlib(what: str = "--plot") -> None:
    """Raise `PlotUnavailableError` naming the `[plot]` extra if matplotlib is missing.

    Checks without importing matplotlib, so a command can refuse a plot option
    before it spends minutes playing deals.
    """
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotUnavailableError(
            f"{what} needs matplotlib, which is not installed; install the extra [plot]: "
            f"{PLOT_EXTRA_HINT}"
        )


def plot_results(results: Sequence[PairingResult], path: str | Path) -> None:
    """Levels per deal with 95% CI per pairing, and the running mean over deals (PNG).

    Raises `PlotUnavailableError` if matplotlib (extra `[plot]`) is not installed.
    """
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in results if r.deals]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    names = [f"{agent_label(r.a)}\nvs {agent_label(r.b)}" for r in shown]
    cis = [r.levels_per_deal() for r in shown]
    xs = list(range(len(shown)))
    ax1.errorbar(
        xs,
        [c.value for c in cis],
        yerr=[[c.value - c.lo for c in cis], [c.hi - c.value for c in cis]],
        fmt="o",
        capsize=6,
        color="tab:blue",
    )
    ax1.axhline(0, color="grey", lw=0.8)
    ax1.set_xticks(xs, names)
    ax1.set_xlim(-0.6, len(shown) - 0.4)
    ax1.set_ylabel("signed levels per deal for A (95% CI)")
    ax1.set_title("Levels per deal")
    for r in shown:
        values = r.pair_levels()
        rm = running_mean(values)
        lo, hi = running_ci(values)
        ks = list(range(1, len(rm) + 1))
        (line,) = ax2.plot(ks, rm, label=f"{agent_label(r.a)} vs {agent_label(r.b)}")
        first = 10  # the band of the first few deals is too wide to be informative
        ax2.fill_between(ks[first - 1 :], lo[first - 1 :], hi[first - 1 :],
                         color=line.get_color(), alpha=0.15, lw=0)
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_xlabel("mirrored deals")
    ax2.set_ylabel("running mean of levels per deal (A), 95% CI band")
    ax2.set_title("Running mean")
    if shown:
        ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
