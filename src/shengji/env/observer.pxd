# Cython declarations for observer.py (issue 12): compiled by setup.py (`CYTHONIZED` in
# shengji._build), the .py stays the one source of the logic and runs as it is when
# not compiled (SHENGJI_PURE=1). This file only adds C types: the state buffer as a
# float memoryview (its element writes become C stores), ints as C ints, and the
# per-step notices as cpdef methods the compiled Table calls without Python dispatch.
cimport cython
from shengji.env.arrays cimport gather_runs

# the state vector's layout (observer.py `_field`): C ints, so offsets are C arithmetic
cdef int N_IDS
cdef int HAND, SEL, PLAYED, TRICK, UNSEEN, KITTY, FLIP, DECLARED, DECLARER, STARTER
cdef int VOID, PHASE, TRUMP_RANK, TRUMP_KIND, LEVELS, DT, OPP, TRICK_POINTS, CARDS_LEFT
cdef int SIZES, LEAD_N, LEAD_PAIRS, LEAD_BLOCK, N_PLAYS, N_TRICKS, BURY, TURN
cdef int _TURN_NONE

cdef class Observer:
    cdef public object rnd
    cdef public float[::1] buf
    cdef public object state
    cdef public list runs
    cdef public int[::1] _slot
    cdef public object trump_key
    cdef public object phase
    cdef public int turn
    cdef public int lead_suit
    cdef public int lead_n
    cdef public int drawn
    cdef public int _trick_points
    cdef public int _n_plays
    cdef public int points
    cdef public object _ps
    cdef public tuple _block_of
    cdef public list _sizes

    @cython.locals(b=float[::1], o_hand=int, o_played=int, o_trick=int, u0=int, u1=int,
                   u2=int, pts=int, k=int, i=int, j=int, lead_suit=int, n=int,
                   slot=int[::1])
    cpdef played(self, int seat, object ids, bint lead)
    cpdef observation(self, int seat, object out=*)
    @cython.locals(b=float[::1], k=int)
    cpdef pick(self, int seat, int card_id)
    @cython.locals(b=float[::1], i=int, slot=int[::1])
    cpdef unpick(self, int seat, object ids)
    @cython.locals(b=float[::1], p=int)
    cpdef play_turn(self, object seat)
    @cython.locals(b=float[::1])
    cpdef trick_won(self, int n_tricks)
    @cython.locals(b=float[::1], d=int, o=int, slot=int[::1])
    cpdef dealt(self, object deck, int start, int end, int first_drawer)
    @cython.locals(b=float[::1], sizes=list, s=int, n=int)
    cpdef _read_sizes(self)
