"""External bots: a program in any language plays a seat over JSON lines (docs/BOT_PROTOCOL.md).

`ExternalAgent` runs the bot's command as a subprocess and speaks protocol
`shengji-bot/1` on its stdin/stdout, one JSON object a line (like Botzone's long-running
bots and lichess's Bot API, a bot sees what a player sees and answers in the player's
form):

- host -> bot `{"type": "hello", "protocol": "shengji-bot/1", "seat", "options",
  "deadline_ms", "hello_ms"}`; the bot answers `{"type": "hello", "protocol":
  "shengji-bot/1", "name": ...}` within `hello_ms`;
- host -> bot, each decision: `{"type": "decide", "id", "view": <the seat's view exactly
  as the web protocol sends it, View.to_json()>, "legal": [action kinds], "choices":
  [legal actions] | null, "choices_complete", "deadline_ms"}`; the bot answers
  `{"type": "action", "id", "action": ["play", seat, "AS AS"]}` (the web protocol's
  action message, with the decision's id) within `deadline_ms`;
- host -> bot `{"type": "result", "round_no", "result"}` when a round of a game ended,
  and `{"type": "end", "view", "result", "winner"}` when the deal or game is over.

A bot that is slow (no answer by the deadline), crashes (exits, closes its output, its
input pipe breaks), or answers garbage (not JSON, not an action message, a wrong id) or an
illegal action (RULES §3.3, §4, §6) is logged with a clear error; a stand-in (the
heuristic) makes that decision, so the game goes on and nothing is lost. After a crash, or
a failed handshake, the stand-in plays the seat to the end. `failures` counts each kind,
and `standin_moves` the decisions the stand-in made; the arena reports both.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import shlex
import shutil
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterator
from typing import Any

from ..actions import Action, Bury, Declare, Pass, Play, action_from_json
from ..agent import Agent
from ..cards import CARDS, counts_of, parse_cards
from ..errors import IllegalAction, MalformedAction
from ..follow import follow_error, iter_follows, iter_leads
from ..options import RuleOptions
from ..shapes import Shape, count_ids, shape_of
from ..trump import Trump, trump_for
from ..views import View

__all__ = [
    "DEFAULT_DEADLINE_MS",
    "DEFAULT_HELLO_MS",
    "FAILURE_KINDS",
    "MAX_CHOICES",
    "MAX_LINE",
    "PROTOCOL",
    "BotFailure",
    "ExternalAgent",
    "check_answer",
    "choices",
    "decide_message",
    "legal_kinds",
    "parse_exec_spec",
]

PROTOCOL = "shengji-bot/1"
#: the kinds of failure counted, in the order reports list them
FAILURE_KINDS: tuple[str, ...] = ("timeout", "crash", "malformed", "illegal")
DEFAULT_DEADLINE_MS = 1000
DEFAULT_HELLO_MS = 10_000
#: the most legal actions listed in a decision's `choices` (leads: singles first)
MAX_CHOICES = 100
#: the longest line read from a bot (bytes): a longer one is malformed
MAX_LINE = 64 * 1024
_EOF = object()
_TOO_LONG = object()

log = logging.getLogger("shengji.bots.external")


class BotFailure(Exception):
    """What a bot did wrong at one decision: `kind` is one of `FAILURE_KINDS`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def parse_exec_spec(spec: str) -> tuple[str, int]:
    """`exec:CMD` or `exec:ms=N:CMD` -> (CMD, per-decision deadline in ms); ValueError if
    the command is empty, its program is not found, or N is not a positive integer."""
    if not spec.startswith("exec:"):
        raise ValueError(f"agent spec {spec!r}: an external bot is exec:COMMAND")
    rest = spec[5:]
    ms = DEFAULT_DEADLINE_MS
    if rest.startswith("ms="):
        value, colon, rest = rest[3:].partition(":")
        if not colon or not value.isdigit() or int(value) <= 0:
            raise ValueError(f"agent spec {spec!r}: write exec:ms=500:COMMAND (ms a positive "
                             "integer)")
        ms = int(value)
    try:
        argv = shlex.split(rest)
    except ValueError as e:
        raise ValueError(f"agent spec {spec!r}: the command does not parse ({e})") from None
    if not argv:
        raise ValueError(f"agent spec {spec!r}: give the bot's command, as exec:python bot.py")
    if shutil.which(argv[0]) is None:
        raise ValueError(f"agent spec {spec!r}: no program {argv[0]!r} to run (not on PATH, "
                         "not an executable file)")
    return rest, ms


def legal_kinds(view: dict[str, Any]) -> list[str]:
    """The action kinds the seat of this view (`View.to_json()`, as the web protocol sends
    it) may answer when asked: `declare`/`pass` while cards are drawn and in the final
    window (RULES §3.3), `bury` in the kitty exchange (§4), `play` on its turn (§6)."""
    phase, seat = view["phase"], view["seat"]
    if phase in ("deal", "declare"):
        return (["declare"] if view["legal_declarations"] else []) + ["pass"]
    if phase == "kitty" and view["starter"] == seat:
        return ["bury"]
    if phase == "play" and view["to_act"] == seat:
        return ["play"]
    return []


class _Position:
    """What checking a play needs, read from a view's JSON: the hand as counts, the trump
    (RULES §5), the lead's shape (§6.1) and the follow option (§6.2)."""

    def __init__(self, view: dict[str, Any]) -> None:
        opts = RuleOptions.from_json(view["options"])
        self.counts = counts_of(parse_cards(view["hand"]))
        self.strict = bool(opts.strict_tractor_follow)
        self.trump: Trump | None = None
        self.shape: Shape | None = None
        if view["trump_final"]:
            self.trump = trump_for(view["trump_rank"], view["trump_suit"],
                                   opts.gap_tractors == "on", opts.throw_tractors == "on")
            if view["lead"]:
                self.shape = shape_of([c.id for c in parse_cards(view["lead"])], self.trump)

    def plays(self) -> Iterator[tuple[int, ...]]:
        """Every distinct legal play (ids), leads singles first (§6.1, §6.2)."""
        if self.trump is None:
            return iter(())
        if self.shape is None:
            return iter_leads(self.counts, self.trump)
        return iter_follows(self.counts, self.shape, self.trump, self.strict)

    def play_error(self, ids: list[int]) -> str | None:
        """Why these cards are not a legal play now, or None (a throw may still fail,
        §6.4: that is the engine's to judge, with the other hands)."""
        if self.trump is None:
            return "RULES §6: it is not your turn to play"
        if not ids:
            return "RULES §6: play at least one card"
        for i, n in count_ids(ids).items():
            if self.counts[i] < n:
                return f"RULES §6: {CARDS[i]} is not in your hand"
        if self.shape is None:
            try:
                shape_of(ids, self.trump)
            except (IllegalAction, ValueError) as e:
                return str(e)
            return None
        return follow_error(self.counts, self.shape, ids, self.trump, self.strict)


def choices(view: dict[str, Any]) -> tuple[list[list[Any]] | None, bool]:
    """The seat's legal actions in the web form (at most `MAX_CHOICES`) and whether that is
    all of them; None in the kitty exchange (any 8 cards of the hand, RULES §4)."""
    seat = view["seat"]
    kinds = legal_kinds(view)
    if "pass" in kinds:
        return [["pass", seat]] + [
            ["declare", seat, " ".join(d)] for d in view["legal_declarations"]
        ], True
    if "play" in kinds:
        out: list[list[Any]] = []
        for ids in _Position(view).plays():
            if len(out) == MAX_CHOICES:
                return out, False
            out.append(["play", seat, " ".join(CARDS[i].text for i in ids)])
        return out, True
    return None, not kinds


def decide_message(view: dict[str, Any], decision_id: int, deadline_ms: int) -> dict[str, Any]:
    """The `decide` line for one decision of the view's seat (docs/BOT_PROTOCOL.md)."""
    listed, complete = choices(view)
    return {
        "type": "decide",
        "id": decision_id,
        "view": view,
        "legal": legal_kinds(view),
        "choices": listed,
        "choices_complete": complete,
        "deadline_ms": deadline_ms,
    }


def check_answer(view: dict[str, Any], decision_id: int, msg: Any) -> Action:
    """The action a bot's answer line (already JSON-decoded) names, checked against the
    seat's view (its JSON); raises `BotFailure` ("malformed" or "illegal") saying why."""
    if not isinstance(msg, dict) or msg.get("type") != "action":
        raise BotFailure("malformed", 'expected {"type": "action", "id": N, "action": [...]}')
    if msg.get("id") != decision_id:
        raise BotFailure("malformed", f"the answer's id is {msg.get('id')!r}, not "
                                      f"{decision_id}")
    try:
        action = action_from_json(msg.get("action"))
    except MalformedAction as e:
        raise BotFailure("malformed", str(e)) from None
    seat = view["seat"]
    kinds = legal_kinds(view)
    kind = type(action).__name__.lower()
    if kind not in kinds:
        raise BotFailure("illegal", f"a {kind!r} is not an answer now (phase "
                                    f"{view['phase']}: {' or '.join(kinds) or 'nothing'})")
    assert isinstance(action, Declare | Pass | Bury | Play)
    if action.seat != seat:
        raise BotFailure("illegal", f"RULES §11: you play seat {seat}, not {action.seat}")
    if isinstance(action, Declare):
        if [c.text for c in action.cards] not in view["legal_declarations"]:
            raise BotFailure("illegal", "RULES §3.3: not one of your legal declarations")
    elif isinstance(action, Bury):
        held = counts_of(parse_cards(view["hand"]))
        if len(action.cards) != 8:
            raise BotFailure("illegal", f"RULES §4: bury exactly 8 cards, not "
                                        f"{len(action.cards)}")
        if any(held[i] < n for i, n in count_ids([c.id for c in action.cards]).items()):
            raise BotFailure("illegal", "RULES §4: bury only cards you hold")
    elif isinstance(action, Play):
        why = _Position(view).play_error([c.id for c in action.cards])
        if why is not None:
            raise BotFailure("illegal", why)
    return action


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """End the bot's process (used by `close` and by the finalizer of a forgotten agent)."""
    if proc.poll() is None:
        proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # one that will not die
            proc.wait(timeout=5)


class ExternalAgent:
    """An `Agent` whose decisions a subprocess makes over protocol `shengji-bot/1`.

    `command` is run with `shlex.split` (no shell); the process starts at the first
    decision (the hello names the seat) and lives until `close()`. `deadline_ms` bounds
    each decision, `hello_ms` the handshake. `standin` (default: the heuristic seeded
    with `seed`) decides whenever the bot fails; `failures` counts failures per kind.
    """

    def __init__(
        self,
        command: str,
        seed: int,
        *,
        deadline_ms: int = DEFAULT_DEADLINE_MS,
        hello_ms: int = DEFAULT_HELLO_MS,
        standin: Agent | None = None,
    ) -> None:
        if standin is None:
            from .heuristic import HeuristicAgent

            standin = HeuristicAgent(seed)
        self.command = command
        self.argv = shlex.split(command)
        self.deadline_ms = deadline_ms
        self.hello_ms = hello_ms
        self.standin = standin
        self.failures: dict[str, int] = dict.fromkeys(FAILURE_KINDS, 0)
        self.standin_moves = 0
        self.decisions = 0
        self.name: str | None = None
        self.seat: int | None = None
        self.errors: list[str] = []  # every failure's message, as logged
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._dead = False  # crashed or failed its handshake: the stand-in plays on
        self._round_no: int | None = None
        self._closed = False
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ the process

    def _start(self, view: dict[str, Any]) -> None:
        self.seat = view["seat"]
        try:
            proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0,
            )
        except OSError as e:
            self._dead = True
            self._fail("crash", f"cannot start {self.command!r}: {e}")
            return
        self._proc = proc
        weakref.finalize(self, _kill, proc)
        self._threads = [
            threading.Thread(target=self._read_out, args=(proc,), daemon=True),
            threading.Thread(target=self._read_err, args=(proc,), daemon=True),
        ]
        for t in self._threads:
            t.start()
        self._send({
            "type": "hello", "protocol": PROTOCOL, "seat": view["seat"],
            "options": view["options"], "deadline_ms": self.deadline_ms,
            "hello_ms": self.hello_ms,
        })
        if self._dead:
            return
        try:
            msg = self._receive(self.hello_ms, None)
            if not isinstance(msg, dict) or msg.get("type") != "hello":
                raise BotFailure("malformed", 'the first line must be {"type": "hello", '
                                              f'"protocol": "{PROTOCOL}", ...}}')
            if msg.get("protocol", PROTOCOL) != PROTOCOL:
                raise BotFailure("malformed", f"the bot speaks {msg.get('protocol')!r}; "
                                              f"this host speaks {PROTOCOL!r}")
            name = msg.get("name")
            self.name = str(name)[:40] if name is not None else None
        except BotFailure as e:
            self._dead = True
            self._fail(e.kind, f"handshake: {e}")
            _kill(proc)

    def _read_out(self, proc: subprocess.Popen[bytes]) -> None:
        out = proc.stdout
        assert out is not None
        while True:
            line = out.readline(MAX_LINE + 1)
            if not line:
                self._lines.put(_EOF)
                return
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of it
                    line = out.readline(MAX_LINE)
                self._lines.put(_TOO_LONG)
                continue
            self._lines.put(line)

    def _read_err(self, proc: subprocess.Popen[bytes]) -> None:
        err = proc.stderr
        assert err is not None
        for line in iter(lambda: err.readline(4096), b""):
            text = line.decode("utf-8", "replace").rstrip()
            self._stderr.append(text)
            log.debug("external bot %r seat %s stderr: %s", self.command, self.seat, text)

    def _send(self, msg: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or self._dead:
            return
        data = (json.dumps(msg, separators=(",", ":"), allow_nan=False) + "\n").encode()
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._dead = True
            self._fail("crash", f"its input is closed ({self._exit_text()})")

    def _exit_text(self) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                code = None
            if code is not None and len(self._threads) == 2:
                self._threads[1].join(timeout=0.5)  # its last words on stderr
        said = f"; its last words on stderr: {' | '.join(self._stderr)}" if self._stderr else ""
        state = "still running" if code is None else f"exit status {code}"
        return state + said

    def _receive(self, ms: int, decision_id: int | None) -> Any:
        """The next JSON line within `ms`; answers to earlier decisions (ids below
        `decision_id`, sent after their deadline) are dropped. Raises `BotFailure`."""
        end = time.monotonic() + ms / 1000
        while True:
            left = end - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise BotFailure("timeout", f"no answer within {ms} ms") from None
            if line is _EOF:
                self._dead = True
                raise BotFailure("crash", f"it closed its output ({self._exit_text()})")
            if line is _TOO_LONG:
                raise BotFailure("malformed", f"a line longer than {MAX_LINE} bytes")
            try:
                msg = json.loads(line)
            except ValueError:
                text = line.decode("utf-8", "replace").strip()
                raise BotFailure("malformed", f"not a JSON line: {text[:80]!r}") from None
            late = msg.get("id") if isinstance(msg, dict) else None
            if (
                decision_id is not None and isinstance(late, int)
                and not isinstance(late, bool) and late < decision_id
            ):
                log.info("external bot %r seat %s: dropped a late answer to decision %d",
                         self.command, self.seat, late)
                continue
            return msg

    def _fail(self, kind: str, message: str) -> None:
        self.failures[kind] += 1
        text = (f"external bot {self.command!r} (seat {self.seat}): {kind}: {message}; "
                f"the stand-in plays {'on' if self._dead else 'this decision'}")
        self.errors.append(text)
        log.warning("%s", text)

    # ------------------------------------------------------------------ the agent

    def ask(self, view: dict[str, Any]) -> Action | None:
        """The bot's checked answer for the seat of this view (its JSON, as the web
        protocol sends it), or None where the bot failed (logged and counted: the caller's
        stand-in decides)."""
        if self._proc is None and not self._dead:
            self._start(view)
        self.decisions += 1
        if not self._dead:
            if self._round_no is not None and view["round_no"] != self._round_no \
                    and view["last_result"] is not None:
                self._send({"type": "result", "round_no": self._round_no,
                            "result": view["last_result"]})
            self._round_no = view["round_no"]
        if not self._dead:
            self._send(decide_message(view, self.decisions, self.deadline_ms))
        if not self._dead:
            try:
                return check_answer(view, self.decisions,
                                    self._receive(self.deadline_ms, self.decisions))
            except BotFailure as e:
                self._fail(e.kind, f"decision {self.decisions} (phase {view['phase']}): {e}")
                if self._dead and self._proc is not None:
                    _kill(self._proc)
        self.standin_moves += 1
        return None

    def act(self, view: View) -> Action:
        """The bot's checked answer to this decision, or the stand-in's if it failed."""
        action = self.ask(view.to_json())
        return self.standin.act(view) if action is None else action

    def end(self, view: dict[str, Any] | None, winner: int | None = None) -> None:
        """Send the `end` line (the seat's final view as JSON) and close, as `close`."""
        if not self._closed and self._proc is not None and not self._dead:
            result = None if view is None else (view["result"] or view["last_result"])
            self._send({"type": "end", "view": view, "result": result, "winner": winner})
        self._shutdown()

    def close(self, final: View | None = None, winner: int | None = None) -> None:
        """Tell the bot the deal or game is over (`end`, with its seat's final view) and
        end its process (it has a second to exit on its own)."""
        self.end(None if final is None else final.to_json(), winner)

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            _kill(proc)
        for t in self._threads:  # they end at the pipes' end of file
            t.join(timeout=1)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None and not any(t.is_alive() for t in self._threads):
                stream.close()

    def report(self) -> dict[str, int]:
        """Failures per kind and the stand-in's decisions (`standin`)."""
        return {**self.failures, "standin": self.standin_moves}
