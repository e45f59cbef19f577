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
 *   drawn up front (the ranks of seats that nothing reads are the last draws: not drawn). A
 *   rank is decoded into the seat's cards among those left (mixed radix over blocks of 13
 *   positions, colex order within a block, bits deposited on the cards left): the first seat's
 *   for every row in one pass, a later seat's the first time an expression reads it for that
 *   row, after the seats before it.
 * - Expressions are evaluated deal by deal, on that deal's hands only; &&, ||, ?: evaluate
 *   their later parts only when needed (which deals get decoded does not change the deals).
 *   Frequency tallies are counted here too (counts()).
 * - The smart stacker's tables and draws are in _stack.c; what both use is in _fast.h.
 *
 * Expressions come from fast.py as records of six int64 (kind and five operands); per-suit
 * functions are 8192-entry tables over suit masks; shape tests are 65536-byte sets of length
 * codes (spades << 12 | hearts << 8 | diamonds << 4 | clubs).
 */
#include "_fast.h"

/* ------------------------------------------------------------------ subsets */

static uint16_t colex[1 << 13];   /* suit masks sorted by (card count, value) */
static int32_t colex_start[15];   /* where each card count starts */
static uint8_t popcount13[1 << 13];
static uint64_t binom[53][53];
static uint64_t binom_inv[14][14]; /* 2^64 / C(a, b) + 1 (0 for 1): r / C(a, b) by multiplying */

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
    for (int a = 0; a <= 13; a++)
        for (int b = 0; b <= a; b++)
            binom_inv[a][b] = binom[a][b] == 1 ? 0 : UINT64_MAX / binom[a][b] + 1;
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
        uint64_t sub = r, cnt = binom[size][p[b]];  /* the last block: r < cnt */
        if (b + 1 < d->nblocks) {  /* exact: r < C(52, 13) < 2^40, counts < 2^11 */
            r = (uint64_t)(((u128)r * binom_inv[size][p[b]]) >> 64) + (cnt == 1 ? r : 0);
            sub -= r * cnt;
        }
        out |= (uint64_t)colex[colex_start[p[b]] + sub] << (13 * b);
    }
    return out;
}

/* Spread the low bits of x onto the set bits of mask, lowest first: by tables of the low 7
 * and the high 6 bits of the mask (spread7[m][x] for every 7-bit m and x). */
static uint8_t spread7[128][128];

static inline uint16_t
deposit(uint16_t mask, uint64_t x)
{
    unsigned lo = mask & 127u, hi = (unsigned)mask >> 7;
    return (uint16_t)(spread7[lo][x & 127u] | spread7[hi][(x >> popcount13[lo]) & 127u] << 7);
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
    uint16_t seat[4][4], left[4];  /* [seat][suit] masks; the cards not dealt yet, by suit */
    int depth;                     /* places dealt */
} Hands;

typedef struct {
    Pcg rng;
    int free[4];
    int order[4], pos[4];  /* the seats in dealing order; each seat's place in it */
    int left_n[4];         /* cards left before the seat at each place is dealt */
    const Decoder *dec[4]; /* per place, when it decodes a rank */
    uint64_t *ranks[4];    /* per place, [row] */
    Hands *h;              /* the row being judged: its hands dealt so far */
    int32_t row;
    const Node *nodes;
    Py_ssize_t nnodes;
    const int64_t *tables; /* 8192 per table */
    Py_ssize_t ntables;
    const uint8_t *shapes; /* 65536 per set */
    Py_ssize_t nshapes;
    int err_node;          /* a division by zero: its node */
} Chunk;

/* Deal the seat at place q of the row from its rank (the places before it are dealt); not
 * inlined, so that eval, which calls it rarely, stays small. */
static __attribute__((noinline)) void
deal_one(Chunk *c, int q)
{
    Hands *h = c->h;
    int seat = c->order[q], k = c->free[seat];
    if (k == c->left_n[q]) {  /* the cards left: nothing was drawn */
        for (int s = 0; s < 4; s++) {
            h->seat[seat][s] |= h->left[s];
            h->left[s] = 0;
        }
    } else if (k) {
        uint64_t pos = decode(c->dec[q], c->ranks[q][c->row]);
        for (int s = 0; s < 4; s++) {
            uint16_t rem = h->left[s], got;
            if (c->left_n[q] == 52) {  /* positions are the cards themselves */
                got = (uint16_t)(pos >> (13 * s)) & 0x1fff;
            } else {
                got = deposit(rem, pos);
                pos >>= popcount13[rem];
            }
            h->seat[seat][s] |= got;
            h->left[s] = rem & (uint16_t)~got;
        }
    }
    h->depth = q + 1;
}

/* Deal `seat` (and the seats before it in the order) for the row, if it lacks it. */
static inline void
ensure(Chunk *c, int seat)
{
    for (int q = c->h->depth; q <= c->pos[seat]; q++)
        deal_one(c, q);
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

/* The value of `node` for the row, C's arithmetic wrapping as numpy's int64 does. &&, || and ?:
 * evaluate their later parts only when needed. A division by zero gives 0 and records the
 * earliest such node (the first the numpy evaluator, node by node, would meet). */
static int64_t
eval(Chunk *c, int64_t node)
{
    const Node *nd = &c->nodes[node];
    int64_t a, b;
    switch (nd->kind) {
    case K_NUM:
        return nd->a;
    case K_NEG:
        return (int64_t)(0 - (uint64_t)eval(c, nd->a));
    case K_NOT:
        return eval(c, nd->a) == 0;
    case K_AND:
        return eval(c, nd->b) && eval(c, nd->c);
    case K_OR:
        return eval(c, nd->b) || eval(c, nd->c);
    case K_COND:
        return eval(c, nd->a) ? eval(c, nd->b) : eval(c, nd->c);
    case K_DIV:
        a = eval(c, nd->b);
        b = eval(c, nd->c);
        if (b == 0) {
            if (c->err_node < 0 || node < c->err_node)
                c->err_node = (int)node;
            return 0;
        }
        if (b == -1)  /* C's INT64_MIN / -1 traps; numpy wraps */
            return nd->a == 0 ? (int64_t)(0 - (uint64_t)a) : 0;
        return nd->a == 0 ? a / b : a % b;
    case K_ARITH:  /* a number on the right (hcp(north) >= 22) read in place */
        a = eval(c, nd->b);
        b = c->nodes[nd->c].kind == K_NUM ? c->nodes[nd->c].a : eval(c, nd->c);
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
        ensure(c, seat);
        const int64_t *t = c->tables + 8192 * nd->a;
        const uint16_t *h = c->h->seat[seat];
        return suit >= 0 ? t[h[suit]] : t[h[0]] + t[h[1]] + t[h[2]] + t[h[3]];
    }
    case K_SHAPE: {
        const uint16_t *h = c->h->seat[nd->b];
        ensure(c, (int)nd->b);
        unsigned code = (unsigned)popcount13[h[0]] << 12 | popcount13[h[1]] << 8
                        | popcount13[h[2]] << 4 | popcount13[h[3]];
        return c->shapes[65536 * nd->a + code] != 0;
    }
    default:  /* K_HASCARD */
        ensure(c, (int)nd->a);
        return c->h->seat[nd->a][nd->b] >> nd->c & 1;
    }
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
    PyObject *result = NULL, *values = NULL;
    Chunk c;
    memset(&c, 0, sizeof(c));
    int32_t *accepted = NULL;
    int64_t *vals = NULL, *roots = NULL;
    uint16_t *masks = NULL, *kept = NULL;
    Py_ssize_t ne = PyTuple_Check(exprs) ? PyTuple_GET_SIZE(exprs) : -1;
    if (size <= 0 || pre.len != 32 || nodes.len % (Py_ssize_t)sizeof(Node)
        || tables.len % (8192 * 8) || shapes.len % 65536 || ne < 0) {
        PyErr_SetString(PyExc_ValueError, "bad chunk arguments");
        goto out;
    }
    const uint64_t words[4] = {w0, w1, w2, w3};
    pcg_seed(&c.rng, words);
    c.nodes = (const Node *)nodes.buf;
    c.nnodes = nodes.len / (Py_ssize_t)sizeof(Node);
    c.tables = (const int64_t *)tables.buf;
    c.ntables = tables.len / (8192 * 8);
    c.shapes = (const uint8_t *)shapes.buf;
    c.nshapes = shapes.len / 65536;
    if (check_nodes(&c) < 0)
        goto out;
    if (!(roots = malloc(sizeof(int64_t) * (size_t)(ne + 1))))
        goto nomem;
    for (Py_ssize_t e = 0; e <= ne; e++) {  /* the expressions', then the condition */
        roots[e] = e < ne ? PyLong_AsLongLong(PyTuple_GET_ITEM(exprs, e)) : condition;
        if (roots[e] < 0 || roots[e] >= c.nnodes) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bad expression");
            goto out;
        }
    }
    c.err_node = -1;
    const uint16_t *pm = (const uint16_t *)pre.buf;
    Hands start;  /* every row's hands before dealing: the predealt cards */
    memset(&start, 0, sizeof(start));
    uint16_t used[4] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++) {
        int held = 0;
        for (int t = 0; t < 4; t++) {
            held += popcount13[pm[4 * s + t] & 0x1fff];
            used[t] |= pm[4 * s + t] & 0x1fff;
            start.seat[s][t] = pm[4 * s + t] & 0x1fff;
        }
        c.free[s] = 13 - held;
    }
    for (int t = 0; t < 4; t++)
        start.left[t] = 0x1fff & (uint16_t)~used[t];
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
    accepted = malloc(sizeof(int32_t) * (size_t)size);
    vals = malloc(sizeof(int64_t) * (size_t)size * (size_t)(ne ? ne : 1));
    kept = malloc(keep ? 32 * (size_t)size : 1);
    if (!accepted || !vals || !kept)
        goto nomem;
    int stacked = -1;  /* the stacked seat */
    if (stack_cap != Py_None) {
        if (!(masks = malloc(sizeof(uint16_t) * 4 * (size_t)size)))
            goto nomem;
        if (stack_draw(stack_cap, &c.rng, size, masks, &stacked) < 0)
            goto out;
        if (stacked != order[0]) {
            PyErr_SetString(PyExc_ValueError, "the stacked seat is dealt first");
            goto out;
        }
    }
    /* the ranks of the seats (after a stacked one), place after place; those of the places
     * after the last one read (no deal kept) are the stream's last draws: left undrawn */
    int last = keep ? 3 : -1;
    for (Py_ssize_t i = 0; i < c.nnodes; i++) {
        const Node *nd = &c.nodes[i];
        if (nd->kind == K_SUITSUM || nd->kind == K_SHAPE || nd->kind == K_HASCARD) {
            int p = c.pos[nd->kind == K_HASCARD ? nd->a : nd->b];
            last = p > last ? p : last;
        }
    }
    for (int q = stacked >= 0; q <= last; q++) {
        int k = c.free[order[q]];
        if (k == 0 || k == c.left_n[q])
            continue;
        if (!(c.dec[q] = decoder(c.left_n[q], k)) || !(c.ranks[q] = malloc(8 * (size_t)size))
            || (q == 0 && !(masks = malloc(sizeof(uint16_t) * 4 * (size_t)size))))
            goto nomem;
        Pcg g = c.rng;  /* kept in registers */
        const uint64_t total = c.dec[q]->total;
        for (int32_t r = 0; r < size; r++)
            c.ranks[q][r] = below(&g, total);
        c.rng = g;
        for (int32_t r = 0; q == 0 && r < size; r++) {  /* the first seat of every row at once */
            Hands h = start;
            c.h = &h;
            c.row = r;
            deal_one(&c, 0);
            memcpy(masks + 4 * (size_t)r, h.seat[order[0]], 8);
        }
    }
    /* row by row: the condition, then for an accepted row each expression and its deal */
    int32_t m = 0;
    for (int32_t r = 0; r < size; r++) {
        Hands h = start;
        if (masks) {  /* the first seat's hand, stacked or decoded */
            for (int t = 0; t < 4; t++) {
                uint16_t got = masks[r * 4 + t] & h.left[t];
                h.seat[order[0]][t] |= got;
                h.left[t] &= (uint16_t)~got;
            }
            h.depth = 1;
        }
        c.h = &h;
        c.row = r;
        if (!eval(&c, condition))
            continue;
        for (Py_ssize_t e = 0; e < ne; e++)
            vals[e * size + m] = eval(&c, roots[e]);
        if (keep) {
            ensure(&c, order[3]);
            memcpy(kept + 16 * (size_t)m, h.seat, 32);
        }
        accepted[m++] = r;
    }
    if (c.err_node >= 0) {
        PyErr_SetObject(PyExc_ZeroDivisionError, PyLong_FromLong(c.err_node));
        goto out;
    }
    if (!(values = PyTuple_New(ne)))
        goto out;
    for (Py_ssize_t e = 0; e < ne; e++) {
        PyObject *buf = PyBytes_FromStringAndSize((const char *)(vals + e * size),
                                                  (Py_ssize_t)sizeof(int64_t) * m);
        if (!buf)
            goto out;
        PyTuple_SET_ITEM(values, e, buf);
    }
    result = Py_BuildValue("(y#y#O)", (const char *)accepted, (Py_ssize_t)sizeof(int32_t) * m,
                           (const char *)kept, keep ? 32 * (Py_ssize_t)m : 0, values);
    goto out;
nomem:
    PyErr_NoMemory();
out:
    Py_XDECREF(values);
    for (int q = 0; q < 4; q++)
        free(c.ranks[q]);
    free(accepted);
    free(vals);
    free(roots);
    free(kept);
    free(masks);
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

PyDoc_STRVAR(counts_doc,
"counts(values, low, high)\n"
"--\n\n"
"How many of ``values`` (int64 bytes) are below ``low``, each of ``low`` .. ``high``, and\n"
"above ``high``: ``(under, [count, ...], over)`` (a frequency tally's chunk).");

static PyObject *
fast_counts(PyObject *self, PyObject *args)
{
    Py_buffer v;
    long long low, high;
    if (!PyArg_ParseTuple(args, "y*LL", &v, &low, &high))
        return NULL;
    PyObject *out = NULL, *list = NULL;
    /* the values in range go to 1 .. width, the others to 0 and width + 1 */
    uint64_t span = (uint64_t)high - (uint64_t)low, width = high < low ? 0 : span + 1;
    uint64_t *n = v.len % 8 || (high >= low && span >= 1 << 26) ? NULL : calloc(width + 2, 8);
    if (!n) {
        PyErr_SetString(PyExc_ValueError, "bad counts arguments");
        goto done;
    }
    const int64_t *x = v.buf;
    for (Py_ssize_t i = 0; i < v.len / 8; i++)
        n[x[i] < low ? 0 : x[i] > high ? width + 1 : (uint64_t)x[i] - (uint64_t)low + 1]++;
    if (!(list = PyList_New((Py_ssize_t)width)))
        goto done;
    for (uint64_t i = 0; i < width; i++) {
        PyObject *c = PyLong_FromUnsignedLongLong(n[i + 1]);
        if (!c)
            goto done;
        PyList_SET_ITEM(list, (Py_ssize_t)i, c);
    }
    out = Py_BuildValue("(KOK)", (unsigned long long)n[0], list,
                        (unsigned long long)n[width + 1]);
done:
    Py_XDECREF(list);
    free(n);
    PyBuffer_Release(&v);
    return out;
}

static char holding[1 << 13][14];  /* "AKT2" per suit mask (layouts.holdings) */

PyDoc_STRVAR(compact_doc,
"compact(deals, count, oneline, values)\n"
"--\n\n"
"The text layouts.print_flat gives for ``count`` deals (16 uint16 masks each, seat-major,\n"
"as chunk() returns them) printed by one printcompact (or, with ``oneline``, printoneline),\n"
"each followed by its value from ``values`` (int64 bytes) unless that is None.");

static PyObject *
fast_compact(PyObject *self, PyObject *args)
{
    Py_buffer d, v = {0};
    Py_ssize_t count;
    int oneline;
    PyObject *vals, *out = NULL;
    if (!PyArg_ParseTuple(args, "y*npO", &d, &count, &oneline, &vals))
        return NULL;
    char *buf = NULL, *p;
    if (vals != Py_None && PyObject_GetBuffer(vals, &v, PyBUF_SIMPLE) < 0)
        goto done;
    if (count < 0 || d.len < 32 * count || (vals != Py_None && v.len < 8 * count)) {
        PyErr_SetString(PyExc_ValueError, "bad compact arguments");
        goto done;
    }
    if (!(p = buf = malloc(256 * (size_t)count + 1))) {  /* at most 4 x 58 + 22 a deal */
        PyErr_NoMemory();
        goto done;
    }
    const uint16_t *m = d.buf;
    for (Py_ssize_t k = 0; k < count; k++) {
        for (int s = 0; s < 4; s++) {
            *p++ = "nesw"[s];
            *p++ = ' ';
            for (int t = 0; t < 4; t++) {
                for (const char *h = holding[m[16 * k + 4 * s + t] & 0x1fff]; *h; h++)
                    *p++ = *h;
                if (t < 3)
                    *p++ = '.';
            }
            *p++ = oneline ? ' ' : '\n';
        }
        if (vals != Py_None)
            p += sprintf(p, "%lld\n", (long long)((const int64_t *)v.buf)[k]);
        else if (oneline)
            *p++ = '\n';
    }
    out = PyUnicode_DecodeASCII(buf, p - buf, NULL);
done:
    free(buf);
    if (vals != Py_None && v.obj)
        PyBuffer_Release(&v);
    PyBuffer_Release(&d);
    return out;
}

static PyMethodDef methods[] = {
    {"chunk", fast_chunk, METH_VARARGS, chunk_doc},
    {"stacker", fast_stacker, METH_VARARGS, stacker_doc},
    {"integers", fast_integers, METH_VARARGS, integers_doc},
    {"counts", fast_counts, METH_VARARGS, counts_doc},
    {"compact", fast_compact, METH_VARARGS, compact_doc},
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
    for (int m = 0; m < (1 << 13); m++)
        for (int r = 12, at = 0; r >= 0; r--)
            if (m >> r & 1)
                holding[m][at++] = "23456789TJQKA"[r];
    for (int m = 0; m < 128; m++)
        for (int x = 0; x < 128; x++)
            for (int b = 0, i = 0; b < 7; b++)
                spread7[m][x] |= (uint8_t)(m >> b & 1 ? (x >> i++ & 1) << b : 0);
    return PyModule_Create(&module);
}
