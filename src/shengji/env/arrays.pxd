# C declarations of arrays.pyx (issue 12): the table and the observer call these
# directly, not through a Python call.
cimport numpy as cnp

cpdef cnp.ndarray gather_runs(cnp.ndarray state, cnp.ndarray runs, object out=*)
cpdef cnp.ndarray mask_array(const signed char[::1] mask)
