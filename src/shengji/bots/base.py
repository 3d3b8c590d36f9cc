"""The agent factory and the agent-spec syntax; the `Agent` protocol lives with the driver.

An agent spec names a kind and, optionally, its settings: `heuristic`,
`expert`, `expert:ms=300`, `expert:iters=200,worlds=24`. Specs are parsed here
only (`parse_agent_spec`), wherever agents are named (`shengji play`,
`shengji arena`, web tables, `make_agent`).

The expert comes at named levels, its search budget per decision (`LEVELS`):
`fast` (50 ms), `expert` (250 ms) and `master` (1 s); each takes the expert's
settings (`master:worlds=40`; `workers=2` searches each decision's worlds in two
processes, the default one; `alloc=1` spends the budget where it matters, 0 evenly).
Web tables play the levels by rollout count instead (`LEVEL_ITERS`,
`make_agent(counted=True)`): the same strength however busy the machine, under a
wall-clock safety cap. `omniscient` is a research bot that sees every hand
(bots/omniscient.py): the arena and the benchmarks only, refused at tables
(`table_spec_error`) and labelled as cheating wherever it prints (`agent_label`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..agent import Agent

if TYPE_CHECKING:
    from ..options import RuleOptions

__all__ = [
    "AGENT_KINDS", "ANY_TABLE_KINDS", "LEVELS", "LEVEL_ITERS", "RESEARCH_KINDS", "Agent",
    "agent_label", "agent_spec_error", "is_agent_kind", "make_agent", "parse_agent_spec",
    "level_iters", "table_kind_error", "table_spec_error",
]

#: the milliseconds per decision of the expert's named levels (no `ms`/`iters` given)
LEVELS: dict[str, int] = {"fast": 50, "expert": 250, "master": 1000}

#: the same levels as rollout counts per decision (the honest budget of web tables,
#: issue 35): LEVELS' milliseconds over the per-rollout CPU of the compiled engine, as
#: installed, measured by `python bench/search.py --quick` (2026-12-03: 0.61 ms a
#: rollout, world sampling included; 250 ms -> 410), rounded down. The pure-Python
#: engine (SHENGJI_PURE=1) takes about 3x as long for the same count (1.82 ms a rollout).
LEVEL_ITERS: dict[str, int] = {"fast": 80, "expert": 400, "master": 1600}

#: whether a web table's level stops a search once its choice is settled (`settle=1`):
#: the expert and master, where it was measured (bench/results/settle/: the same move as
#: the whole count in 99% of decisions at 400 and 1,200 rollouts, for 64% and 52% of the
#: rollouts); not fast, whose worlds end before it could stop
LEVEL_SETTLE: dict[str, int] = {"fast": 0, "expert": 1, "master": 1}

#: the kinds a player may seat at a table (web "add bot", `shengji play`)
AGENT_KINDS: tuple[str, ...] = ("random", "heuristic", *LEVELS)

#: the kinds that play every table of RULES §12 (any seat count, both modes: the expert's
#: world sampler deals N hands, issue 33); the others (the learned and research bots,
#: whose observations and training are four-seat) play the four-player teams game only
#: (`table_kind_error`)
ANY_TABLE_KINDS: tuple[str, ...] = ("random", "heuristic", *LEVELS)

#: the most processes one searching bot may use (`expert:workers=N`; the default is 1)
MAX_WORKERS = 8

#: research kinds that break RULES §11 (see every hand): arena and benchmarks only
RESEARCH_KINDS: tuple[str, ...] = ("omniscient",)

_EXPERT_SETTINGS = ("ms", "iters", "worlds", "candidates", "infer", "back", "endgame",
                    "workers", "alloc", "throws", "passes", "settle")
#: settings that are switches: 0 (off) or 1 (on), as `expert:alloc=1`
_SWITCHES = ("alloc", "throws", "passes", "settle")
#: settings where 0 is meaningful (`back=0`: the inference reads the current trick only)
_COUNTS_FROM_ZERO = ("back",)
# Settings each kind accepts (all integers).
_SETTINGS: dict[str, tuple[str, ...]] = {
    "random": (),
    "heuristic": (),
    **{name: _EXPERT_SETTINGS for name in (*LEVELS, *RESEARCH_KINDS)},
}


def parse_agent_spec(spec: str) -> tuple[str, dict[str, int]]:
    """Split `kind:key=value,...` into the kind and its integer settings.

    Raises `ValueError` naming the problem for an unknown kind, an unknown
    setting or a value that is not a positive integer (a switch: 0 or 1; `back`: from 0).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("agent spec: give a kind such as 'heuristic' or 'expert:ms=300'")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    if kind not in _SETTINGS:
        raise ValueError(
            f"unknown agent kind {kind!r}; choose one of "
            f"{', '.join((*AGENT_KINDS, *RESEARCH_KINDS))}, dmc:CHECKPOINT or exec:COMMAND"
        )
    settings: dict[str, int] = {}
    for item in (x.strip() for x in rest.split(",")) if rest.strip() else ():
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in _SETTINGS[kind]:
            allowed = ", ".join(_SETTINGS[kind]) or "none"
            raise ValueError(f"agent spec {spec!r}: {kind} has no setting {key!r} (settings: "
                             f"{allowed})")
        try:
            n: int | None = int(value)
        except ValueError:
            n = None
        if key in _SWITCHES:
            if not eq or value.strip() not in ("0", "1"):
                raise ValueError(f"agent spec {spec!r}: {key} is a switch: {key}=0 or {key}=1")
        elif key in _COUNTS_FROM_ZERO:
            if not eq or n is None or n < 0:
                raise ValueError(f"agent spec {spec!r}: {key} takes an integer from 0, as "
                                 f"{key}=2")
        elif not eq or n is None or n <= 0:
            raise ValueError(f"agent spec {spec!r}: {key} takes a positive integer, as {key}=300")
        assert n is not None
        settings[key] = n
    if settings.get("workers", 1) > MAX_WORKERS:
        raise ValueError(f"agent spec {spec!r}: workers={settings['workers']}: at most "
                         f"{MAX_WORKERS} processes search one decision")
    return kind, settings


def table_spec_error(spec: str) -> str | None:
    """Why `spec` may not play at a table with people (web tables, `shengji play`), or None:
    an invalid spec, or a research kind that sees every hand (RULES §11)."""
    err = agent_spec_error(spec)
    if err is not None:
        return err
    kind = spec.strip().partition(":")[0].strip()
    if kind in RESEARCH_KINDS:
        return (f"{kind} sees every hand (cheating, RULES §11): it plays only in the arena "
                "and the benchmarks, never at a table")
    return None


def table_kind_error(spec: str, options: RuleOptions) -> str | None:
    """Why agent `spec` cannot play a table of `options` (RULES §12), or None. Every bot
    plays the four-player teams game; at other tables only `ANY_TABLE_KINDS` do (the
    learned bots read four seats), refused rather than played wrongly."""
    if options.n_players == 4 and options.mode == "teams":
        return None
    kind = spec.split(":", 1)[0].strip() if isinstance(spec, str) else ""
    if kind in ANY_TABLE_KINDS:
        return None
    return (
        f"RULES §12: the {kind!r} bot plays only the four-player teams game; at a table of "
        f"{options.n_players} players in {options.mode} mode only "
        f"{' or '.join(repr(k) for k in ANY_TABLE_KINDS)} play"
    )


def level_iters(level: str, options: RuleOptions | None = None) -> int:
    """The rollouts per decision of a named level (`LEVEL_ITERS`) at a table of `options`:
    at four seats as listed; at a larger table (RULES §12) a rollout plays more cards
    among more seats (every seat's knowledge learns every play: 3.4 times the four-player
    rollout's CPU at six seats and three decks, 18 times at ten seats and five), so the
    count shrinks by (108 / the deck's cards)^2.5, which keeps the decision time within
    about twice the four-player one (`python bench/search_tables.py`)."""
    iters = LEVEL_ITERS.get(level, LEVEL_ITERS["expert"])
    if options is None or options.n_decks == 2:
        return iters
    share: float = (108 / (54 * options.n_decks)) ** 2.5
    return max(8, round(iters * share))


def agent_label(spec: str) -> str:
    """The spec as printed: a research kind carries "(cheating: sees all hands)"."""
    kind = spec.strip().partition(":")[0].strip() if isinstance(spec, str) else ""
    if kind in RESEARCH_KINDS:
        from .omniscient import CHEAT_LABEL

        return f"{spec} {CHEAT_LABEL}"
    return spec


def agent_spec_error(spec: str) -> str | None:
    """Why `spec` is not a valid agent spec, or None (`dmc:CHECKPOINT` names a trained
    checkpoint of `shengji.learn`; `exec:[ms=N:]COMMAND` an external bot)."""
    if isinstance(spec, str) and spec.startswith("dmc:") and len(spec) > 4:
        return None
    if isinstance(spec, str) and spec.startswith("exec:"):
        from .external import parse_exec_spec

        try:
            parse_exec_spec(spec)
        except ValueError as e:
            return str(e)
        return None
    try:
        parse_agent_spec(spec)
    except ValueError as e:
        return str(e)
    return None


def make_agent(kind: str, seed: int, *, counted: bool = False,
               cap_ms: int | None = None, options: RuleOptions | None = None) -> Agent:
    """An agent for the spec `kind` ("random", "heuristic", "expert[:ms=N|iters=N,...]",
    the levels "fast" and "master", the arena's "omniscient"), deterministic given `seed`
    (the expert only with an iteration budget); `dmc:PATH` is a trained checkpoint
    (`shengji.learn`, extra `[rl]`); `exec:[ms=N:]COMMAND` an external bot speaking
    docs/BOT_PROTOCOL.md (`shengji.bots.external`).

    `counted`: a named level given no `ms`/`iters` searches its `LEVEL_ITERS` rollouts
    rather than its `LEVELS` milliseconds (web tables); `cap_ms`: the expert's wall-clock
    safety cap (`ExpertAgent.cap_ms`: a search it cuts short is degraded); `options`: the
    table's rules, refused with `ValueError` naming RULES §12 for a kind that cannot play
    it (`table_kind_error`)."""
    if options is not None:
        err = table_kind_error(kind, options)
        if err:
            raise ValueError(err)
    if kind.startswith("dmc:") and len(kind) > 4:
        from ..learn.agent import DMCAgent

        return DMCAgent(kind[4:], seed)
    if kind.startswith("exec:"):  # an external bot (docs/BOT_PROTOCOL.md)
        from .external import ExternalAgent, parse_exec_spec

        command, ms = parse_exec_spec(kind)
        return ExternalAgent(command, seed, deadline_ms=ms)
    name, settings = parse_agent_spec(kind)
    if name == "random":
        from .random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "heuristic":
        from .heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if "ms" not in settings and "iters" not in settings:
        if counted:
            settings["iters"] = level_iters(name, options)
            # stop once the choice is settled, where the level does (`LEVEL_SETTLE`)
            settings.setdefault("settle", LEVEL_SETTLE.get(name, 0))
        else:
            settings["ms"] = LEVELS.get(name, LEVELS["expert"])
    extra: dict[str, int] = {} if cap_ms is None else {"cap_ms": cap_ms}
    if name in RESEARCH_KINDS:
        from .omniscient import OmniscientAgent

        return OmniscientAgent(seed, **settings, **extra)
    from .expert import ExpertAgent

    return ExpertAgent(seed, **settings, **extra)


def is_agent_kind(kind: str) -> bool:
    """Whether `make_agent` knows this spec: a kind of AGENT_KINDS (with valid settings)
    or `dmc:CHECKPOINT` or `exec:COMMAND`."""
    return agent_spec_error(kind) is None
