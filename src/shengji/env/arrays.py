"""The two arrays an RL step hands out, built fast (issue 12): the observation, copied
from the observer's state vector in runs of consecutive entries (`gather_runs`), and
the action mask, copied from the table's mask buffer (`mask_array`).

This file is the reference: numpy, run as it is in a pure-Python install
(`SHENGJI_PURE=1`). An install with a C compiler builds `arrays.pyx` beside it (the same
two functions over numpy's C API: one array allocated and one `memcpy` per run, with
none of the argument parsing and dispatch of `ndarray.take` or `np.frombuffer`) and
imports that instead; `tests/test_build.py` checks the two builds give identical
observations and masks.
"""

from __future__ import annotations

from array import array

import numpy as np

from .encoding import F32, I8, I64

_INT8 = np.dtype(np.int8)


def gather_runs(state: F32, runs: I64, out: F32 | None = None) -> F32:
    """The slices `state[start : start + length]` for each row `(start, length)` of
    `runs` (an `(k, 2)` int64 array), one after another, as float32 (`out` if given,
    else a new array). A run outside `state` raises `IndexError`."""
    starts, lengths = runs[:, 0], runs[:, 1]
    if len(runs) and (
        starts.min() < 0 or lengths.min() < 0 or (starts + lengths).max() > len(state)
    ):
        raise IndexError("gather_runs: a run lies outside the state")
    ends = np.cumsum(lengths)
    index = np.repeat(starts - (ends - lengths), lengths) + np.arange(ends[-1] if len(runs) else 0)
    return state.take(index, out=out)


def mask_array(mask: array[int]) -> I8:
    """A new int8 array holding a copy of `mask` (signed bytes, `array("b")`: the
    table's mask, one byte per action): the array agents read, theirs to keep."""
    return np.frombuffer(mask, _INT8).copy()


__all__ = ["gather_runs", "mask_array"]
