/* The smart stacker of nomic_cards.bridge's compiled dealing loop (see fast.py; _fast.c deals
 * the other seats). */
#include "_fast.h"

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

const char stacker_doc[] =
"stacker(seat, cumulative, cells, row_cells, cell_add, sizes, part, suits)\n"
"--\n\n"
"A capsule for chunk(): the tables of SeatSampler.export (int64 bytes; ``suits`` four tuples\n"
"``(ia, ib, prev, prof, off_flat, off_vec, codes, order)``).";

PyObject *
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

int
stack_draw(PyObject *capsule, Pcg *g, int32_t size, uint16_t *masks, int *seat)
{
    const Stacker *st = PyCapsule_GetPointer(capsule, STACKER);
    if (!st)
        return -1;
    *seat = st->seat;
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
