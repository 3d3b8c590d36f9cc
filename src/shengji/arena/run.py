"""Running the arena: mirrored deals and games, one pairing on one or many processes.

A *deal* is one round (`shengji.Round`) with a fixed setup that both halves of a
mirror share: trump rank 2, both levels 2, seat 0 the starter and team 0 (seats
0 and 2) the declaring team; the trump suit is still chosen by the deal's
declarations (RULES §3.3, §3.5). Each seeded deal is played twice, agent A at
seats 0/2 and B at 1/3, then with the teams swapped, so the luck of the cards
(and of being the declaring team) cancels in the pair. Full games (`--games`)
are mirrored the same way: the same seed with A as team 0, then as team 1.

Larger tables (RULES §12) keep the pattern: A holds the seats of one parity and B the
others, and the mirror plays the same deal with the pattern turned by one seat, so every
seat's hand is played once by A and once by B. In teams mode (§12.2) the parities are
the teams. In friends mode (§12.4) sides form during the round, so "A against B" means
A on the even seats (seat 0, the deal's leader, among them), then A on the odd seats;
a half's `levels_a` is the sum of the levels A's seats gained (`RoundResult.level_gains`),
and A "won" the half if its seats gained more than B's (on equal gains, the swap band:
if the next leader is A's). The random and heuristic bots and the expert's levels play
every table; the learned and research bots only the four-player teams game
(`table_spec_error`).

`run_pairing` spreads the deals over a process pool (`workers`) or a Ray
cluster (`ray`, extra `[cluster]`); results never depend on either, since each
deal's seed derives from the arena seed and its index alone.
"""

from __future__ import annotations

import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ..actions import Action
from ..bots import Agent, make_agent, table_kind_error
from ..driver import play_game, play_round
from ..game import Game
from ..options import RuleOptions
from ..round import Round
from ..views import View
from .results import DealOutcome, GameOutcome, PairingResult

ProgressFn = Callable[[int], None]
"""Called with the number of tasks just finished (see `run_pairing`)."""

__all__ = [
    "ProgressFn",
    "TimedAgent",
    "table_spec_error",
    "deal_round",
    "deal_seed",
    "play_deal",
    "play_game_outcome",
    "play_mirrored_deal",
    "play_mirrored_game",
    "run_pairing",
]


def deal_seed(master: int, index: int, salt: str = "deal") -> int:
    """A deal's shuffle seed from the arena seed (stable across processes)."""
    return random.Random(f"shengji-arena:{salt}:{master}:{index}").getrandbits(48)


def _agent_seed(seed: int, seat: int, half: int) -> int:
    return random.Random(f"shengji-arena:agent:{seed}:{seat}:{half}").getrandbits(48)


def table_spec_error(spec: str, options: RuleOptions) -> str | None:
    """Why agent `spec` cannot play a table of `options`, or None. Every bot plays the
    four-player teams game; at other tables (RULES §12) the random and heuristic bots and
    the expert's levels do (`bots.base.table_kind_error`): the learned bots read four
    seats and fixed teams, so they are refused rather than played wrongly."""
    return table_kind_error(spec, options)


def _agents(a: str, b: str, a_team: int, seed: int, table: Round | Game) -> list[Agent]:
    """Agents for a deal or game, A on the seats of parity `a_team`; their seeds differ
    between the two halves of a mirror, so that A against A is not trivially the same
    game twice. A research bot that sees every hand (`omniscient`, `sees_all`) is given
    the real round or game."""
    agents = [
        make_agent(a if seat % 2 == a_team else b, _agent_seed(seed, seat, a_team))
        for seat in range(table.options.n_players)
    ]
    for agent in agents:
        if getattr(agent, "sees_all", False):
            agent.attach(table)  # type: ignore[attr-defined]
    return agents


class TimedAgent:
    """Wraps an agent and records the seconds each decision takes: declarations (the
    expert searches them too), the kitty and every play."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.times: list[float] = []

    def act(self, view: View) -> Action:
        """The wrapped agent's action, timed."""
        t0 = time.perf_counter()
        action = self.agent.act(view)
        self.times.append(time.perf_counter() - t0)
        return action


def _finish(agents: list[Agent], views: list[View], winner: int | None = None) -> list[
    dict[str, int]
]:
    """Close the agents that hold a process (external bots: they get the `end` line with
    their seat's final view) and return each seat's failure counts ({} for the others)."""
    out: list[dict[str, int]] = []
    for agent, view in zip(agents, views, strict=True):
        inner = agent.agent if isinstance(agent, TimedAgent) else agent
        close = getattr(inner, "close", None)
        report = getattr(inner, "report", None)
        if close is not None:
            close(view, winner)
        out.append(dict(report()) if report is not None else {})
    return out


def _failures(fails: list[dict[str, int]], a_team: int) -> tuple[dict[str, int], ...]:
    """The seats' failure counts summed per side: A's (the seats of parity `a_team`),
    then B's."""
    out: tuple[dict[str, int], ...] = ({}, {})
    for s, counts in enumerate(fails):
        total = out[0 if s % 2 == a_team else 1]
        for k, n in counts.items():
            total[k] = total.get(k, 0) + n
    return out


_Outcome = TypeVar("_Outcome")


def _both_sides(
    play: Callable[[int, int, str, str, int, RuleOptions | None], _Outcome],
    index: int, seed: int, a: str, b: str, options: RuleOptions | None,
) -> tuple[_Outcome, _Outcome]:
    """The mirror: the same deal or game played with A on side 0, then on side 1."""
    return play(index, seed, a, b, 0, options), play(index, seed, a, b, 1, options)


def deal_round(seed: int, options: RuleOptions | None = None) -> Round:
    """The round a deal is played on: trump rank 2, seat 0 starts, team 0 declares (in
    friends mode, RULES §12.4: seat 0 leads, every level 2)."""
    if options is not None and options.mode == "friends":
        return Round(seed, options, trump_rank="2", starter=0,
                     levels=("2",) * options.n_players)
    return Round(seed, options, trump_rank="2", starter=0, declaring_team=0)


def play_deal(
    index: int, seed: int, a: str, b: str, a_team: int, options: RuleOptions | None = None
) -> DealOutcome:
    """Play one deal with agent kind `a` on team `a_team` and `b` on the other team."""
    rnd = deal_round(seed, options)
    agents = [TimedAgent(x) for x in _agents(a, b, a_team, seed, rnd)]
    n = rnd.options.n_players
    try:
        play_round(rnd, agents)
    finally:
        failures = _failures(_finish(list(agents), [rnd.view(s) for s in range(n)]), a_team)
    res = rnd.result
    assert res is not None
    if res.level_gains is not None:  # friends mode (§12.4): levels per seat
        levels_a = sum(g for s, g in enumerate(res.level_gains) if s % 2 == a_team)
        levels_b = sum(g for s, g in enumerate(res.level_gains) if s % 2 != a_team)
        a_won = levels_a > levels_b or (
            levels_a == levels_b and res.next_starter % 2 == a_team
        )
        a_declaring = res.starter % 2 == a_team
    else:
        gainer_team = (res.declaring_team if res.gainer == "declarers"
                       else 1 - res.declaring_team)
        a_won = gainer_team == a_team
        levels_a = res.levels_gained if a_won else 0
        levels_b = 0 if a_won else res.levels_gained
        a_declaring = res.declaring_team == a_team
    return DealOutcome(
        deal=index,
        a_declaring=a_declaring,
        a_won=a_won,
        levels_a=levels_a,
        levels_b=levels_b,
        opponents_points=res.opponents_points,
        times_a=tuple(t for s, x in enumerate(agents) if s % 2 == a_team for t in x.times),
        times_b=tuple(t for s, x in enumerate(agents) if s % 2 != a_team for t in x.times),
        failures_a=failures[0], failures_b=failures[1],
    )


def play_mirrored_deal(
    index: int, seed: int, a: str, b: str, options: RuleOptions | None = None
) -> tuple[DealOutcome, DealOutcome]:
    """The same deal twice: A as the declaring team (seats 0, 2), then as the opponents."""
    return _both_sides(play_deal, index, seed, a, b, options)


def play_game_outcome(
    index: int, seed: int, a: str, b: str, a_team: int, options: RuleOptions | None = None,
    max_rounds: int = 400,
) -> GameOutcome:
    """A whole game (RULES §9) with A on team `a_team` (in friends mode, §12.4: on the
    seats of parity `a_team`; A wins if the seat that passed A is one of them)."""
    game = Game(seed, options)
    agents = _agents(a, b, a_team, seed, game)
    try:
        play_game(game, agents, max_rounds=max_rounds)
    finally:
        failures = _failures(_finish(agents, [game.view(s) for s in range(game.options.n_players)],
                                     game.winner), a_team)
    lv = game.levels
    if game.friends_mode:
        if game.winner is None:  # a runaway game: the seat of the highest level
            a_won = max(range(len(lv)), key=lambda s: lv[s]) % 2 == a_team
        else:
            a_won = game.winner % 2 == a_team
    elif game.winner is None:
        # A runaway game (never seen in practice): the team with the higher level wins.
        a_won = lv[a_team] > lv[1 - a_team]
    else:
        a_won = game.winner == a_team
    return GameOutcome(
        game=index, a_team=a_team, a_won=a_won, rounds=len(game.results),
        failures_a=failures[0], failures_b=failures[1],
    )


def play_mirrored_game(
    index: int, seed: int, a: str, b: str, options: RuleOptions | None = None
) -> tuple[GameOutcome, GameOutcome]:
    """The same game seed twice: A as team 0, then as team 1."""
    return _both_sides(play_game_outcome, index, seed, a, b, options)


_Task = tuple[str, int, int, str, str, RuleOptions]
"""(kind "deal" or "game", index, seed, agent A, agent B, rule options)."""


def _run_task(task: _Task) -> tuple[str, int, Any]:
    """One mirrored deal or game: `(kind, index, pair of outcomes)` (picklable for pools)."""
    kind, index, seed, a, b, options = task
    if kind == "deal":
        return kind, index, play_mirrored_deal(index, seed, a, b, options)
    return kind, index, play_mirrored_game(index, seed, a, b, options)


def _execute(
    tasks: list[_Task], workers: int, ray: str | None
) -> Iterator[tuple[str, int, Any]]:
    """Run the tasks here, on a process pool, or on a Ray cluster; yield results as they end."""
    if ray is not None:  # a Ray cluster: "auto", "local" or HOST:PORT (extra [cluster])
        from ..learn.cluster import ray_map

        yield from ray_map(_run_task, tasks, ray, workers)
    elif workers <= 1 or len(tasks) <= 1:
        yield from map(_run_task, tasks)
    else:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        # Games are long: hand them out first so they do not straggle at the end.
        ordered = [t for t in tasks if t[0] == "game"] + [t for t in tasks if t[0] == "deal"]
        with ctx.Pool(workers) as pool:
            yield from pool.imap_unordered(_run_task, ordered, chunksize=1)


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
        err = table_spec_error(kind, opts)
        if err is not None:
            raise ValueError(err)
    tasks: list[_Task] = [
        ("deal", i, deal_seed(seed, i), a, b, opts) for i in range(deals)
    ] + [("game", i, deal_seed(seed, i, "game"), a, b, opts) for i in range(games)]
    deal_res: dict[int, tuple[DealOutcome, DealOutcome]] = {}
    game_res: dict[int, tuple[GameOutcome, GameOutcome]] = {}
    start = time.perf_counter()

    for kind, index, value in _execute(tasks, workers, ray):
        (deal_res if kind == "deal" else game_res)[index] = value
        if progress is not None:
            progress(1)
    return PairingResult(
        a=a,
        b=b,
        deals=[deal_res[i] for i in range(deals)],
        games=[game_res[i] for i in range(games)],
        seed=seed,
        options=opts.to_json(),
        seconds=time.perf_counter() - start,
    )
