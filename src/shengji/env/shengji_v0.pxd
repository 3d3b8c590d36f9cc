# Cython declarations for shengji_v0.py (issue 12): compiled by setup.py (`CYTHONIZED`
# in shengji._build); the .py stays the one source of the logic and runs as it is when
# not compiled (SHENGJI_PURE=1). `raw_env` subclasses PettingZoo's Python `AECEnv`, so
# it stays a Python class (its methods compiled); the agent iterator is a C type, its
# `__next__` the C slot an RL loop's `for agent in env.agent_iter()` calls each step.

cdef class _Agents:
    cdef public object env
    cdef public object max_iter

cdef class _AgentIterator:
    cdef public object env
    cdef public object left

from shengji.env.table cimport Table

cdef class _Steps:
    cdef public object env
    cdef public Table table
    cdef public dict cumulative
    cdef public dict terminations
    cdef public dict truncations
    cdef public dict infos
    cdef public bint human
