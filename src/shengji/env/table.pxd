# Cython declarations for table.py (issue 12): see observer.pxd. The table's attributes
# get C types, its observer is called through C (typed `Observer`), and the per-step
# methods are cpdef: callable from Python as before, called directly from each other.
cimport cython
from shengji.env.arrays cimport mask_array
from shengji.env.observer cimport Observer

cdef class Table:
    cdef public bint skip_forced
    cdef public int forced_steps
    cdef public object round
    cdef public object options
    cdef public double reward_points
    cdef public list selected
    cdef public object _selbits
    cdef public list _hand_bits
    cdef public list _may_declare
    cdef public list _cannot_declare
    cdef public object _declarable
    cdef public object seat
    cdef public str kind
    cdef public bint _offer
    cdef public dict _views
    cdef public object _bits
    cdef public object _lead
    cdef public object _in_suit
    cdef public tuple _suits
    cdef public Observer observer

    @cython.locals(obs=Observer)
    cpdef observation(self, object seat)
    @cython.locals(obs=Observer)
    cpdef observation_into(self, object seat, object out)
    cpdef action_mask(self, object seat)
    cpdef mask_bits(self)
    @cython.locals(obs=Observer)
    cpdef step(self, object action)
    @cython.locals(obs=Observer, kind=str, selected=list)
    cpdef _step(self, object action)
    @cython.locals(obs=Observer, n_tricks=int, lead=bint, selected=list)
    cpdef _play(self, int seat, object action, object ids)
    @cython.locals(kind=str)
    cpdef _mask_bits(self, int seat)
    cpdef _lead_bits(self, object x, object avail)
    cpdef _take_forced(self)
    @cython.locals(start=int, drawn=int, first=int, seat=int, card=int, offer=bint,
                   hands=list, may=list, cannot=list)
    cpdef bint _deal(self)
