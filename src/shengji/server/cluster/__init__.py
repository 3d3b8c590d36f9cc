"""Many server processes, one game world (PostgreSQL + Redis). See docs/ARCHITECTURE.md,
"Many processes". One module per job: `store` (fenced writes), `worker` (presence,
failover, routing), `relay`, `limits`; `keys` names what they share.

- **Ownership and fencing** (`ClusterStore`): a table is driven by the one process whose
  *owner session* (one PostgreSQL connection) holds the table's advisory lock. That session
  runs with `idle_session_timeout` = the lease, and the process pings it every lease/4: a
  process that dies (kill -9) drops the session and its locks at once; one that stalls
  (SIGSTOP, a partition) loses them when the lease runs out, *on the database's clock*.
  Every write of the process goes through that same session, after checking that the
  table is still in the set this session locked, so a process that lost its session
  cannot write anything (the fence is the session itself: its locks and its writes
  live and die together). The `(table_id, seq)` primary key still refuses a second
  action at the same number.
- **Presence** (Redis): `shengji:alive:<worker>` (a short TTL, refreshed), the set of
  workers, each worker's tables, and `shengji:owner:<table>`.
- **Relay** (Redis pub/sub): a WebSocket may reach any worker. A worker that does not own
  the table forwards the connection's frames to the owner's inbox channel; the owner keeps
  a `RemoteClient` in the table's clients (seat, rate limits and hello checks all happen
  there, as for a local one) and publishes what it sends to the hosting worker's channel.
- **Failover**: each worker watches for dead workers (their alive key gone) and claims
  their tables (the advisory lock decides who gets each), replaying the log; a hosting
  worker closes the relayed connections of a dead owner (code 1012) and the browser
  client reconnects by itself, to any worker.
"""

from __future__ import annotations

from .keys import CLOSE_RESTART
from .relay import RemoteClient
from .store import LEASE_MS, ClusterStore, OwnershipLost
from .worker import Cluster

__all__ = ["CLOSE_RESTART", "LEASE_MS", "Cluster", "ClusterStore", "OwnershipLost", "RemoteClient"]
