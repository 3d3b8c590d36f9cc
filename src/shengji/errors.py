"""The engine's exceptions: `IllegalAction` and its `MalformedAction` subclass."""

from __future__ import annotations

import re

_RULE = re.compile(r"RULES §(\d+(?:\.\d+)*)")

#: The refusal codes a client words in its own language, each with the pattern of the
#: engine's English message that it names; the named groups are its facts (digits become
#: ints). Matched only when an `IllegalAction` is built, so the hot path pays nothing.
CODES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (code, re.compile(p))
    for code, p in (
        ("follow_count", r"play exactly (?P<n>\d+) card\(s\), as many as the leader"),
        ("follow_suit", r"play (?P<need>\d+) card\(s\) of the led suit \(you played (?P<played>\d+)\)"),  # noqa: E501
        ("follow_pairs", r"(?P<need>\d+) pair\(s\) of the led suit are required \(you played (?P<played>\d+)\)"),  # noqa: E501
        ("follow_tractor", r"must play a tractor of (?P<pairs>\d+) pairs"),
        ("lead_one_suit", r"all cards of a lead must be of one play suit"),
        ("play_empty", r"play at least one card|a lead has at least one card"),
        ("not_your_turn", r"it is seat (?P<seat>\d)'s turn, not seat \d's|it is not seat (?P<you>\d)'s turn"),  # noqa: E501
        ("not_in_hand_times", r"(?P<card>\S+) is not in your hand (?P<n>\d+) times \(you hold (?P<held>\d+)\)"),  # noqa: E501
        ("not_in_hand", r"(?P<card>\S+) is not in your hand|the hand does not hold (?P<card2>\S+)"),
        ("wrong_phase", r"is only possible in the (?P<want>\w+) phase \(now: (?P<now>\w+)\)"),
        ("declare_phase", r"declarations are only possible during the deal"),
        ("declare_not_held", r"you can only declare with cards in your hand"),
        ("declare_single", r"a one-card declaration must be a card of the trump rank (?P<rank>\w+)"),  # noqa: E501
        ("declare_pair", r"a two-card declaration must be two identical cards|a pair declaration must be"),  # noqa: E501
        ("declare_size", r"a declaration shows one or two cards"),
        ("declare_overturn", r"can only be overturned|an overturn must be"),
        ("not_asked", r"seat (?P<seat>\d) is asked now"),
        ("bury_not_starter", r"only the starter \(seat (?P<seat>\d)\) buries the kitty"),
        ("bury_count", r"puts back exactly 8 cards, not (?P<n>\d+)"),
        ("game_over", r"the game is over"),
        ("round_over", r"the round is over"),
        ("bad_seat", r"seat must be 0-3"),
        ("bad_option", r"^RULES §10"),
    )
)


def _classify(message: str) -> tuple[str, dict[str, int | str]]:
    for code, pattern in CODES:
        found = pattern.search(message)
        if found:
            facts: dict[str, int | str] = {}
            for k, v in found.groupdict().items():
                if v is not None:
                    facts[k.rstrip("2")] = int(v) if v.isdigit() else v
            return code, facts
    return "illegal", {}


class IllegalAction(ValueError):
    """An action or input that the rules forbid or that is malformed.

    The message starts with the rule it breaks, e.g. ``RULES §6.2: ...``; `rule`
    holds that section (``"6.2"``, or None when no rule is cited) and `message` the
    text, so clients need not parse it. `code` names the refusal (e.g.
    ``"follow_pairs"``, one of `CODES`, else ``"illegal"``) and `facts` its numbers and
    cards (``{"need": 2, "played": 1}``), so that a client words it in its player's
    language. `field` names the offending input field where
    there is one (a rule option such as ``"first_drawer"``, RULES §10), so that a
    server can answer 422 for it. The engine raises it before changing anything, so
    the state is as it was.
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        field: str | None = None,
        code: str | None = None,
        facts: dict[str, int | str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        found = _RULE.search(message)
        self.rule: str | None = rule if rule is not None else (found.group(1) if found else None)
        self.field = field
        if code is None:
            code, derived = _classify(message)
            facts = derived if facts is None else facts
        self.code: str = code
        self.facts: dict[str, int | str] = dict(facts) if facts else {}
        if field is not None:
            self.facts.setdefault("field", field)


class MalformedAction(IllegalAction):
    """Not a well-formed action at all: an unknown kind, a seat or cards of the wrong type.

    Raised by the engine (before any rule is looked at) and by `action_from_json`.
    """
