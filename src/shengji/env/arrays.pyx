# cython: language_level=3, boundscheck=False, wraparound=False
"""The C build of arrays.py (read its docstring): the same functions, over numpy's C
API. Inputs are checked (dtype, shape, contiguity, every run inside the state), so no
argument can make them read or write outside a buffer."""

cimport numpy as cnp
from libc.string cimport memcpy

cnp.import_array()


cpdef cnp.ndarray gather_runs(cnp.ndarray state, cnp.ndarray runs, object out=None):
    """The slices `state[start : start + length]` for each row `(start, length)` of
    `runs` (an `(k, 2)` int64 array), one after another, as float32 (`out` if given,
    else a new array). A run outside `state` raises `IndexError`."""
    if state is None or runs is None:
        raise TypeError("gather_runs: state and runs must be arrays, not None")
    if (cnp.PyArray_TYPE(state) != cnp.NPY_FLOAT32 or cnp.PyArray_NDIM(state) != 1
            or not cnp.PyArray_IS_C_CONTIGUOUS(state)):
        raise TypeError("gather_runs: state must be a contiguous 1-d float32 array")
    if (cnp.PyArray_TYPE(runs) != cnp.NPY_INT64 or cnp.PyArray_NDIM(runs) != 2
            or cnp.PyArray_DIM(runs, 1) != 2 or not cnp.PyArray_IS_C_CONTIGUOUS(runs)):
        raise TypeError("gather_runs: runs must be a contiguous (k, 2) int64 array")
    cdef cnp.npy_intp k = cnp.PyArray_DIM(runs, 0)
    cdef cnp.npy_intp size = cnp.PyArray_DIM(state, 0)
    cdef const cnp.int64_t* r = <const cnp.int64_t*>cnp.PyArray_DATA(runs)
    cdef cnp.npy_intp i, n = 0
    for i in range(k):
        if r[2 * i] < 0 or r[2 * i + 1] < 0 or r[2 * i] > size - r[2 * i + 1]:
            raise IndexError("gather_runs: a run lies outside the state")
        n += r[2 * i + 1]
    cdef cnp.ndarray res
    if out is None:
        res = cnp.PyArray_SimpleNew(1, &n, cnp.NPY_FLOAT32)
    else:
        res = out
        if (cnp.PyArray_TYPE(res) != cnp.NPY_FLOAT32 or cnp.PyArray_NDIM(res) != 1
                or cnp.PyArray_DIM(res, 0) != n or not cnp.PyArray_IS_C_CONTIGUOUS(res)
                or not cnp.PyArray_ISWRITEABLE(res)):
            raise TypeError("gather_runs: out must be a writeable contiguous float32 "
                            "array as long as the runs")
    cdef char* o = <char*>cnp.PyArray_DATA(res)
    cdef const char* s = <const char*>cnp.PyArray_DATA(state)
    for i in range(k):
        memcpy(o, s + 4 * r[2 * i], 4 * r[2 * i + 1])
        o += 4 * r[2 * i + 1]
    return res


cpdef cnp.ndarray mask_array(const signed char[::1] mask):
    """A new int8 array holding a copy of `mask` (signed bytes, `array("b")`: the
    table's mask, one byte per action): the array agents read, theirs to keep."""
    cdef cnp.npy_intp dims = mask.shape[0]
    cdef cnp.ndarray res = cnp.PyArray_SimpleNew(1, &dims, cnp.NPY_INT8)
    if dims:
        memcpy(cnp.PyArray_DATA(res), &mask[0], dims)
    return res
