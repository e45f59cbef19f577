/* Optional compiled dealing loop of nomic_cards.bridge for the common scripts (see fast.py).
 *
 * It deals and judges a chunk of deals and returns the accepted ones (layouts and tallies are
 * Python's), by the stream docs/bridge.md specifies (deal/stream.py; the numpy path,
 * deal/batch.py, follows the same one), so a seed gives the same deals either way:
 *
 * - PCG64 (128-bit LCG, XSL-RR output) seeded with SeedSequence's words (stream.seed_words);
 *   uniform integers below a bound by Lemire's method on raw 64-bit words (stream.lemire).
 * - The seats are dealt in the order fast.py passes (stream.seat_order): a stacked seat's hands
 *   first, then every row's rank for the next seat, then the next: one rank per row and seat,
 *   drawn up front. A rank is decoded into the seat's cards among those left (mixed radix over
 *   blocks of 13 positions, colex order within a block, bits deposited on the cards left) the
 *   first time an expression reads that seat for that row, after the seats before it.
 * - Expressions are evaluated deal by deal; &&, ||, ?: evaluate their later parts only when
 *   needed (which deals get decoded does not change the deals).
 *
 * Expressions come from fast.py as records of six int64 (kind and five operands); per-suit
 * functions are 8192-entry tables over suit masks; shape tests are 65536-byte sets of length
 * codes (spades << 12 | hearts << 8 | diamonds << 4 | clubs).
 */
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

static void
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

/* ------------------------------------------------------------------ subsets */

static uint16_t colex[1 << 13];   /* suit masks sorted by (card count, value) */
static int32_t colex_start[15];   /* where each card count starts */
static uint8_t popcount13[1 << 13];
static uint64_t binom[53][53];

static void
init_tables(void)
{
    for (int m = 0; m < (1 << 13); m++)
        popcount13[m] = (uint8_t)__builtin_popcount((unsigned)m);
    int at = 0;
    for (int c = 0; c <= 13; c++) {
        colex_start[c] = at;
        for (int m = 0; m < (1 << 13); m++)
            if (popcount13[m] == c)
                colex[at++] = (uint16_t)m;
    }
    colex_start[14] = at;
    for (int a = 0; a <= 52; a++) {
        binom[a][0] = 1;
        for (int b = 1; b <= 52; b++)
            binom[a][b] = a == 0 ? 0 : binom[a - 1][b - 1] + binom[a - 1][b];
    }
}

/* Decodes ranks in [0, C(free, k)) into k-subsets of free positions, blocks of 13 positions
 * (the last one shorter): a pattern (cards per block, in itertools.product order) and then
 * one colex subset per block by mixed radix. */
#define MAX_PATS 2048  /* patterns of k cards over four blocks of 13: at most 1834 */

typedef struct {
    int free, k, nblocks, npats;
    uint64_t total;
    uint64_t starts[MAX_PATS];
    uint8_t pats[MAX_PATS * 4];   /* npats * nblocks */
    int shift;                    /* rank >> shift: a bucket */
    uint16_t bucket[1 << 14];     /* per bucket, the last pattern starting at or below it */
} Decoder;

static Decoder *decoders[53][14];

static Decoder *
decoder(int nfree, int k)
{
    Decoder *d = decoders[nfree][k];
    if (d)
        return d;
    d = calloc(1, sizeof(Decoder));
    if (!d)
        return NULL;
    int nb = (nfree + 12) / 13, sizes[4];
    for (int b = 0; b < nb; b++)
        sizes[b] = nfree - 13 * b >= 13 ? 13 : nfree - 13 * b;
    int digits[4] = {0, 0, 0, 0};
    uint64_t total = 0;
    int np = 0;
    for (;;) {
        int sum = 0;
        for (int b = 0; b < nb; b++)
            sum += digits[b];
        if (sum == k) {
            uint64_t size = 1;
            for (int b = 0; b < nb; b++) {
                size *= binom[sizes[b]][digits[b]];
                d->pats[np * nb + b] = (uint8_t)digits[b];
            }
            d->starts[np++] = total;
            total += size;
        }
        int b = nb - 1;  /* the last block varies fastest, as itertools.product */
        while (b >= 0 && digits[b] == sizes[b]) {
            digits[b] = 0;
            b--;
        }
        if (b < 0)
            break;
        digits[b]++;
    }
    d->free = nfree;
    d->k = k;
    d->nblocks = nb;
    d->npats = np;
    d->total = total;
    d->shift = 0;
    while ((total - 1) >> d->shift >= (1u << 14))
        d->shift++;
    uint64_t nbuckets = ((total - 1) >> d->shift) + 1;
    int p = 0;
    for (uint64_t b = 0; b < nbuckets; b++) {
        while (p + 1 < np && d->starts[p + 1] <= b << d->shift)
            p++;
        d->bucket[b] = (uint16_t)p;
    }
    decoders[nfree][k] = d;
    return d;
}

/* The subset of rank r as a bit set over the positions (block b at bits 13b...). */
static inline uint64_t
decode(const Decoder *d, uint64_t r)
{
    int lo = d->bucket[r >> d->shift];  /* then the last pattern starting at or below r */
    while (lo + 1 < d->npats && d->starts[lo + 1] <= r)
        lo++;
    r -= d->starts[lo];
    const uint8_t *p = d->pats + lo * d->nblocks;
    uint64_t out = 0;
    int sizes_left = d->free;
    for (int b = 0; b < d->nblocks; b++) {
        int size = sizes_left >= 13 ? 13 : sizes_left;
        sizes_left -= 13;
        uint64_t cnt = binom[size][p[b]];
        uint64_t sub = r % cnt;
        r /= cnt;
        out |= (uint64_t)colex[colex_start[p[b]] + sub] << (13 * b);
    }
    return out;
}

/* Spread the low bits of x onto the set bits of mask, lowest first. */
static inline uint16_t
deposit(uint16_t mask, uint64_t x)
{
    uint16_t out = 0;
    while (mask) {
        uint16_t low = mask & (uint16_t)-mask;
        if (x & 1)
            out |= low;
        x >>= 1;
        mask ^= low;
    }
    return out;
}

/* ------------------------------------------------------------------ a chunk of deals */

enum {
    K_NUM, K_NEG, K_NOT, K_ARITH, K_DIV, K_AND, K_OR, K_COND, K_SUITSUM, K_SHAPE, K_HASCARD
};
enum { OP_ADD, OP_SUB, OP_MUL, OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE };

typedef struct {
    int64_t kind, a, b, c, d, e;
} Node;

typedef struct {
    Pcg rng;
    int32_t n;
    int free[4];
    int order[4], pos[4];  /* the seats in dealing order; each seat's place in it */
    int left_n[4];         /* cards left before the seat at each place is dealt */
    const Decoder *dec[4]; /* per place, when it decodes a rank */
    uint64_t *ranks[4];    /* per place, [row] */
    uint16_t *seat[4][4];  /* [seat][suit][row] */
    uint16_t *left[4];     /* [suit][row] */
    uint8_t *depth;        /* [row]: places dealt */
    const Node *nodes;
    Py_ssize_t nnodes;
    const int64_t *tables; /* 8192 per table */
    Py_ssize_t ntables;
    const uint8_t *shapes; /* 65536 per set */
    Py_ssize_t nshapes;
    int err_node;          /* a division by zero: its node */
} Chunk;

/* Deal the seat at place q of row r from its rank (the places before it are dealt). */
static inline void
deal_one(Chunk *c, int q, int32_t r)
{
    int seat = c->order[q], k = c->free[seat];
    if (k == c->left_n[q]) {  /* the cards left: nothing was drawn */
        for (int s = 0; s < 4; s++) {
            c->seat[seat][s][r] |= c->left[s][r];
            c->left[s][r] = 0;
        }
    } else if (k) {
        uint64_t pos = decode(c->dec[q], c->ranks[q][r]);
        for (int s = 0; s < 4; s++) {
            uint16_t rem = c->left[s][r], got;
            if (c->left_n[q] == 52) {  /* positions are the cards themselves */
                got = (uint16_t)(pos >> (13 * s)) & 0x1fff;
            } else {
                got = deposit(rem, pos);
                pos >>= popcount13[rem];
            }
            c->seat[seat][s][r] |= got;
            c->left[s][r] = rem & (uint16_t)~got;
        }
    }
    c->depth[r] = (uint8_t)(q + 1);
}

/* Deal `seat` (and the seats before it in the order) for row r, if it lacks it. */
static inline void
ensure(Chunk *c, int seat, int32_t r)
{
    for (int q = c->depth[r]; q <= c->pos[seat]; q++)
        deal_one(c, q, r);
}

/* Nodes refer to earlier nodes only (fast.py adds the parts first), with operands in range:
 * eval then needs no checks and always ends. */
static int
check_nodes(const Chunk *c)
{
    for (Py_ssize_t i = 0; i < c->nnodes; i++) {
        const Node *nd = &c->nodes[i];
        int64_t k = nd->kind, a = nd->a, b = nd->b, x = nd->c;
        int ok;
        if (k == K_NUM)
            ok = 1;
        else if (k == K_NEG || k == K_NOT)
            ok = a >= 0 && a < i;
        else if (k == K_ARITH || k == K_DIV || k == K_AND || k == K_OR)
            ok = b >= 0 && b < i && x >= 0 && x < i && (k != K_ARITH || (a >= 0 && a <= OP_NE));
        else if (k == K_COND)
            ok = a >= 0 && a < i && b >= 0 && b < i && x >= 0 && x < i;
        else if (k == K_SUITSUM)
            ok = a >= 0 && a < c->ntables && b >= 0 && b < 4 && x >= -1 && x < 4;
        else if (k == K_SHAPE)
            ok = a >= 0 && a < c->nshapes && b >= 0 && b < 4;
        else
            ok = k == K_HASCARD && a >= 0 && a < 4 && b >= 0 && b < 4 && x >= 0 && x < 13;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "bad node");
            return -1;
        }
    }
    return 0;
}

/* The value of `node` for row r, C's arithmetic wrapping as numpy's int64 does. &&, || and ?:
 * evaluate their later parts only when needed. A division by zero gives 0 and records the
 * earliest such node (the first the numpy evaluator, node by node, would meet). */
static int64_t
eval(Chunk *c, int64_t node, int32_t r)
{
    const Node *nd = &c->nodes[node];
    int64_t a, b;
    switch (nd->kind) {
    case K_NUM:
        return nd->a;
    case K_NEG:
        return (int64_t)(0 - (uint64_t)eval(c, nd->a, r));
    case K_NOT:
        return eval(c, nd->a, r) == 0;
    case K_AND:
        return eval(c, nd->b, r) && eval(c, nd->c, r);
    case K_OR:
        return eval(c, nd->b, r) || eval(c, nd->c, r);
    case K_COND:
        return eval(c, nd->a, r) ? eval(c, nd->b, r) : eval(c, nd->c, r);
    case K_DIV:
        a = eval(c, nd->b, r);
        b = eval(c, nd->c, r);
        if (b == 0) {
            if (c->err_node < 0 || node < c->err_node)
                c->err_node = (int)node;
            return 0;
        }
        if (b == -1)  /* C's INT64_MIN / -1 traps; numpy wraps */
            return nd->a == 0 ? (int64_t)(0 - (uint64_t)a) : 0;
        return nd->a == 0 ? a / b : a % b;
    case K_ARITH:
        a = eval(c, nd->b, r);
        b = eval(c, nd->c, r);
        switch (nd->a) {
        case OP_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
        case OP_SUB: return (int64_t)((uint64_t)a - (uint64_t)b);
        case OP_MUL: return (int64_t)((uint64_t)a * (uint64_t)b);
        case OP_LT: return a < b;
        case OP_LE: return a <= b;
        case OP_GT: return a > b;
        case OP_GE: return a >= b;
        case OP_EQ: return a == b;
        default: return a != b;
        }
    case K_SUITSUM: {
        int seat = (int)nd->b, suit = (int)nd->c;
        ensure(c, seat, r);
        const int64_t *t = c->tables + 8192 * nd->a;
        uint16_t *const *h = c->seat[seat];
        return suit >= 0 ? t[h[suit][r]] : t[h[0][r]] + t[h[1][r]] + t[h[2][r]] + t[h[3][r]];
    }
    case K_SHAPE: {
        uint16_t *const *h = c->seat[nd->b];
        ensure(c, (int)nd->b, r);
        unsigned code = (unsigned)popcount13[h[0][r]] << 12 | popcount13[h[1][r]] << 8
                        | popcount13[h[2][r]] << 4 | popcount13[h[3][r]];
        return c->shapes[65536 * nd->a + code] != 0;
    }
    default:  /* K_HASCARD */
        ensure(c, (int)nd->a, r);
        return c->seat[nd->a][nd->b][r] >> nd->c & 1;
    }
}

static void
chunk_free(Chunk *c)
{
    for (int s = 0; s < 4; s++) {
        for (int t = 0; t < 4; t++)
            free(c->seat[s][t]);
        free(c->left[s]);
        free(c->ranks[s]);
    }
    free(c->depth);
}


/* ------------------------------------------------------------------ smart stacking */

/* One seat's hands drawn uniformly among those meeting its constraint, as stack.py's
 * SeatSampler.draw does (the same tables, exported by SeatSampler.export, and the same draws
 * in the same order): an entry of the final table by its hand count; then, from the last suit
 * back, the suit's share weighted by (hands of the earlier suits making up the rest) x
 * (holdings of that share), and a holding uniformly among those of that share. */
#define MAX_AXES 8
#define STACKER "nomic_cards.bridge.run._fast.Stacker"

typedef struct {
    int64_t nrows, *ia, *ib;          /* the step's rows: earlier row, profile key */
    int64_t *prev;                    /* earlier grid, rows x cells */
    int64_t nkeys, *prof;             /* profile grid, keys x part cells */
    int64_t noff, *off_flat, *off_vec; /* the part cells any key reaches, flat and by axis */
    int64_t *codes, *order;           /* key * part cells + cell of the suit masks, sorted */
} StackSuit;

typedef struct {
    int seat;
    int64_t nentries, *cumulative, *cells;
    int64_t row_cells, cell_add, cells_total, part_total;
    int naxes;
    int64_t sizes[MAX_AXES], strides[MAX_AXES];
    StackSuit suit[4];
    int64_t *owned[2 + 4 * 8];
} Stacker;

static void
stacker_free(PyObject *cap)
{
    Stacker *st = PyCapsule_GetPointer(cap, STACKER);
    for (int i = 0; st && i < 2 + 4 * 8; i++)
        free(st->owned[i]);
    free(st);
}

/* A copy of an int64 bytes object (kept in *slot, freed with the stacker), or NULL when it
 * is not n int64 (any n when n < 0) or one is outside [lo, hi). */
static int64_t *
copy_i64(PyObject *b, int64_t **slot, int64_t *n, int64_t lo, int64_t hi)
{
    Py_ssize_t len = PyBytes_Check(b) ? PyBytes_GET_SIZE(b) : -1;
    if (len < 0 || len % 8 || (*n >= 0 && len != 8 * *n) || !(*slot = malloc(len + 8)))
        return NULL;
    memcpy(*slot, PyBytes_AS_STRING(b), (size_t)len);
    *n = len / 8;
    for (int64_t i = 0; i < *n; i++)
        if ((*slot)[i] < lo || (*slot)[i] >= hi)
            return NULL;
    return *slot;
}

PyDoc_STRVAR(stacker_doc,
"stacker(seat, cumulative, cells, row_cells, cell_add, sizes, part, suits)\n"
"--\n\n"
"A capsule for chunk(): the tables of SeatSampler.export (int64 bytes; ``suits`` four tuples\n"
"``(ia, ib, prev, prof, off_flat, off_vec, codes, order)``).");

static PyObject *
fast_stacker(PyObject *self, PyObject *args)
{
    int seat;
    PyObject *cum, *cells, *sizes, *part, *suits, *b[8];
    long long row_cells, cell_add;
    if (!PyArg_ParseTuple(args, "iSSLLO!O!O!", &seat, &cum, &cells, &row_cells, &cell_add,
                          &PyTuple_Type, &sizes, &PyTuple_Type, &part, &PyTuple_Type, &suits))
        return NULL;
    Stacker *st = calloc(1, sizeof(Stacker));
    PyObject *cap = st ? PyCapsule_New(st, STACKER, stacker_free)
                       : PyErr_NoMemory();
    if (!cap) {
        free(st);
        return NULL;
    }
    Py_ssize_t naxes = PyTuple_GET_SIZE(sizes);
    int ok = seat >= 0 && seat < 4 && naxes >= 1 && naxes <= MAX_AXES && row_cells > 0 && cell_add >= 0
             && PyTuple_GET_SIZE(part) == naxes && PyTuple_GET_SIZE(suits) == 4;
    st->seat = seat;
    st->row_cells = row_cells;
    st->cell_add = cell_add;
    st->naxes = (int)naxes;
    st->cells_total = st->part_total = 1;
    for (int a = (int)naxes - 1; ok && a >= 0; a--) {
        st->sizes[a] = PyLong_AsLongLong(PyTuple_GET_ITEM(sizes, a));
        int64_t p = PyLong_AsLongLong(PyTuple_GET_ITEM(part, a));
        ok = !PyErr_Occurred() && st->sizes[a] > 0 && p > 0 && p <= st->sizes[a];
        st->strides[a] = st->cells_total;
        st->cells_total *= st->sizes[a];
        st->part_total *= p;
    }
    int64_t nrows = -1;  /* rows of the next step's earlier grid (the last step: any) */
    for (int s = 3; ok && s >= 0; s--) {
        StackSuit *u = &st->suit[s];
        int64_t **own = st->owned + 2 + 8 * s, nprev = -1, nprof = -1, nk = 8192;
        u->nrows = nrows;
        ok = PyArg_ParseTuple(PyTuple_GET_ITEM(suits, s), "SSSSSSSS", &b[0], &b[1], &b[2],
                              &b[3], &b[4], &b[5], &b[6], &b[7])
             && (u->prof = copy_i64(b[3], &own[3], &nprof, 0, INT64_MAX))
             && nprof % st->part_total == 0;
        u->nkeys = nprof / st->part_total;
        ok = ok && (u->prev = copy_i64(b[2], &own[2], &nprev, 0, INT64_MAX))
             && nprev % st->cells_total == 0 && (u->ia = copy_i64(b[0], &own[0], &u->nrows, 0,
                                                                  nprev / st->cells_total))
             && (u->ib = copy_i64(b[1], &own[1], &u->nrows, 0, u->nkeys));
        u->noff = -1;
        ok = ok && (u->off_flat = copy_i64(b[4], &own[4], &u->noff, 0, st->part_total))
             && u->noff > 0;
        int64_t nvec = u->noff * naxes;
        ok = ok && (u->off_vec = copy_i64(b[5], &own[5], &nvec, 0, INT64_MAX))
             && (u->codes = copy_i64(b[6], &own[6], &nk, INT64_MIN, INT64_MAX))
             && (u->order = copy_i64(b[7], &own[7], &nk, 0, 8192));
        nrows = nprev / st->cells_total;
    }
    st->nentries = -1;
    ok = ok && (st->cumulative = copy_i64(cum, &st->owned[0], &st->nentries, 1, INT64_MAX))
         && st->nentries > 0 && (st->cells = copy_i64(cells, &st->owned[1], &st->nentries, 0,
                                                      st->suit[3].nrows * row_cells));
    for (int64_t e = 0; ok && e < st->nentries; e++)
        ok = st->cells[e] % row_cells + cell_add < st->cells_total
             && (!e || st->cumulative[e] >= st->cumulative[e - 1]);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "bad stacker tables");
        Py_DECREF(cap);
        return NULL;
    }
    return cap;
}

/* Draw `size` hands of the stacker's seat into masks[row * 4 + suit]. */
static int
stack_draw(const Stacker *st, Pcg *g, int32_t size, uint16_t *masks)
{
    int64_t *row = malloc(sizeof(int64_t) * (size_t)size);
    int64_t *cell = malloc(sizeof(int64_t) * (size_t)size);
    int64_t *share = malloc(sizeof(int64_t) * (size_t)size);
    int64_t *memo_code = NULL, *pool = NULL, pool_len = 0;
    int32_t *memo_slot = NULL;
    int rc = -1;
    if (!row || !cell || !share) {
        PyErr_NoMemory();
        goto done;
    }
    uint64_t total = (uint64_t)st->cumulative[st->nentries - 1];
    for (int32_t i = 0; i < size; i++) {
        int64_t u = (int64_t)below(g, total);
        int64_t lo = 0, hi = st->nentries - 1;
        while (lo < hi) {  /* the first entry whose running total exceeds u */
            int64_t mid = (lo + hi) / 2;
            if (st->cumulative[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        row[i] = st->cells[lo] / st->row_cells;
        cell[i] = st->cells[lo] % st->row_cells + st->cell_add;
    }
    /* samples that agree on (earlier row, suit key, target cell) share one weight row, made
     * the first time it is needed (a hash table per suit) */
    int64_t cap = 16;
    while (cap < 2 * (int64_t)size)
        cap *= 2;
    memo_code = malloc(sizeof(int64_t) * (size_t)cap);
    memo_slot = malloc(sizeof(int32_t) * (size_t)cap);
    if (!memo_code || !memo_slot) {
        PyErr_NoMemory();
        goto done;
    }
    for (int s = 3; s >= 0; s--) {
        const StackSuit *su = &st->suit[s];
        const int64_t K = su->noff, width = 2 * (K ? K : 1);
        int64_t used = 0;
        for (int64_t h = 0; h < cap; h++)
            memo_code[h] = -1;
        for (int32_t i = 0; i < size; i++) {
            int64_t before = su->ia[row[i]], key = su->ib[row[i]];
            int64_t code = (before * su->nkeys + key) * st->cells_total + cell[i];
            uint64_t h = ((uint64_t)code * 0x9E3779B97F4A7C15ULL) >> 20;
            h &= (uint64_t)(cap - 1);
            while (memo_code[h] != -1 && memo_code[h] != code)
                h = (h + 1) & (uint64_t)(cap - 1);
            if (memo_code[h] == -1) {
                if ((used + 1) * width > pool_len) {
                    int64_t want = pool_len ? 2 * pool_len : 64 * width;
                    while (want < (used + 1) * width)
                        want *= 2;
                    int64_t *grown = realloc(pool, sizeof(int64_t) * (size_t)want);
                    if (!grown) {
                        PyErr_NoMemory();
                        goto done;
                    }
                    pool = grown;
                    pool_len = want;
                }
                int64_t *cum = pool + used * width, *rf = cum + K;
                int64_t target[MAX_AXES], rest = cell[i], sum = 0;
                for (int a = 0; a < st->naxes; a++) {
                    target[a] = rest / st->strides[a];
                    rest %= st->strides[a];
                }
                for (int64_t k = 0; k < K; k++) {
                    int64_t flat = 0;
                    int fine = 1;
                    for (int a = 0; a < st->naxes; a++) {
                        int64_t r = target[a] - su->off_vec[k * st->naxes + a];
                        if (r < 0)
                            fine = 0;
                        flat += (r > 0 ? r : 0) * st->strides[a];
                    }
                    rf[k] = flat;
                    if (fine)
                        sum += su->prev[before * st->cells_total + flat]
                               * su->prof[key * st->part_total + su->off_flat[k]];
                    cum[k] = sum;
                }
                if (sum <= 0) {
                    PyErr_SetString(PyExc_ValueError, "stacker tables do not add up");
                    goto done;
                }
                memo_code[h] = code;
                memo_slot[h] = (int32_t)used++;
            }
            const int64_t *cum = pool + memo_slot[h] * width, *rf = cum + K;
            int64_t u = (int64_t)below(g, (uint64_t)cum[K - 1]);
            int64_t lo = 0, hi = K - 1;
            while (lo < hi) {  /* the first share whose running total exceeds u */
                int64_t mid = (lo + hi) / 2;
                if (cum[mid] > u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            share[i] = su->off_flat[lo];
            cell[i] = rf[lo];
        }
        for (int32_t i = 0; i < size; i++) {
            int64_t want = su->ib[row[i]] * st->part_total + share[i];
            int lo = 0, hi = 8192;
            while (lo < hi) {  /* first code >= want */
                int mid = (lo + hi) / 2;
                if (su->codes[mid] < want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            int start = lo;
            hi = 8192;
            while (lo < hi) {  /* first code > want */
                int mid = (lo + hi) / 2;
                if (su->codes[mid] <= want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == start) {
                PyErr_SetString(PyExc_ValueError, "stacker tables do not add up");
                goto done;
            }
            masks[i * 4 + s] = su->order[start + (int)below(g, (uint64_t)(lo - start))];
        }
        for (int32_t i = 0; i < size; i++)
            row[i] = su->ia[row[i]];
    }
    rc = 0;
done:
    free(row);
    free(cell);
    free(share);
    free(memo_code);
    free(memo_slot);
    free(pool);
    return rc;
}

PyDoc_STRVAR(chunk_doc,
"chunk(words, size, order, predeal, nodes, tables, shapes, condition, exprs, keep_deals,\n"
"stacker)\n"
"--\n\n"
"Deal and judge one chunk of ``size`` deals from the PCG64 stream seeded by ``words`` (four\n"
"64-bit words of SeedSequence.generate_state), the seats dealt in ``order`` (stream.seat_order;\n"
"a stacked seat first). ``predeal``: 32 bytes, (seat, suit) uint16\n"
"masks. ``nodes``: int64 records of six; ``condition`` the root of the condition and\n"
"``exprs`` the roots of the action expressions. Returns ``(accepted, deals, values)``:\n"
"accepted row numbers (int32 bytes), their deals (16 uint16 per deal, seat-major; empty\n"
"unless ``keep_deals``) and one int64 bytes object per expression. A division by zero raises\n"
"ZeroDivisionError(node). ``stacker`` (a capsule of stacker(), or None) deals its seat first,\n"
"from the same stream, as docs/bridge.md specifies.");

static PyObject *
fast_chunk(PyObject *self, PyObject *args)
{
    unsigned long long w0, w1, w2, w3;
    int size, keep;
    long long condition;
    Py_buffer pre, nodes, tables, shapes;
    PyObject *exprs, *stack_cap = Py_None;
    int order[4];
    if (!PyArg_ParseTuple(args, "(KKKK)i(iiii)y*y*y*y*LOp|O", &w0, &w1, &w2, &w3, &size,
                          &order[0], &order[1], &order[2], &order[3], &pre, &nodes, &tables,
                          &shapes, &condition, &exprs, &keep, &stack_cap))
        return NULL;
    PyObject *result = NULL;
    Chunk c;
    memset(&c, 0, sizeof(c));
    int32_t *accepted = NULL;
    PyObject *values = NULL;
    if (size <= 0 || pre.len != 32 || nodes.len % (Py_ssize_t)sizeof(Node)
        || tables.len % (8192 * 8) || shapes.len % 65536 || !PyTuple_Check(exprs)) {
        PyErr_SetString(PyExc_ValueError, "bad chunk arguments");
        goto out;
    }
    const uint64_t words[4] = {w0, w1, w2, w3};
    pcg_seed(&c.rng, words);
    c.n = size;
    c.nodes = (const Node *)nodes.buf;
    c.nnodes = nodes.len / (Py_ssize_t)sizeof(Node);
    c.tables = (const int64_t *)tables.buf;
    c.ntables = tables.len / (8192 * 8);
    c.shapes = (const uint8_t *)shapes.buf;
    c.nshapes = shapes.len / 65536;
    if (check_nodes(&c) < 0)
        goto out;
    if (condition < 0 || condition >= c.nnodes) {
        PyErr_SetString(PyExc_ValueError, "bad condition");
        goto out;
    }
    c.err_node = -1;
    const uint16_t *pm = (const uint16_t *)pre.buf;
    uint16_t used[4] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++) {
        int held = 0;
        for (int t = 0; t < 4; t++) {
            held += popcount13[pm[4 * s + t] & 0x1fff];
            used[t] |= pm[4 * s + t] & 0x1fff;
        }
        c.free[s] = 13 - held;
    }
    for (int s = 0; s < 4; s++) {
        for (int t = 0; t < 4; t++) {
            c.seat[s][t] = malloc(sizeof(uint16_t) * (size_t)size);
            if (!c.seat[s][t])
                goto nomem;
            for (int32_t r = 0; r < size; r++)
                c.seat[s][t][r] = pm[4 * s + t] & 0x1fff;
        }
        c.left[s] = malloc(sizeof(uint16_t) * (size_t)size);
        if (!c.left[s])
            goto nomem;
        for (int32_t r = 0; r < size; r++)
            c.left[s][r] = 0x1fff & (uint16_t)~used[s];
    }
    int seen = 0;
    for (int q = 0; q < 4; q++) {
        if (order[q] < 0 || order[q] > 3 || seen >> order[q] & 1) {
            PyErr_SetString(PyExc_ValueError, "bad seat order");
            goto out;
        }
        seen |= 1 << order[q];
        c.order[q] = order[q];
        c.pos[order[q]] = q;
    }
    for (int q = 3, ln = 0; q >= 0; q--)
        c.left_n[q] = ln += c.free[order[q]];
    c.depth = calloc((size_t)size, 1);
    accepted = malloc(sizeof(int32_t) * (size_t)size);
    if (!c.depth || !accepted)
        goto nomem;
    if (stack_cap != Py_None) {
        const Stacker *st = PyCapsule_GetPointer(stack_cap, STACKER);
        if (!st)
            goto out;
        uint16_t *masks = malloc(sizeof(uint16_t) * 4 * (size_t)size);
        if (!masks)
            goto nomem;
        if (stack_draw(st, &c.rng, size, masks) < 0) {
            free(masks);
            goto out;
        }
        for (int32_t r = 0; r < size; r++) {
            for (int t = 0; t < 4; t++) {
                uint16_t got = masks[r * 4 + t] & c.left[t][r];
                c.seat[st->seat][t][r] |= got;
                c.left[t][r] &= (uint16_t)~got;
            }
            c.depth[r] = 1;
        }
        free(masks);
        if (st->seat != order[0]) {
            PyErr_SetString(PyExc_ValueError, "the stacked seat is dealt first");
            goto out;
        }
    }
    /* the ranks of the seats (after a stacked one), place after place */
    for (int q = stack_cap != Py_None; q < 4; q++) {
        int k = c.free[order[q]];
        if (k == 0 || k == c.left_n[q])
            continue;
        if (!(c.dec[q] = decoder(c.left_n[q], k)) || !(c.ranks[q] = malloc(8 * (size_t)size)))
            goto nomem;
        for (int32_t r = 0; r < size; r++)
            c.ranks[q][r] = below(&c.rng, c.dec[q]->total);
    }
    int32_t m = 0;
    for (int32_t r = 0; r < size; r++)
        if (eval(&c, condition, r))
            accepted[m++] = r;
    if (c.err_node >= 0)
        goto fail;
    Py_ssize_t ne = PyTuple_GET_SIZE(exprs);
    values = PyTuple_New(ne);
    if (!values)
        goto out;
    for (Py_ssize_t e = 0; e < ne; e++) {
        long long root = PyLong_AsLongLong(PyTuple_GET_ITEM(exprs, e));
        PyObject *buf = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * m);
        if (!buf)
            goto out;
        PyTuple_SET_ITEM(values, e, buf);
        if (root < 0 || root >= c.nnodes) {
            PyErr_SetString(PyExc_ValueError, "bad expression");
            goto out;
        }
        for (int32_t i = 0; i < m; i++)
            ((int64_t *)PyBytes_AS_STRING(buf))[i] = eval(&c, root, accepted[i]);
        if (c.err_node >= 0)
            goto fail;
    }
    PyObject *deals = PyBytes_FromStringAndSize(NULL, keep ? 32 * (Py_ssize_t)m : 0);
    if (!deals)
        goto out;
    uint16_t *d = (uint16_t *)PyBytes_AS_STRING(deals);
    for (int32_t i = 0; keep && i < m; i++) {
        ensure(&c, order[3], accepted[i]);
        for (int s = 0; s < 4; s++)
            for (int t = 0; t < 4; t++)
                *d++ = c.seat[s][t][accepted[i]];
    }
    PyObject *acc = PyBytes_FromStringAndSize((const char *)accepted,
                                              (Py_ssize_t)sizeof(int32_t) * m);
    if (!acc) {
        Py_DECREF(deals);
        goto out;
    }
    result = Py_BuildValue("(NNO)", acc, deals, values);
    goto out;
nomem:
    PyErr_NoMemory();
    goto out;
fail:
    if (c.err_node >= 0 && !PyErr_Occurred())
        PyErr_SetObject(PyExc_ZeroDivisionError, PyLong_FromLong(c.err_node));
out:
    Py_XDECREF(values);
    free(accepted);
    chunk_free(&c);
    PyBuffer_Release(&pre);
    PyBuffer_Release(&nodes);
    PyBuffer_Release(&tables);
    PyBuffer_Release(&shapes);
    return result;
}

PyDoc_STRVAR(integers_doc,
"integers(words, totals)\n"
"--\n\n"
"Bounded integers from the PCG64 stream seeded by ``words``: one in ``[0, total)`` for each\n"
"of ``totals`` in turn, as stream.lemire draws them (for the tests).");

static PyObject *
fast_integers(PyObject *self, PyObject *args)
{
    unsigned long long w0, w1, w2, w3;
    PyObject *totals;
    if (!PyArg_ParseTuple(args, "(KKKK)O!", &w0, &w1, &w2, &w3, &PyList_Type, &totals))
        return NULL;
    const uint64_t words[4] = {w0, w1, w2, w3};
    Pcg g;
    pcg_seed(&g, words);
    PyObject *out = PyList_New(PyList_GET_SIZE(totals));
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(totals); i++) {
        unsigned long long t = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(totals, i));
        PyObject *v = PyErr_Occurred() ? NULL : PyLong_FromUnsignedLongLong(below(&g, t));
        if (!v)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"chunk", fast_chunk, METH_VARARGS, chunk_doc},
    {"stacker", fast_stacker, METH_VARARGS, stacker_doc},
    {"integers", fast_integers, METH_VARARGS, integers_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fast",
    "Compiled dealing loop of nomic_cards.bridge (see fast.py).", -1, methods,
};

PyMODINIT_FUNC
PyInit__fast(void)
{
    init_tables();
    return PyModule_Create(&module);
}
