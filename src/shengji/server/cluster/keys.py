"""The cluster's names in Redis and PostgreSQL and its timings: one place for what
every part of the cluster (store, presence, relay, limits) must agree on."""

from __future__ import annotations

ALIVE_MS = 1000  # a worker whose alive key is older than this is presumed dead
BEAT_S = 0.25  # heartbeat and dead-worker scan period
ORPHAN_SCAN_S = 5.0  # the full scan for unowned open tables
LAG_SAMPLE_S = 0.02  # the event loop's lag is sampled this often (`Cluster.metrics`)
CLOSE_RESTART = 1012  # WebSocket close code: the server moved this table; reconnect
# frames of one relayed connection waiting to be published (holding worker) or read by
# its table (owner) beyond which the connection is cut off (close 1013) rather than queued
RELAY_MAX_UNPUBLISHED = 256


def in_channel(worker: str) -> str:
    """The channel a worker reads its owned tables' relayed frames from."""
    return f"shengji:in:{worker}"


def out_channel(worker: str) -> str:
    """The channel a worker reads what owners send its relayed connections."""
    return f"shengji:out:{worker}"


def session_name(worker: str) -> str:
    """The `application_name` of `worker`'s owner session (PostgreSQL keeps 63 bytes: the
    id's end, its pid and random part, is what tells workers apart)."""
    return "shengji " + worker[-50:]


def alive_key(worker: str) -> str:
    """The key whose short TTL says `worker` is alive."""
    return f"shengji:alive:{worker}"


def owner_key(table_id: str) -> str:
    """The key naming the worker that drives `table_id`."""
    return f"shengji:owner:{table_id}"


def tables_key(worker: str) -> str:
    """The set of the tables `worker` drives."""
    return f"shengji:tables:{worker}"


def limit_key(kind: str, addr: str) -> str:
    """The sorted set of an address's slots of `kind` (conns, open)."""
    return f"shengji:{kind}:{addr}"


def creator_key(table_id: str) -> str:
    """The key keeping who created `table_id` (for a worker that takes it over)."""
    return f"shengji:creator:{table_id}"


WORKERS_KEY = "shengji:workers"
LIMIT_TTL_MS = 30_000  # a per-address slot (connection, open table) lives this long ...
LIMIT_RENEW_S = 10.0  # ... unless its worker renews it (every this often)
CREATOR_TTL_S = 7 * 24 * 3600  # who created a table, for the worker that takes it over
# A slot of an address (KEYS[1]: a sorted set, member -> expiry on Redis's clock, ms):
# drop the expired ones, then take (or renew) ARGV[2] if fewer than ARGV[1] are held.
ADMIT_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[2])
    or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
"""
# Renew slots ARGV[2..] of KEYS[1] for ARGV[1] ms more (re-adding any that expired).
RENEW_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return #ARGV - 1
"""
CREATE_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, tonumber(ARGV[1]) - 60)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  redis.call('EXPIRE', KEYS[1], 120)
  return 1
end
return 0
"""

