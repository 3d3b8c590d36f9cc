"""The arena: bots against bots on mirrored duplicate deals, with statistics.

A *deal* is one round (`shengji.Round`) with a fixed setup that both halves of a
mirror share: trump rank 2, both levels 2, seat 0 the starter and team 0 (seats
0 and 2) the declaring team; the trump suit is still chosen by the deal's
declarations (RULES §3.3, §3.5). Each seeded deal is played twice, agent A at
seats 0/2 and B at 1/3, then with the teams swapped, so the luck of the cards
(and of being the declaring team) cancels in the pair. Full games (`--games`)
are mirrored the same way: the same seed with A as team 0, then as team 1.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

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

from .actions import Action
from .bots import Agent, make_agent
from .driver import play_game, play_round
from .game import Game
from .options import RuleOptions
from .round import Round
from .views import View

ProgressFn = Callable[[int], None]

__all__ = [
    "arena_main",
    "DealOutcome",
    "GameOutcome",
    "Interval",
    "deal_round",
    "PairingResult",
    "deal_seed",
    "mean_ci",
    "play_deal",
    "play_mirrored_deal",
    "play_game_outcome",
    "play_mirrored_game",
    "plot_results",
    "proportion_ci",
    "ratio_ci",
    "results_table",
    "running_ci",
    "running_mean",
    "run_pairing",
    "summarize",
    "t_quantile",
    "write_json",
]

# ---------------------------------------------------------------------------
# Statistics (pure functions, no engine needed)
# ---------------------------------------------------------------------------

_Z975 = statistics.NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval `[lo, hi]`."""

    value: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi

    def __str__(self) -> str:
        return f"{self.value:+.3f} [{self.lo:+.3f}, {self.hi:+.3f}]"


def t_quantile(df: int, p: float = 0.975) -> float:
    """Quantile of Student's t distribution with `df` degrees of freedom.

    Exact closed forms for df 1 and 2, otherwise the Cornish-Fisher expansion
    around the normal quantile (off by under 0.005 from df 3 on, plenty
    for a confidence interval).
    """
    if df < 1:
        raise ValueError("t_quantile needs df >= 1")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        a = 4 * p * (1 - p)
        return (2 * p - 1) * math.sqrt(2 / a)
    z = statistics.NormalDist().inv_cdf(p)
    n = float(df)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / n + g2 / n**2 + g3 / n**3 + g4 / n**4


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean with a Student-t confidence interval (independent observations).

    One value gives a degenerate interval at that value; no value is an error.
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci of no values")
    m = math.fsum(values) / n
    if n == 1:
        return Interval(m, m, m)
    sd = statistics.stdev(values)
    h = t_quantile(n - 1, 0.5 + confidence / 2) * sd / math.sqrt(n)
    return Interval(m, m - h, m + h)


def proportion_ci(successes: float, n: int, confidence: float = 0.95) -> Interval:
    """A proportion with the Wilson score interval (good near 0 and 1)."""
    if n <= 0:
        raise ValueError("proportion_ci needs n >= 1")
    if not 0 <= successes <= n:
        raise ValueError("successes must lie in [0, n]")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, max(0.0, centre - h), min(1.0, centre + h))


def ratio_ci(
    num: Sequence[float], den: Sequence[float], confidence: float = 0.95
) -> Interval | None:
    """Ratio of sums `sum(num) / sum(den)` over paired units, delta-method CI.

    Used for the leveling rate (levels gained by A / levels gained by both),
    with one unit per mirrored deal so the two halves stay together. Returns
    None when the denominator sums to zero. The interval is clipped to [0, 1]
    when the ratio is a share (num <= den unit by unit).
    """
    if len(num) != len(den):
        raise ValueError("num and den must pair up")
    n = len(num)
    total = math.fsum(den)
    if n == 0 or total == 0:
        return None
    r = math.fsum(num) / total
    if n == 1:
        return Interval(r, r, r)
    mean_den = total / n
    resid = [a - r * b for a, b in zip(num, den, strict=True)]
    var = math.fsum(e * e for e in resid) / (n - 1)
    h = t_quantile(n - 1, 0.5 + confidence / 2) * math.sqrt(var / n) / mean_den
    lo, hi = r - h, r + h
    if all(0 <= a <= b for a, b in zip(num, den, strict=True)):
        lo, hi = max(0.0, lo), min(1.0, hi)
    return Interval(r, lo, hi)


def _share_ci(ci: Interval, n: int) -> Interval:
    """Widen a share's CI to at least the Wilson interval with `n` samples.

    With one sample per mirrored deal, a t (or delta-method) interval collapses
    to a point when every sample is equal (e.g. 100% wins); the Wilson interval
    of the same share over the same number of samples is never degenerate and is
    conservative, since a sample averaging two halves varies less than a coin.
    """
    w = proportion_ci(ci.value * n, n) if n else ci
    return Interval(ci.value, max(0.0, min(ci.lo, w.lo)), min(1.0, max(ci.hi, w.hi)))


def running_ci(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[list[float], list[float]]:
    """Lower and upper CI bounds of the mean of the first k values, k = 1..n (Welford)."""
    lo: list[float] = []
    hi: list[float] = []
    mean = 0.0
    m2 = 0.0
    for k, v in enumerate(values, 1):
        d = v - mean
        mean += d / k
        m2 += d * (v - mean)
        if k == 1:
            lo.append(mean)
            hi.append(mean)
            continue
        h = t_quantile(k - 1, 0.5 + confidence / 2) * math.sqrt(max(m2, 0.0) / (k - 1) / k)
        lo.append(mean - h)
        hi.append(mean + h)
    return lo, hi


def running_mean(values: Iterable[float]) -> list[float]:
    """The mean of the first k values, for k = 1..n."""
    out: list[float] = []
    total = 0.0
    for k, v in enumerate(values, 1):
        total += v
        out.append(total / k)
    return out


# ---------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DealOutcome:
    """One played half of a mirrored deal, seen from agent A.

    `a_declaring`: A held the declaring team. `a_won`: A's side was the round's
    gainer (RULES §8.2: declarers kept the deal, or the opponents took it over).
    `levels_a`/`levels_b`: levels gained by each side (one of them is 0).
    `times_a`/`times_b`: seconds per kitty/play decision of A's and B's seats
    (measurements, left out of comparisons and of the JSON deal results).
    """

    deal: int
    a_declaring: bool
    a_won: bool
    levels_a: int
    levels_b: int
    opponents_points: int
    times_a: tuple[float, ...] = field(default=(), compare=False, repr=False)
    times_b: tuple[float, ...] = field(default=(), compare=False, repr=False)

    @property
    def signed_levels(self) -> int:
        return self.levels_a - self.levels_b


@dataclass(frozen=True)
class GameOutcome:
    """One full game (RULES §9), seen from agent A."""

    game: int
    a_team: int
    a_won: bool
    rounds: int


@dataclass
class PairingResult:
    """Everything measured for one pairing A vs B."""

    a: str
    b: str
    deals: list[tuple[DealOutcome, DealOutcome]] = field(default_factory=list)
    games: list[tuple[GameOutcome, GameOutcome]] = field(default_factory=list)
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    # --- per-deal statistics -------------------------------------------------
    @property
    def n_deals(self) -> int:
        """Mirrored deals (each played twice)."""
        return len(self.deals)

    def halves(self) -> list[DealOutcome]:
        return [h for pair in self.deals for h in pair]

    def pair_levels(self) -> list[float]:
        """Signed levels per played deal, averaged over each mirror pair (A's view)."""
        return [(x.signed_levels + y.signed_levels) / 2 for x, y in self.deals]

    def levels_per_deal(self) -> Interval:
        """Mean signed levels per deal for A, 95% CI over mirror pairs."""
        return mean_ci(self.pair_levels())

    def deal_win_rate(self) -> Interval:
        """Share of played deals (halves) that A's side won; CI over mirror pairs."""
        wins = [(int(x.a_won) + int(y.a_won)) / 2 for x, y in self.deals]
        return _share_ci(mean_ci(wins), len(wins))

    def leveling_rate(self) -> Interval | None:
        """Levels gained by A / levels gained by both sides (None if nobody gained)."""
        num = [x.levels_a + y.levels_a for x, y in self.deals]
        den = [x.levels_a + x.levels_b + y.levels_a + y.levels_b for x, y in self.deals]
        ci = ratio_ci(num, den)
        return None if ci is None else _share_ci(ci, sum(1 for d in den if d))

    def levels_gained(self) -> tuple[int, int]:
        h = self.halves()
        return sum(x.levels_a for x in h), sum(x.levels_b for x in h)

    def decision_times(self) -> tuple[list[float], list[float]]:
        """Seconds per kitty/play decision of agent A and of agent B, over all deals."""
        h = self.halves()
        return [x for d in h for x in d.times_a], [x for d in h for x in d.times_b]

    def declaring_win_rate(self) -> float:
        """How often the declaring team won a half (a measure of the deal's bias)."""
        h = self.halves()
        return sum(x.a_won == x.a_declaring for x in h) / len(h) if h else math.nan

    # --- full games ------------------------------------------------------------
    @property
    def n_games(self) -> int:
        return 2 * len(self.games)

    def game_win_rate(self) -> Interval | None:
        if not self.games:
            return None
        wins = sum(int(g.a_won) for pair in self.games for g in pair)
        return proportion_ci(wins, self.n_games)

    def to_json(self) -> dict[str, Any]:
        def iv(x: Interval | None) -> dict[str, float] | None:
            return None if x is None else {"value": x.value, "lo": x.lo, "hi": x.hi}

        la, lb = self.levels_gained()
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            "options": self.options,
            "seconds": self.seconds,
            "mirrored_deals": self.n_deals,
            "deal_win_rate": iv(self.deal_win_rate()) if self.deals else None,
            "levels_per_deal": iv(self.levels_per_deal()) if self.deals else None,
            "leveling_rate": iv(self.leveling_rate()) if self.deals else None,
            "levels_gained": {"a": la, "b": lb},
            "declaring_side_win_rate": self.declaring_win_rate() if self.deals else None,
            "decision_ms": {
                "a": _time_summary(self.decision_times()[0]),
                "b": _time_summary(self.decision_times()[1]),
            },
            "games": self.n_games,
            "game_win_rate": iv(self.game_win_rate()),
            "deal_results": [[_outcome_json(x), _outcome_json(y)] for x, y in self.deals],
            "game_results": [[asdict(x), asdict(y)] for x, y in self.games],
        }


def _outcome_json(x: DealOutcome) -> dict[str, Any]:
    d = asdict(x)
    d.pop("times_a")
    d.pop("times_b")
    return d


def _time_summary(xs: Sequence[float]) -> dict[str, float] | None:
    """Median and 95th percentile of decision times, in milliseconds."""
    if not xs:
        return None
    s = sorted(xs)
    p95 = s[min(len(s) - 1, int(0.95 * len(s)))]
    return {"median": 1000 * statistics.median(s), "p95": 1000 * p95, "n": len(s)}


def summarize(results: Sequence[PairingResult]) -> dict[str, Any]:
    """The JSON document written by `shengji arena --json`."""
    return {"pairings": [r.to_json() for r in results]}


def write_json(results: Sequence[PairingResult], path: str | Path) -> None:
    Path(path).write_text(json.dumps(summarize(results), indent=1) + "\n", encoding="utf-8")


def deal_seed(master: int, index: int, salt: str = "deal") -> int:
    """A deal's shuffle seed from the arena seed (stable across processes)."""
    return random.Random(f"shengji-arena:{salt}:{master}:{index}").getrandbits(48)



# ---------------------------------------------------------------------------
# Playing deals and games
# ---------------------------------------------------------------------------


def _agent_seed(seed: int, seat: int, half: int) -> int:
    return random.Random(f"shengji-arena:agent:{seed}:{seat}:{half}").getrandbits(48)


def _agents(a: str, b: str, a_team: int, seed: int) -> list[Agent]:
    """Agents for a deal or game; their seeds differ between the two halves of a mirror,
    so that A against A is not trivially the same game twice."""
    return [
        make_agent(a if seat % 2 == a_team else b, _agent_seed(seed, seat, a_team))
        for seat in range(4)
    ]


class TimedAgent:
    """Wraps an agent and records the seconds each kitty or play decision takes
    (declarations during the deal are near-instant for every bot and left out)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.times: list[float] = []

    def act(self, view: View) -> Action:
        """The wrapped agent's action, timed."""
        t0 = time.perf_counter()
        action = self.agent.act(view)
        if view.phase in ("kitty", "play"):
            self.times.append(time.perf_counter() - t0)
        return action


def deal_round(seed: int, options: RuleOptions | None = None) -> Round:
    """The round a deal is played on: trump rank 2, seat 0 starts, team 0 declares."""
    return Round(seed, options, trump_rank="2", starter=0, declaring_team=0)


def play_deal(
    index: int, seed: int, a: str, b: str, a_team: int, options: RuleOptions | None = None
) -> DealOutcome:
    """Play one deal with agent kind `a` on team `a_team` and `b` on the other team."""
    rnd = deal_round(seed, options)
    agents = [TimedAgent(x) for x in _agents(a, b, a_team, seed)]
    play_round(rnd, agents)
    res = rnd.result
    assert res is not None
    gainer_team = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
    a_won = gainer_team == a_team
    return DealOutcome(
        deal=index,
        a_declaring=res.declaring_team == a_team,
        a_won=a_won,
        levels_a=res.levels_gained if a_won else 0,
        levels_b=0 if a_won else res.levels_gained,
        opponents_points=res.opponents_points,
        times_a=tuple(t for s, x in enumerate(agents) if s % 2 == a_team for t in x.times),
        times_b=tuple(t for s, x in enumerate(agents) if s % 2 != a_team for t in x.times),
    )


def play_mirrored_deal(
    index: int, seed: int, a: str, b: str, options: RuleOptions | None = None
) -> tuple[DealOutcome, DealOutcome]:
    """The same deal twice: A as the declaring team (seats 0, 2), then as the opponents."""
    return (
        play_deal(index, seed, a, b, 0, options),
        play_deal(index, seed, a, b, 1, options),
    )


def play_game_outcome(
    index: int, seed: int, a: str, b: str, a_team: int, options: RuleOptions | None = None,
    max_rounds: int = 400,
) -> GameOutcome:
    """A whole game (RULES §9) with A on team `a_team`."""
    game = Game(seed, options)
    play_game(game, _agents(a, b, a_team, seed), max_rounds=max_rounds)
    if game.winner is None:
        # A runaway game (never seen in practice): the team with the higher level wins.
        lv = game.levels
        a_won = lv[a_team] > lv[1 - a_team]
    else:
        a_won = game.winner == a_team
    return GameOutcome(game=index, a_team=a_team, a_won=a_won, rounds=len(game.results))


def play_mirrored_game(
    index: int, seed: int, a: str, b: str, options: RuleOptions | None = None
) -> tuple[GameOutcome, GameOutcome]:
    """The same game seed twice: A as team 0, then as team 1."""
    return (
        play_game_outcome(index, seed, a, b, 0, options),
        play_game_outcome(index, seed, a, b, 1, options),
    )


# ---------------------------------------------------------------------------
# Running a pairing (optionally on several processes)
# ---------------------------------------------------------------------------


_Task = tuple[str, int, int, str, str, RuleOptions]


def _run_task(task: _Task) -> tuple[str, int, Any]:
    kind, index, seed, a, b, options = task
    if kind == "deal":
        return kind, index, play_mirrored_deal(index, seed, a, b, options)
    return kind, index, play_mirrored_game(index, seed, a, b, options)


def run_pairing(
    a: str,
    b: str,
    deals: int,
    *,
    games: int = 0,
    seed: int = 0,
    workers: int = 1,
    options: RuleOptions | None = None,
    progress: ProgressFn | None = None,
    ray: str | None = None,
) -> PairingResult:
    """Play `deals` mirrored deals (and `games` mirrored games) of A against B.

    Results are the same for any number of workers: every deal and game has
    its own seed derived from `seed` and its index. `progress(n)` is called
    after each finished task with the number of tasks done in it (1).
    """
    opts = options or RuleOptions()
    for kind in (a, b):
        make_agent(kind, 0)  # fail early on an unknown kind
    tasks: list[_Task] = [
        ("deal", i, deal_seed(seed, i), a, b, opts) for i in range(deals)
    ] + [("game", i, deal_seed(seed, i, "game"), a, b, opts) for i in range(games)]
    deal_res: dict[int, tuple[DealOutcome, DealOutcome]] = {}
    game_res: dict[int, tuple[GameOutcome, GameOutcome]] = {}
    start = time.perf_counter()

    def collect(out: tuple[str, int, Any]) -> None:
        kind, index, value = out
        (deal_res if kind == "deal" else game_res)[index] = value
        if progress is not None:
            progress(1)

    if ray is not None:  # a Ray cluster: "auto", "local" or HOST:PORT (extra [cluster])
        from .learn.cluster import ray_map

        for out in ray_map(_run_task, tasks, ray, workers):
            collect(out)
    elif workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            collect(_run_task(task))
    else:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        # Games are long: hand them out first so they do not straggle at the end.
        ordered = [t for t in tasks if t[0] == "game"] + [t for t in tasks if t[0] == "deal"]
        with ctx.Pool(workers) as pool:
            for out in pool.imap_unordered(_run_task, ordered, chunksize=1):
                collect(out)
    return PairingResult(
        a=a,
        b=b,
        deals=[deal_res[i] for i in range(deals)],
        games=[game_res[i] for i in range(games)],
        seed=seed,
        options=opts.to_json(),
        seconds=time.perf_counter() - start,
    )


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------


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
        ta, tb = _time_summary(times_a), _time_summary(times_b)
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


def plot_results(results: Sequence[PairingResult], path: str | Path) -> None:
    """Levels per deal with 95% CI per pairing, and the running mean over deals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in results if r.deals]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    names = [f"{r.a}\nvs {r.b}" for r in shown]
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
        (line,) = ax2.plot(ks, rm, label=f"{r.a} vs {r.b}")
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
    """`shengji arena`: run each pairing A vs B with a progress bar, then print the table."""
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
