"""The `shengji` command (typer + rich)."""

from __future__ import annotations

import dataclasses
import inspect
import random
import sys
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from . import events as ev
from .cards import Card
from .game import Game
from .narrate import Narrator
from .options import ALL_OPTION_INFO, PRESETS, RuleOptions

app = typer.Typer(help="Tractor (拖拉机, Shengji): play, watch and measure.", no_args_is_help=True)
console = Console()

SEAT_NAMES = ("South", "East", "North", "West")

OPTION_HELP = (
    "Rule option name=value (RULES §10), repeatable; applied on top of --preset. "
    + "; ".join(f"{name}: {info.takes_text}" for name, info in ALL_OPTION_INFO.items())
    + ". See docs/RULES.md."
)
PRESET_HELP = (
    f"Named rule set ({', '.join(PRESETS)}): seed is the rules as written, common_online "
    "what popular online Tractor sites play."
)


def version_text() -> str:
    """`shengji X.Y.Z (engine: compiled with mypyc | pure Python)` (issue 9)."""
    from . import __version__
    from ._build import engine_build

    build = engine_build()
    what = {"compiled": "compiled with mypyc", "pure": "pure Python"}.get(build, build)
    return f"shengji {__version__} (engine: {what}; Python {sys.version.split()[0]})"


def _version(value: bool) -> None:
    if value:
        console.print(version_text(), highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True,
        help="Print the version and which engine build is loaded (compiled or pure Python).",
    ),
) -> None:
    """Tractor (拖拉机, Shengji): play, watch and measure."""


@app.command()
def demo(
    seed: int = typer.Option(1, help="Shuffle seed: the same seed gives the same game."),
    rounds: int = typer.Option(0, help="Stop after this many rounds (0: play the whole game)."),
    option: list[str] = typer.Option([], "--option", help=OPTION_HELP),
    preset: str = typer.Option("seed", "--preset", help=PRESET_HELP),
) -> None:
    """Play one seeded game between random bots and print a readable log of it."""
    from .tui.render import options_text

    game = Game(seed=seed, options=_options(option, preset))
    rng = random.Random(seed)
    console.print(f"[bold]Tractor demo[/] seed {seed}, preset {preset}, rules: "
                  f"{options_text(game.options)}", highlight=False)
    log = _DemoLog().narrate
    log(game.round_started())
    while not game.is_over and (rounds == 0 or len(game.results) < rounds):
        for event in game.apply(game.random_action(rng)):
            if not isinstance(event, ev.RoundStarted) or rounds == 0 or len(game.results) < rounds:
                log(event)


class _DemoLog(Narrator):
    """The demo's log, written from events only (the demo shows every hand: all is public)."""

    def on_round_started(self, e: ev.RoundStarted) -> None:
        console.rule(
            f"Round {e.round_no + 1} — levels {e.levels[0]}/{e.levels[1]}, "
            f"trump rank {e.trump_rank}"
        )

    def on_redealt(self, e: ev.Redealt) -> None:
        console.print("[yellow]Nobody declared: redeal (RULES §3.5)[/]")

    def on_declared(self, e: ev.Declared) -> None:
        console.print(f"  {SEAT_NAMES[e.seat]} declares {_cards(e.cards)}")

    def on_kitty_flipped(self, e: ev.KittyFlipped) -> None:
        console.print(f"  kitty turned up: {_cards(e.cards)}")

    def on_trump_fixed(self, e: ev.TrumpFixed) -> None:
        console.print(
            f"  trump: rank {e.rank or '-'} suit {e.suit or 'none (jokers)'}; "
            f"starter {SEAT_NAMES[e.starter]}"
        )

    def on_kitty_buried(self, e: ev.KittyBuried) -> None:
        assert e.cards is not None
        console.print(f"  {SEAT_NAMES[e.seat]} buries {_cards(e.cards)}")

    def on_throw_failed(self, e: ev.ThrowFailed) -> None:
        console.print(
            f"  [red]{SEAT_NAMES[e.seat]}'s throw {_cards(e.attempted)} fails[/]: "
            f"{SEAT_NAMES[e.blocker]} shows {_cards(e.shown)}; "
            f"{_cards(e.forced)} is led instead (penalty {abs(e.penalty)})"
        )

    def on_trick_won(self, e: ev.TrickWon) -> None:
        from .tui.render import trick_points_note

        plays = ", ".join(f"{SEAT_NAMES[s][0]} {_cards(c)}" for s, c in self.close_trick(e).plays)
        note = trick_points_note(e.winner, e.points, self.declaring_team, e.opponents_points)
        console.print(
            f"  trick {e.trick + 1:2}: {plays} → {SEAT_NAMES[e.winner]}"
            + (f" ({note})" if note else ""), highlight=False,
        )

    def on_round_over(self, e: ev.RoundOver) -> None:
        r = e.result
        console.print(
            f"  [bold]opponents' points {r.opponents_points}[/] (kitty {_cards(r.kitty)}: "
            f"+{r.kitty_points} at ×{r.multiplier}); "
            f"{r.gainer} +{r.levels_gained}; levels {r.levels_after[0]}/{r.levels_after[1]}; "
            f"next starter {SEAT_NAMES[r.next_starter]}"
        )

    def on_game_over(self, e: ev.GameOver) -> None:
        console.print(
            f"[bold green]Team {e.winner} (seats {e.winner} and {e.winner + 2}) wins, "
            f"levels {e.levels[0]}/{e.levels[1]}[/]"
        )


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(c.pretty for c in cards)


# ---------------------------------------------------------------- play, replay, arena
# (the terminal client lives in shengji.tui, the arena in shengji.arena; imported
# lazily so that `shengji --help` stays fast)


def _options(
    items: list[str], preset: str = "seed", *, players: int | None = None,
    mode: str | None = None, decks: int | None = None,
) -> RuleOptions:
    """The rule options of `--preset` with each `--option name=value` on top (RULES §10),
    then the table of `--players`, `--mode` and `--decks` (RULES §12) where given."""
    from .errors import IllegalAction

    try:
        base = RuleOptions.preset(preset)
    except IllegalAction as e:
        raise typer.BadParameter(str(e), param_hint="--preset") from None
    table = [f"{name}={value}" for name, value in
             (("players", players), ("mode", mode), ("decks", decks)) if value is not None]
    try:
        return RuleOptions.parse([*items, *table], base)
    except IllegalAction as e:
        hint = "--option" if e.field not in ("players", "mode", "decks") else f"--{e.field}"
        raise typer.BadParameter(str(e), param_hint=hint) from None


PLAYERS_HELP = "Players at the table, 4-10 (RULES §12; default 4)."
MODE_HELP = ("teams (fixed teams of alternate seats, an even table) or friends (找朋友: the "
             "leader calls friends by card each round, a level per player; RULES §12.4).")
DECKS_HELP = "Decks, 2-5 (RULES §12; default players // 2, at least 2)."


def _table_bot(spec: str | None, options: RuleOptions, flag: str) -> str:
    """A bot spec for this table: the default is the heuristic, which plays every table
    (RULES §12), and the random bot where it could not; a spec the table cannot take
    (a learned bot at a table other than four players in teams) is refused naming the
    rule."""
    from .arena.run import table_spec_error

    if spec is None:
        return "heuristic" if table_spec_error("heuristic", options) is None else "random"
    err = table_spec_error(spec, options)
    if err:
        raise typer.BadParameter(err, param_hint=flag)
    return spec


def split_agent_specs(text: str) -> list[str]:
    """Split `heuristic,expert:ms=300,worlds=20` into specs: a piece with `=` and no `:`
    is one more setting of the spec before it."""
    out: list[str] = []
    for piece in (x.strip() for x in text.split(",")):
        if not piece:
            continue
        if out and "=" in piece and ":" not in piece:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def _check_ray(ray: str | None) -> None:
    """Exit 2 with one line saying what to do unless `--ray`'s cluster answers (#34):
    checked in seconds, before any work, instead of Ray's 30 s wait and traceback."""
    if ray is None:
        return
    from .learn.cluster import ClusterError, check_cluster

    try:
        import ray as _ray  # noqa: F401 - only whether it is installed
    except ImportError:
        console.print("[red]shengji: --ray needs Ray: pip install 'shengji[cluster]'[/]",
                      highlight=False)
        raise typer.Exit(2) from None
    try:
        check_cluster(ray)
    except ClusterError as e:
        console.print(f"shengji: {e}", style="red", markup=False, highlight=False)
        raise typer.Exit(2) from None


def _kind(value: str) -> str:
    """Check an agent spec such as `heuristic` or `expert:ms=300` (see `shengji.bots`)."""
    from .bots import agent_spec_error

    err = agent_spec_error(value)
    if err:
        raise typer.BadParameter(err)
    return value


def _opt_table_kind(value: str | None) -> str | None:
    """`_table_kind` for an option that may be left out (None: the table's default bot)."""
    return None if value is None else _table_kind(value)


def _table_kind(value: str) -> str:
    """Check a bot spec for a table with a person at it: research bots that see every hand
    (`omniscient`) are refused (RULES §11)."""
    from .bots import table_spec_error

    err = table_spec_error(value)
    if err:
        raise typer.BadParameter(err)
    return value


@app.command()
def play(
    partner: Annotated[
        str | None, typer.Option(callback=_opt_table_kind, help="Your partner's bot (North): "
                                 "random, heuristic, fast (50 ms), expert (250 ms), master "
                                 "(1 s) or expert:ms=300; all of them play every table "
                                 "(RULES §12). Default heuristic.")
    ] = None,
    opponents: Annotated[
        str | None, typer.Option(callback=_opt_table_kind, help="The opponents' bots (East "
                                 "and West; in friends mode every other seat).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Shuffle seed (default: a random one).")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help=OPTION_HELP)] = None,
    preset: Annotated[str, typer.Option("--preset", help=PRESET_HELP)] = "seed",
    save: Annotated[Path | None, typer.Option(help="Save the game record here (JSON).")] = None,
    players: Annotated[int | None, typer.Option(help=PLAYERS_HELP)] = None,
    mode: Annotated[str | None, typer.Option(help=MODE_HELP)] = None,
    decks: Annotated[int | None, typer.Option(help=DECKS_HELP)] = None,
) -> None:
    """Play a whole game in the terminal: you are South (seat 0), bots hold the other seats."""
    from .tui import play_terminal

    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    options = _options(option or [], preset, players=players, mode=mode, decks=decks)
    code = play_terminal(
        seed=seed, options=options, partner=_table_bot(partner, options, "--partner"),
        opponents=_table_bot(opponents, options, "--opponents"),
        save=save,
    )
    raise typer.Exit(code)


@app.command("replay")
def replay_cmd(
    path: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A saved game (JSON).")
    ],
    all_: Annotated[
        bool, typer.Option("--all", help="Print everything without pausing.")
    ] = False,
) -> None:
    """Step through a saved game trick by trick (Enter for the next trick)."""
    from .errors import IllegalAction
    from .tui import replay_terminal

    try:
        code = replay_terminal(path, all_=all_)
    except IllegalAction as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    raise typer.Exit(code)


@app.command("analyse")
def analyse_cmd(
    path: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A saved game (JSON).")
    ],
    seat: Annotated[
        int, typer.Option(min=0, max=9, help="The seat reviewed (0 to the players - 1, "
                          "RULES §12.1).")
    ] = 0,
    round_: Annotated[
        int | None,
        typer.Option("--round", min=1, help="The round reviewed (1-based; default: every round)."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the review as JSON here.")
    ] = None,
    worlds: Annotated[
        int, typer.Option(min=1, help="Sampled worlds per decision (knowledge reading).")
    ] = 8,
    rollouts: Annotated[
        int, typer.Option(min=1, help="Rollouts per candidate in the true deal (hindsight).")
    ] = 4,
    endgame: Annotated[
        int, typer.Option(min=0, max=6, help="Hindsight solves the tricks left exactly once "
                          "every hand holds at most this many cards (0: never).")
    ] = 3,
    seed: Annotated[int, typer.Option(help="Seed of the search (same seed, same review).")] = 0,
) -> None:
    """Review a seat's bury and plays in a saved game: each decision's class, loss, better
    play and reason, with the seat's knowledge and with hindsight; then the accuracy."""
    import json

    from .analysis import Budget, accuracy, review_lines, review_round
    from .errors import IllegalAction
    from .record import GameRecord

    budget = Budget(worlds=worlds, rollouts=rollouts, endgame=endgame)
    try:
        record = GameRecord.load(path)
        n_rounds = len(record.digests) + 1
        rounds = [round_ - 1] if round_ is not None else list(range(n_rounds))
        reviews = []
        for r in rounds:
            if round_ is None and r == n_rounds - 1:
                try:
                    review = review_round(record, r, seat, budget, seed=seed)
                except IllegalAction:
                    break  # the game ended with its last finished round
            else:
                review = review_round(record, r, seat, budget, seed=seed)
            if round_ is None and not review.finished and not review.decisions:
                break  # the record ends before this round's play
            reviews.append(review)
            for line in review_lines(review):
                console.print(line, highlight=False, markup=False, soft_wrap=True)
    except IllegalAction as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(1) from None
    if len(reviews) > 1:
        acc = accuracy([d.knowledge.loss_points for rv in reviews for d in rv.decisions])
        console.print("Game accuracy: " + ("-" if acc is None else f"{acc:.1f}"),
                      highlight=False)
    if json_out is not None:
        json_out.write_text(json.dumps({"seat": seat, "rounds": [rv.to_json() for rv in reviews]},
                                       indent=1), encoding="utf-8")


@app.command()
def arena(
    a: Annotated[str, typer.Option("--a", callback=_kind, help="Agent A.")] = "heuristic",
    b: Annotated[
        list[str] | None,
        typer.Option("--b", help="Agent B (repeatable or comma separated; one pairing each)."),
    ] = None,
    deals: Annotated[
        int, typer.Option(min=0, help="Mirrored deals per pairing (each played twice).")
    ] = 200,
    games: Annotated[
        int, typer.Option(min=0, help="Also play this many mirrored full games.")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Arena seed: every deal derives from it.")] = 0,
    workers: Annotated[int, typer.Option(min=0, help="Processes (0: one per CPU).")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", help=OPTION_HELP)] = None,
    preset: Annotated[str, typer.Option("--preset", help=PRESET_HELP)] = "seed",
    plot: Annotated[
        Path | None,
        typer.Option(help="Write a plot (PNG) of the results here (extra [plot]: matplotlib)."),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the results as JSON here.")
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(help="Spread deals over Ray: local (this machine alone), auto (the "
                     "running cluster, see `ray start --head`) or HOST:PORT."),
    ] = None,
    players: Annotated[int | None, typer.Option(help=PLAYERS_HELP)] = None,
    mode: Annotated[str | None, typer.Option(help=MODE_HELP)] = None,
    decks: Annotated[int | None, typer.Option(help=DECKS_HELP)] = None,
) -> None:
    """Bots against bots on mirrored duplicate deals: win rates and levels with 95% CIs.

    At a larger table (RULES §12) A holds the seats of one parity and B the others; the
    mirror turns the pattern by one seat (in friends mode: A on the even seats, then on
    the odd ones), so every seat's hand is played by both."""
    import os

    from .arena import arena_main

    bs = [_kind(x) for item in (b or ["random"]) for x in split_agent_specs(item)]
    options = _options(option or [], preset, players=players, mode=mode, decks=decks)
    _table_bot(a, options, "--a")
    for x in bs:
        _table_bot(x, options, "--b")
    if deals == 0 and games == 0:
        raise typer.BadParameter("nothing to play: give --deals and/or --games")
    if plot is not None:
        from .arena.plot import PlotUnavailableError, require_matplotlib

        try:
            require_matplotlib()
        except PlotUnavailableError as e:
            raise typer.BadParameter(str(e), param_hint="--plot") from None
    _check_ray(ray)
    arena_main(
        a, bs, deals=deals, games=games, seed=seed, workers=workers or (os.cpu_count() or 1),
        options=options, plot=plot, json_path=json_path, console=console,
        ray=ray,
    )

@app.command("bot-connect")
def bot_connect(
    url: Annotated[str, typer.Argument(help="The table's page (http://HOST/t/ID) or ws:// URL.")],
    token: Annotated[str, typer.Option(help="The bot token the host made (bot_link).")],
    exec_: Annotated[
        str, typer.Option("--exec", help="The bot's command (docs/BOT_PROTOCOL.md).")
    ],
    ms: Annotated[int, typer.Option(min=1, help="Milliseconds per decision.")] = 1000,
    rounds: Annotated[
        int, typer.Option(min=0, help="Leave after this many rounds (0: play to the end).")
    ] = 0,
) -> None:
    """Play a web table's seat with an external bot (docs/BOT_PROTOCOL.md)."""
    import logging

    from .bots.bridge import play_web_seat
    from .bots.external import ExternalAgent

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    agent = ExternalAgent(exec_, 0, deadline_ms=ms)
    state = play_web_seat(url, token, agent, rounds=rounds or None)
    counts = ", ".join(f"{k} {n}" for k, n in agent.report().items())
    console.print(f"table {state['table']['status']}; failures: {counts}")


RULES_LANGS = ("en", "zh", "vi", "th", "ko", "sq", "mn")
# RULES §8.2: opponents' points -> (message, levels)
_LEVEL_ROWS = (
    ("low", "levels_decl", 3), ("5 – 35", "levels_decl", 2), ("40 – 75", "levels_decl", 1),
    ("80 – 115", "levels_swap", 0), ("120 – 155", "levels_opp", 1),
    ("160 – 195", "levels_opp", 2), ("200 – 235", "levels_opp", 3),
    ("high", "levels_opp_more", 4),
)


def _rules_text(lang: str) -> dict[str, Any]:
    """The players' rules (the web client's "How to play" text) in one language."""
    import json

    path = Path(__file__).parent / "server" / "static" / "i18n" / "rules" / f"{lang}.json"
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def _rules_lang(value: str | None) -> str:
    if value is None:
        import os

        env = (os.environ.get("LC_ALL") or os.environ.get("LANG") or "en").lower()[:2]
        return env if env in RULES_LANGS else "en"
    if value not in RULES_LANGS:
        raise typer.BadParameter(f"{value!r}: one of {', '.join(RULES_LANGS)}")
    return value


@app.command()
def rules(
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang", callback=_rules_lang,
            help=f"Language: {', '.join(RULES_LANGS)} (default: from $LANG, else en).",
        ),
    ] = None,
) -> None:
    """Print how to play, for players (the full rulebook is docs/RULES.md)."""
    from rich.markup import escape
    from rich.padding import Padding
    from rich.table import Table

    from .cards import parse_cards

    text = _rules_text(lang or "en")
    console.print(f"[bold underline]{escape(text['title'])}[/]\n")
    console.print(escape(text["intro"]) + "\n")
    for sec in text["sections"]:
        console.print(f"[bold]§{sec['id']} {escape(sec['title'])}[/]")
        for para in sec.get("p", []):
            console.print(Padding(escape(para), (0, 0, 0, 2)))
        for ex in sec.get("ex", []):
            cards = " ".join(c.pretty for c in parse_cards(ex["cards"]))
            console.print(Padding(f"[bold]{escape(cards)}[/]  {escape(ex['text'])}", (0, 0, 0, 4)))
        if sec.get("table") == "levels":
            table = Table(text["levels_points"], text["levels_result"], box=None, padding=(0, 2))
            for pts, key, n in _LEVEL_ROWS:
                shown = {"low": text["levels_low"], "high": text["levels_high"]}.get(pts, pts)
                table.add_row(escape(shown), escape(text[key].replace("{n}", str(n))))
            console.print(table)
        for para in sec.get("after", []):
            console.print(Padding(escape(para), (0, 0, 0, 2)))
        console.print()
    console.print(f"[dim]{escape(text['full'])}[/]")


def serve(check: bool = False, **settings: Any) -> None:
    """Start the web game: open the printed address, create a table, play."""
    import logging

    from .server import ServerConfig, default_db_url, run
    from .server.doctor import check_database
    from .server.schema import server_table_defaults
    from .server.storage import StoreError, preflight

    if check:
        ok, lines = check_database(settings["db"] or default_db_url())
        console.print("\n".join(lines), markup=False, highlight=False)
        raise typer.Exit(0 if ok else 1)
    try:
        config = ServerConfig(**settings)
        server_table_defaults(config)  # a timing out of range: refused here
        url = config.db or default_db_url()
        config = dataclasses.replace(config, db=url)  # every worker: the same file
        preflight(url)
    except (StoreError, ValueError) as exc:
        _serve_error(exc)
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    url_host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    console.print(
        f"[bold]shengji[/] web game: open [link]http://{url_host}:{config.port}/[/link] in "
        f"your browser (database: {url})"
    )
    try:
        if config.workers > 1:
            from .server.workers import serve_workers

            serve_workers(config)
        else:
            run(config)
    except ValueError as exc:
        _serve_error(exc)


def _serve_error(exc: Exception) -> typing.NoReturn:
    """A refused setting or database: its message on stderr, exit status 2."""
    print(f"shengji: {exc}", file=sys.stderr)
    raise typer.Exit(2) from None


def _serve_options() -> None:
    """Give `serve` its options: `--check`, then one per `ServerConfig` field
    (`server.config.cli_options`), and register it."""
    from .server.config import cli_options

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("check", kw, annotation=bool, default=typer.Option(
        False, "--check", help="Check the database (integrity, every table replays) and exit."))]
    for o in cli_options():
        params.append(inspect.Parameter(o.field, kw, annotation=o.type, default=typer.Option(
            o.default, o.flag, help=o.help, hidden=o.hidden)))
    serve.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    serve.__annotations__ = {p.name: p.annotation for p in params}  # typer reads both
    app.command()(serve)


_serve_options()


@app.command("cluster-demo")
def cluster_demo(
    workers: int = typer.Option(2, help="Worker processes."),
    port: int = typer.Option(8000, help="The port they share."),
) -> None:
    """A cluster on this machine: a throwaway PostgreSQL and Redis, and N workers on one
    port (stop with Ctrl-C; everything is removed). Try `kill -9` on a worker."""
    from .server import ServerConfig
    from .server.localcluster import ServiceError, local_services
    from .server.workers import serve_workers

    try:
        with local_services() as (db, redis):
            console.print(f"[bold]shengji[/] cluster: {workers} workers on "
                          f"http://127.0.0.1:{port}/ (database {db}, redis {redis})",
                          highlight=False)
            serve_workers(ServerConfig(host="127.0.0.1", port=port, db=db, redis_url=redis,
                                       workers=workers))
    except ServiceError as exc:
        console.print(f"[red]shengji: {exc}[/]", highlight=False)
        raise typer.Exit(2) from None


@app.command()
def doctor(
    db: str = typer.Option("", help="Database URL (default: the SQLite file `serve` uses)."),
) -> None:
    """Check the server's database: file integrity and that every open table replays."""
    from .server.doctor import check_database

    ok, lines = check_database(db or None)
    console.print("\n".join(lines), markup=False, highlight=False)
    raise typer.Exit(0 if ok else 1)


@app.command()
def train(
    minutes: Annotated[
        float, typer.Option(min=0.05, help="Wall-clock training time (with --deals: at most).")
    ] = 60.0,
    deals: Annotated[
        int, typer.Option(min=0, help="Stop after this many deals (0: on --minutes only); "
                          "with --workers 1 and a --seed, the same run every time.")
    ] = 0,
    out: Annotated[Path, typer.Option(help="Checkpoint file to write.")] = Path("ckpt.pt"),
    seed: Annotated[int, typer.Option(help="Training seed.")] = 0,
    workers: Annotated[int, typer.Option(min=0, help="Actors (0: one per CPU but one).")] = 0,
    ray: Annotated[
        str | None,
        typer.Option(help="Run the actors on Ray (extra [cluster]): local (this machine "
                     "alone), auto (the running cluster, see `ray start --head`) or HOST:PORT."),
    ] = None,
    snapshots: Annotated[
        Path | None, typer.Option(help="Also keep a checkpoint every --save-minutes here.")
    ] = None,
    save_minutes: Annotated[float, typer.Option(min=0.1, help="Checkpoint interval.")] = 2.0,
    device: Annotated[str, typer.Option(help="Learner device: auto, cpu, cuda.")] = "auto",
    init: Annotated[
        Path | None, typer.Option(help="Continue from this checkpoint: weights, optimiser "
                                  "state, deal/row/step counters.", exists=True)
    ] = None,
    imitate: Annotated[
        int, typer.Option(min=0, help="Warm start: deals of imitating the --teacher first.")
    ] = 0,
    teacher: Annotated[
        str, typer.Option(help="Whom the warm start imitates: heuristic, or the expert at a "
                          "rollout budget (expert:iters=200); played in --workers processes.")
    ] = "heuristic",
    lr: Annotated[float, typer.Option(min=0.0, help="Adam learning rate.")] = 3e-4,
    imitate_lr: Annotated[
        float | None, typer.Option(min=0.0, help="The warm start's rate (default: --lr).")
    ] = None,
    batch: Annotated[int, typer.Option(min=1, help="Self-play minibatch (rows).")] = 256,
    imitate_batch: Annotated[
        int, typer.Option(min=1, help="Imitation minibatch (decisions).")
    ] = 32,
    imitate_chunk: Annotated[
        int, typer.Option(min=1, help="Imitation deals played per learning round.")
    ] = 16,
    teach_z: Annotated[
        float | None, typer.Option(help="With an expert --teacher: its play is the label only "
                                   "when it beat its heuristic candidate by this many standard "
                                   "errors (default: its own choice as made).")
    ] = None,
    teach_values: Annotated[
        float, typer.Option(min=0.0, help="With an expert --teacher: weight of regressing the "
                            "candidates' score gaps on the advantages its search found.")
    ] = 0.0,
    imitate_cache: Annotated[
        Path | None, typer.Option(help="Keep each imitation chunk's data in this folder and "
                                  "read it back on the next run (the same data, the same "
                                  "checkpoint).")
    ] = None,
    epsilon: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Exploration: random candidate rate.")
    ] = 0.1,
    hidden: Annotated[str, typer.Option(help="Hidden layer sizes, comma-separated.")] = (
        "256,256,128"
    ),
    reuse: Annotated[float, typer.Option(min=0.0, help="SGD rows per new row.")] = 2.0,
    buffer: Annotated[int, typer.Option(min=1, help="Replay buffer rows.")] = 60_000,
    reward_points: Annotated[
        float, typer.Option(help="Return shaping: weight of the point margin.")
    ] = 0.5,
    vs_bots: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of deals against --mix opponents.")
    ] = 0.5,
    mix: Annotated[
        str, typer.Option(help="Opponents of --vs-bots deals, KIND=WEIGHT (heuristic, past, "
                          "random).")
    ] = "heuristic=0.5,past=0.35,random=0.15",
    pool_size: Annotated[int, typer.Option(min=1, help="Past selves kept as opponents.")] = 8,
    pool_every: Annotated[
        int, typer.Option(min=1, help="Deals between snapshots into the pool.")
    ] = 200,
    deals_per_task: Annotated[int, typer.Option(min=1, help="Deals per actor task.")] = 4,
    cap: Annotated[int, typer.Option(min=1, help="Candidate follows per decision.")] = 48,
) -> None:
    """Train a Deep Monte-Carlo agent (imitation warm start, then self-play); it plays
    as agent kind dmc:OUT. Every setting is stored in the checkpoint."""
    import os

    try:
        from .learn.train import TrainConfig
        from .learn.train import train as run_training
    except ImportError as e:
        console.print(f"[red]training needs the rl extra: pip install 'shengji[rl]' ({e})[/]")
        raise typer.Exit(2) from None
    from .learn.train import parse_mix

    _check_ray(ray)
    try:
        _check_teacher(teacher)
    except ValueError as e:
        console.print(f"[red]--teacher {teacher!r}: {e}[/]")
        raise typer.Exit(2) from None
    try:
        sizes = tuple(int(h) for h in hidden.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        console.print(f"[red]--hidden {hidden!r}: give positive sizes like 256,256,128[/]")
        raise typer.Exit(2)
    try:
        parse_mix(mix)
    except ValueError as e:
        console.print(f"[red]{e}[/]")
        raise typer.Exit(2) from None
    n = workers or max(1, (os.cpu_count() or 2) - 1)
    cfg = TrainConfig(
        minutes=minutes, stop_deals=deals, out=str(out), seed=seed, workers=n, ray=ray,
        snapshots=str(snapshots) if snapshots else None, save_minutes=save_minutes,
        device=device, init=str(init) if init else None, imitate=imitate, teacher=teacher,
        lr=lr,
        imitate_lr=imitate_lr,
        batch=batch, imitate_batch=imitate_batch, imitate_chunk=imitate_chunk,
        imitate_cache=str(imitate_cache) if imitate_cache else None, teach_z=teach_z,
        teach_values=teach_values,
        epsilon=epsilon, hidden=sizes,
        reuse=reuse, buffer=buffer, reward_points=reward_points, vs_bots=vs_bots, mix=mix,
        pool_size=pool_size, pool_every=pool_every, deals_per_task=deals_per_task, cap=cap,
    )
    until = f"{deals} deals (at most {minutes:g} min)" if deals else f"{minutes:g} min"
    console.print(f"training {until} with {n} actor(s){' on Ray' if ray else ''}")
    summary = run_training(cfg, log=console.print)
    console.print(
        f"checkpoint written to {out}: {summary['deals']} deals, {summary['steps']} SGD steps, "
        f"{summary['seconds'] / 60:.1f} min; play it as --a dmc:{out}"
    )


def _check_teacher(spec: str) -> None:
    """A teacher plays every seat of the training deals from its own view: the heuristic
    or the expert's levels (not random, a learned or external bot, nor the cheating
    `omniscient`); `ValueError` says why not."""
    from .bots import LEVEL_ITERS, parse_agent_spec

    kind, _ = parse_agent_spec(spec)
    if kind != "heuristic" and kind not in LEVEL_ITERS:
        raise ValueError("the teacher is heuristic or an expert level ("
                         + ", ".join(LEVEL_ITERS) + "), as expert:iters=200")
    if kind in LEVEL_ITERS:
        from .bots import make_agent

        make_agent(spec, 0)  # its settings are checked here


def main() -> None:
    """Entry point of the `shengji` command."""
    app()
