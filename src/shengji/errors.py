"""The one exception type of the engine."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action or input that the rules forbid or that is malformed.

    The message starts with the rule it breaks, e.g. ``RULES §6.2: ...``. The
    engine raises it before changing anything, so the state is as it was.
    `field` names the offending input field where there is one (a rule option
    such as ``"first_drawer"``, RULES §10), so that a server can answer 422 for it.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
