# Cython declarations for table.py (issue 12): see observer.pxd. The table's attributes
# get C types, its observer is called through C (typed `Observer`), and the per-step
# methods are cpdef: callable from Python as before, called directly from each other.
# Hands, the selection and the mask are byte buffers read and written as C arrays.
cimport cython
from shengji.env.arrays cimport mask_array
from shengji.env.observer cimport Observer

cdef int N_IDS, N_ACTIONS, PASS, DONE, CLOSE
cdef signed char[::1] _NO_ACTIONS

cdef class Table:
    cdef public bint skip_forced
    cdef public int forced_steps
    cdef public object round
    cdef public object options
    cdef public double reward_points
    cdef public list selected
    cdef public signed char[::1] _sel
    cdef public signed char[::1] _hand
    cdef public signed char[::1] _mask
    cdef public bint _built
    cdef public signed char[::1] _ps
    cdef public int _lead_suit
    cdef public list _may_declare
    cdef public list _cannot_declare
    cdef public object _declarable
    cdef public object seat
    cdef public str kind
    cdef public bint _offer
    cdef public dict _views
    cdef public object _lead
    cdef public Observer observer

    @cython.locals(obs=Observer)
    cpdef observation(self, object seat)
    @cython.locals(obs=Observer)
    cpdef observation_into(self, object seat, object out)
    cpdef action_mask(self, object seat)
    cpdef mask_bits(self)
    cpdef bytes mask_bytes(self)
    @cython.locals(m="signed char[::1]", hand="signed char[::1]", sel="signed char[::1]",
                   ps="signed char[::1]", base=int, i=int, suit=int, held=bint, kind=str)
    cpdef _build_mask(self, int seat)
    @cython.locals(m="signed char[::1]", hand="signed char[::1]", sel="signed char[::1]",
                   ps="signed char[::1]", seen=int, multi=int, first=int, i=int, x=int,
                   b=int, selected=list)
    cpdef _lead_mask(self, int base)
    @cython.locals(m="signed char[::1]", ps="signed char[::1]",
                   sel_counts="signed char[::1]", hand="signed char[::1]", base=int,
                   lead_suit=int, i=int, c=int, k=int,
                   suit_ok=list, other_ok=bint)
    cpdef _follow_mask(self, int seat, object shape)
    @cython.locals(obs=Observer)
    cpdef step(self, object action)
    @cython.locals(obs=Observer, kind=str, selected=list)
    cpdef _step(self, object action)
    @cython.locals(obs=Observer, n_tricks=int, selected=list,
                   hand="signed char[::1]", base=int, i=int)
    cpdef _play(self, int seat, object action, tuple ids, bint lead, bint masked)
    cpdef _play_masked(self, int seat, tuple ids, bint lead)
    @cython.locals(m="signed char[::1]", a=int, only=int)
    cpdef _take_forced(self)
    @cython.locals(sel="signed char[::1]", i=int)
    cpdef _clear_selection(self)
    @cython.locals(hand="signed char[::1]", s=int, i=int, counts=bytes)
    cpdef _sync_hands(self)
    @cython.locals(start=int, drawn=int, first=int, seat=int, card=int, offer=bint,
                   hand="signed char[::1]", may=list, cannot=list, i=int)
    cpdef bint _deal(self)
