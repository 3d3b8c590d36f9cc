"""The engine's exceptions: `IllegalAction` and its `MalformedAction` subclass."""

from __future__ import annotations

import re

_RULE = re.compile(r"RULES §(\d+(?:\.\d+)*)")


class IllegalAction(ValueError):
    """An action or input that the rules forbid or that is malformed.

    The message starts with the rule it breaks, e.g. ``RULES §6.2: ...``; `rule`
    holds that section (``"6.2"``, or None when no rule is cited) and `message` the
    text, so clients need not parse it. `field` names the offending input field where
    there is one (a rule option such as ``"first_drawer"``, RULES §10), so that a
    server can answer 422 for it. The engine raises it before changing anything, so
    the state is as it was.
    """

    def __init__(
        self, message: str, *, rule: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        found = _RULE.search(message)
        self.rule: str | None = rule if rule is not None else (found.group(1) if found else None)
        self.field = field


class MalformedAction(IllegalAction):
    """Not a well-formed action at all: an unknown kind, a seat or cards of the wrong type.

    Raised by the engine (before any rule is looked at) and by `action_from_json`.
    """
