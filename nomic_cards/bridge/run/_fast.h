/* What the two parts of nomic_cards.bridge's compiled dealing loop share: the deal stream's
 * generator (docs/bridge.md; deal/stream.py) and the smart stacker's entry points (_stack.c),
 * which _fast.c's chunk() calls. */
#ifndef NOMIC_CARDS_FAST_H
#define NOMIC_CARDS_FAST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* ------------------------------------------------------------------ the stream (stream.py) */

#define PCG_MULT_HI 2549297995355413924ULL
#define PCG_MULT_LO 4865540595714422341ULL

typedef struct {
    u128 state, inc;
} Pcg;

/* PCG64's raw 64-bit output, as numpy's PCG64.random_raw(). */
static inline uint64_t
pcg_next64(Pcg *g)
{
    const u128 mult = ((u128)PCG_MULT_HI << 64) | PCG_MULT_LO;
    g->state = g->state * mult + g->inc;
    uint64_t v = (uint64_t)(g->state >> 64) ^ (uint64_t)g->state;
    unsigned rot = (unsigned)(g->state >> 122);
    return (v >> rot) | (v << ((-rot) & 63));
}

static inline void
pcg_seed(Pcg *g, const uint64_t w[4])
{
    u128 initstate = ((u128)w[0] << 64) | w[1];
    u128 initseq = ((u128)w[2] << 64) | w[3];
    g->state = 0;
    g->inc = (initseq << 1) | 1;
    pcg_next64(g);
    g->state += initstate;
    pcg_next64(g);
}

/* A uniform integer in [0, bound): Lemire's method on raw words (stream.lemire); a bound of 1
 * draws nothing. */
static inline uint64_t
below(Pcg *g, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    u128 m = (u128)pcg_next64(g) * bound;
    if ((uint64_t)m < bound) {
        const uint64_t threshold = (0 - bound) % bound;
        while ((uint64_t)m < threshold)
            m = (u128)pcg_next64(g) * bound;
    }
    return (uint64_t)(m >> 64);
}

/* ------------------------------------------------------------------ the smart stacker */

extern const char stacker_doc[];
PyObject *fast_stacker(PyObject *self, PyObject *args);
/* Draw `size` hands of the stacked seat (a capsule of fast_stacker) into masks[row * 4 +
 * suit]; its seat in *seat. -1 with an exception set on failure. */
int stack_draw(PyObject *capsule, Pcg *g, int32_t size, uint16_t *masks, int *seat);

#endif
