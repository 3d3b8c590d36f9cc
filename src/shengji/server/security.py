"""Seat and host tokens (only their hashes are stored) and a per-connection rate limit."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable


def new_token() -> str:
    """A fresh secret token for a seat or a host (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a token. Tokens are long random strings, so SHA-256 suffices."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str | None, token_hash: str | None) -> bool:
    """Constant-time check of a presented token against a stored hash."""
    if not token or not token_hash or len(token) > 256:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)


def new_table_id() -> str:
    """A short URL-safe table id (48 random bits)."""
    return secrets.token_urlsafe(6)


class TokenBucket:
    """Allows `burst` messages at once and `rate` per second on average."""

    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.clock = clock
        self.last = clock()

    def peek(self) -> float:
        """The tokens there are now (none taken)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        return self.tokens

    def allow(self) -> bool:
        """Take one token if there is one (True), else refuse (False)."""
        self.peek()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False
