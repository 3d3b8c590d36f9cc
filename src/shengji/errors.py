"""The one exception type of the engine."""


class IllegalAction(ValueError):
    """An action or input that the rules forbid or that is malformed.

    The message starts with the rule it breaks, e.g. ``RULES §6.2: ...``. The
    engine raises it before changing anything, so the state is as it was.
    """
