/* Optional compiled accelerator of nomic_cards.poker.evaluate for its common case.
 *
 * It reads the same shipped tables as the pure-Python path (handed over by
 * nomic_cards/poker/evaluate.py through init()) and returns the same shared HandValue objects.
 * It handles 5 to 7 natural cards (codes 0...51, repeats allowed) of the high game without a
 * wild set; anything else -- other arguments, jokers, other sizes, anything that is not a list
 * or tuple of ints -- goes to the pure-Python evaluate unchanged, so results and errors are
 * those of the pure-Python path (a test checks every 5-card hand and samples of larger ones).
 *
 * The value: the counts of each rank form the key of the rank multiset, split into the parts
 * A (ranks 2...5), B (6...9) and C (10...A) of nomic_cards/poker/layout.py; its dense index is
 * SC[n][C] + OB[n - |C|][B] + DA[A] and G[n][index] the best non-flush value. A suit with five
 * or more different ranks gives a flush, FLK5[ranks of the suit], and the better value wins.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define N_BUFFERS 9 /* G5 G6 G7 FLK5 DA OB SC5 SC6 SC7 */

static Py_buffer buffers[N_BUFFERS];
static int ready = 0;
static PyObject *fallback = NULL;   /* the pure-Python evaluate */
static PyObject *values = NULL;     /* list: value -> HandValue, or None until made */
static PyObject *make_value = NULL; /* callable: value -> HandValue (fills the list) */
static PyObject *high = NULL;       /* "high" */

static const int16_t *G[8];
static const int16_t *FLK5;
static const int32_t *DA, *OB, *SC[8];

static PyObject *
call_fallback(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return PyObject_Vectorcall(fallback, args, nargs, kwnames);
}

static PyObject *
accel_evaluate(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *cards, *wild = Py_None, *game = high;
    Py_ssize_t n_kw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

    if (!ready || nargs < 1 || nargs + n_kw > 3)
        return call_fallback(args, nargs, kwnames);
    cards = args[0];
    if (nargs > 1)
        wild = args[1];
    if (nargs > 2)
        game = args[2];
    for (Py_ssize_t i = 0; i < n_kw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        if (PyUnicode_CompareWithASCIIString(name, "wild") == 0 && nargs < 2)
            wild = args[nargs + i];
        else if (PyUnicode_CompareWithASCIIString(name, "game") == 0 && nargs < 3)
            game = args[nargs + i];
        else
            return call_fallback(args, nargs, kwnames);
    }
    if (wild != Py_None || (game != high && !(PyUnicode_Check(game) &&
                                               PyUnicode_Compare(game, high) == 0)))
        return call_fallback(args, nargs, kwnames);

    PyObject **items;
    Py_ssize_t n;
    if (PyList_CheckExact(cards)) {
        items = ((PyListObject *)cards)->ob_item;
        n = PyList_GET_SIZE(cards);
    } else if (PyTuple_CheckExact(cards)) {
        items = ((PyTupleObject *)cards)->ob_item;
        n = PyTuple_GET_SIZE(cards);
    } else {
        return call_fallback(args, nargs, kwnames);
    }
    if (n < 5 || n > 7)
        return call_fallback(args, nargs, kwnames);

    int counts[13] = {0};
    uint32_t suit[4] = {0, 0, 0, 0};
    int in_suit[4] = {0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        if (!PyLong_CheckExact(item))
            return call_fallback(args, nargs, kwnames);
        long code = PyLong_AsLong(item);
        if (code < 0 || code > 51) { /* negative: an error; 52 and up: jokers */
            if (code == -1 && PyErr_Occurred())
                PyErr_Clear();
            return call_fallback(args, nargs, kwnames);
        }
        int d = (int)(code % 13), s = (int)(code / 13);
        counts[d]++;
        suit[s] |= 1u << d;
        in_suit[s]++;
    }
    uint32_t a = 0, b = 0, c = 0;
    int c_size = 0;
    for (int d = 0; d < 4; d++)
        a |= (uint32_t)counts[d] << (3 * d);
    for (int d = 4; d < 8; d++)
        b |= (uint32_t)counts[d] << (3 * (d - 4));
    for (int d = 8; d < 13; d++) {
        c |= (uint32_t)counts[d] << (3 * (d - 8));
        c_size += counts[d];
    }
    int v = G[n][SC[n][c] + OB[((n - c_size) << 12) | b] + DA[a]];
    for (int s = 0; s < 4; s++) {
        if (in_suit[s] >= 5) {
            int f = FLK5[suit[s]];
            if (f > v)
                v = f;
        }
    }
    if (v < 0 || v >= PyList_GET_SIZE(values)) /* not a value of the high game: never */
        return call_fallback(args, nargs, kwnames);
    PyObject *hv = PyList_GET_ITEM(values, v);
    if (hv == Py_None)
        return PyObject_CallFunction(make_value, "i", v);
    Py_INCREF(hv);
    return hv;
}

static int
take_buffer(PyObject *obj, int i, Py_ssize_t itemsize, Py_ssize_t count)
{
    if (PyObject_GetBuffer(obj, &buffers[i], PyBUF_SIMPLE) < 0)
        return -1;
    if (buffers[i].len != itemsize * count) {
        PyErr_Format(PyExc_ValueError, "table %d has %zd bytes, expected %zd", i,
                     buffers[i].len, itemsize * count);
        PyBuffer_Release(&buffers[i]);
        buffers[i].obj = NULL;
        return -1;
    }
    return 0;
}

static PyObject *
accel_init(PyObject *self, PyObject *args)
{
    PyObject *fb, *vals, *make, *g5, *g6, *g7, *flk5, *da, *ob, *sc5, *sc6, *sc7;
    if (!PyArg_ParseTuple(args, "OO!OOOOOOOOOO", &fb, &PyList_Type, &vals, &make, &g5, &g6, &g7,
                          &flk5, &da, &ob, &sc5, &sc6, &sc7))
        return NULL;
    if (ready) { /* set up again (the module was reloaded): drop the old tables first */
        ready = 0;
        for (int i = 0; i < N_BUFFERS; i++)
            PyBuffer_Release(&buffers[i]);
        Py_CLEAR(fallback);
        Py_CLEAR(values);
        Py_CLEAR(make_value);
    }
    PyObject *objs[N_BUFFERS] = {g5, g6, g7, flk5, da, ob, sc5, sc6, sc7};
    Py_ssize_t sizes[N_BUFFERS] = {2, 2, 2, 2, 4, 4, 4, 4, 4};
    Py_ssize_t counts[N_BUFFERS] = {8568, 27132, 77520, 8192, 4096, 8 << 12,
                                    1 << 15, 1 << 15, 1 << 15};
    for (int i = 0; i < N_BUFFERS; i++) {
        if (take_buffer(objs[i], i, sizes[i], counts[i]) < 0) {
            for (int j = 0; j < i; j++)
                PyBuffer_Release(&buffers[j]);
            return NULL;
        }
    }
    G[5] = buffers[0].buf;
    G[6] = buffers[1].buf;
    G[7] = buffers[2].buf;
    FLK5 = buffers[3].buf;
    DA = buffers[4].buf;
    OB = buffers[5].buf;
    SC[5] = buffers[6].buf;
    SC[6] = buffers[7].buf;
    SC[7] = buffers[8].buf;
    Py_INCREF(fb);
    Py_INCREF(vals);
    Py_INCREF(make);
    fallback = fb;
    values = vals;
    make_value = make;
    ready = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(evaluate_doc,
"evaluate($module, /, cards, wild=None, game='high')\n--\n\n"
"Value of the best five of ``cards`` (5 or more) in a game.\n\n"
"``cards``: text (``'As Ks Qs Js Th'``), or a list of codes, strings or\n"
":class:`~nomic_cards.cards.Card`. ``wild``: ``None``, a preset (``'deuces'``), text or cards.\n"
"``game``: ``high`` (default), ``a5``, ``27`` or ``low8`` (the 8-or-better low of high/low\n"
"split games; ``None`` when the hand has no qualifying low).\n\n"
"(The compiled accelerator of the pure-Python evaluate, which it calls for anything but\n"
"5 to 7 natural cards of the high game without a wild set.)");

static PyMethodDef methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))accel_evaluate, METH_FASTCALL | METH_KEYWORDS,
     evaluate_doc},
    {"init", accel_init, METH_VARARGS,
     "init(fallback, values, make_value, g5, g6, g7, flk5, da, ob, sc5, sc6, sc7)\n--\n\n"
     "Hand over the pure-Python evaluate, the value cache and the tables."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accel",
    "Optional compiled accelerator of nomic_cards.poker.evaluate (see _accel.c).", -1, methods,
};

PyMODINIT_FUNC
PyInit__accel(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    high = PyUnicode_InternFromString("high");
    if (high == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
