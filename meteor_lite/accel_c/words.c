/* meteor_lite._accel: words: Java hashes, positions, the exact and stem modules' matcher (key_matches, for the pair
 * kernel's word_candidates, accel_c/pair.c), one-word Match objects.  Part of one translation unit: included by
 * meteor_lite/_accel.c, in order (after the headers it includes, and the parts before this one). */

/* ---- words ------------------------------------------------------------------------- */

/* The one argument of a function of a sequence, as a list or tuple (a new reference), or NULL. */
static PyObject *sequence_arg(PyObject *args, const char *format, const char *message) {
    PyObject *words;
    if (!PyArg_ParseTuple(args, format, &words)) return NULL;
    return PySequence_Fast(words, message);
}

/* Java's String.hashCode() of each word (over UTF-16 code units, a signed 32-bit int), or None when a word
 * holds a lone surrogate (the caller's pure-Python function then decides what that means). */
static PyObject *java_hashes(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq = sequence_arg(args, "O:java_hashes", "words must be a sequence of strings");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (!out) { Py_DECREF(seq); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(w)) {
            PyErr_SetString(PyExc_TypeError, "words must be strings");
            goto fail;
        }
        int kind = PyUnicode_KIND(w);
        const void *data = PyUnicode_DATA(w);
        uint32_t acc = 0;
        for (Py_ssize_t c = 0; c < PyUnicode_GET_LENGTH(w); c++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, c);
            if (ch >= 0xD800 && ch <= 0xDFFF) {  /* a lone surrogate: not ours to decide */
                Py_DECREF(out);
                Py_DECREF(seq);
                Py_RETURN_NONE;
            }
            if (ch > 0xFFFF) {
                Py_UCS4 v = ch - 0x10000;
                acc = acc * 31u + (uint32_t)(0xD800 + (v >> 10));
                acc = acc * 31u + (uint32_t)(0xDC00 + (v & 0x3FF));
            } else {
                acc = acc * 31u + (uint32_t)ch;
            }
        }
        PyObject *h = PyLong_FromLong((long)(int32_t)acc);
        if (!h) goto fail;
        PyList_SET_ITEM(out, i, h);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    Py_DECREF(seq);
    return out;
}

/* The positions of each distinct item of `words`: item -> ascending list of indices. */
static PyObject *positions_of(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq = sequence_arg(args, "O:positions_of", "words must be a sequence");
    if (!seq) return NULL;
    PyObject *out = PyDict_New();
    if (!out) { Py_DECREF(seq); return NULL; }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *w = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *lst = PyDict_GetItemWithError(out, w);
        if (!lst) {
            if (PyErr_Occurred()) goto fail;
            lst = PyList_New(0);
            if (!lst) goto fail;
            int bad = PyDict_SetItem(out, w, lst) < 0;
            Py_DECREF(lst);  /* the dict holds it */
            if (bad) goto fail;
        }
        PyObject *iv = PyLong_FromSsize_t(i);
        if (!iv || PyList_Append(lst, iv) < 0) { Py_XDECREF(iv); goto fail; }
        Py_DECREF(iv);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    Py_DECREF(seq);
    return out;
}

/* The exact and stem modules' matcher: for each reference word j, the hypothesis words i with its key (hk[i] ==
 * rk[j]: the words' Java hashes, or their stems'), positions ascending; with `other`, other words only (the words'
 * hashes hw[i], rw[j] differ): out->add(ctx, j, i) for each.  The hypothesis's words are chained by key in a small
 * table, each chain in ascending position, so each reference word visits only the words with its key.  Reads no
 * Python object (safe without the GIL).  0, or -1 (no memory, or out stopped it) with an exception set. */
static int key_matches(const long long *hk, const long long *hw, Py_ssize_t n1, const long long *rk, const long long *rw,
                       Py_ssize_t n2, int other, const Sink *out) {
    Py_ssize_t size = 8;
    while (size < 2 * n1) size *= 2;
    Py_ssize_t local[64 + 32], *mem = size + n1 <= 64 + 32 ? local : (Py_ssize_t *)malloc((size_t)(size + n1) * sizeof(Py_ssize_t));
    if (!mem) { no_memory(); return -1; }
    Py_ssize_t *head = mem, *next = mem + size;
    for (Py_ssize_t b = 0; b < size; b++) head[b] = -1;
    for (Py_ssize_t i = n1 - 1; i >= 0; i--) {
        size_t b = key_bucket(hk[i], size);
        next[i] = head[b];
        head[b] = i;
    }
    int rc = 0;
    for (Py_ssize_t j = 0; j < n2 && !rc; j++) {
        long long key = rk[j];
        for (Py_ssize_t i = head[key_bucket(key, size)]; i >= 0; i = next[i])
            if (hk[i] == key && (!other || hw[i] != rw[j]) && out->add(out->ctx, j, i) < 0) { rc = -1; break; }
    }
    if (mem != local) free(mem);
    return rc;
}

/* word_matches(cands, positions, module, exact, Match): for each reference word j and each hypothesis
 * position i of positions[j] (ascending), append Match(module, j, 1, i, 1, exact) to cands[j]: the objects
 * Match's __init__ makes (gain and distance by match_ints, as the pair kernel's candidates), built in place. */
static PyObject *word_matches(PyObject *self, PyObject *args) {
    PyObject *cands, *positions, *type;
    long module;
    int exact;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OlpO:word_matches", &PyList_Type, &cands, &positions, &module, &exact, &type))
        return NULL;
    if (match_layout(type) < 0) return NULL;
    PyObject *seq = PySequence_Fast(positions, "positions must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n2 = PySequence_Fast_GET_SIZE(seq);
    if (n2 != PyList_GET_SIZE(cands)) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "positions and cands differ in length");
        return NULL;
    }
    PyObject *one = PyLong_FromLong(1), *mod = PyLong_FromLong(module), *gain = PyLong_FromLong(match_ints(0, 1, 0, 1, exact).gain);
    if (!one || !mod || !gain) goto fail;
    for (Py_ssize_t j = 0; j < n2; j++) {
        PyObject *ps = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, j), "positions[j] must be a sequence");
        if (!ps) goto fail;
        Py_ssize_t np = PySequence_Fast_GET_SIZE(ps);
        if (!np) { Py_DECREF(ps); continue; }
        PyObject *here = PyList_GET_ITEM(cands, j);
        PyObject *jv = PyLong_FromSsize_t(j);
        if (!jv || !PyList_Check(here)) {
            Py_XDECREF(jv); Py_DECREF(ps);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "cands must be a list of lists");
            goto fail;
        }
        for (Py_ssize_t t = 0; t < np; t++) {
            PyObject *iv = PySequence_Fast_GET_ITEM(ps, t);
            Py_ssize_t i = PyLong_AsSsize_t(iv);
            if (i == -1 && PyErr_Occurred()) { Py_DECREF(jv); Py_DECREF(ps); goto fail; }
            PyObject *dv = PyLong_FromLong(match_ints((long)j, 1, (long)i, 1, exact).dist);
            PyObject *m = dv ? m_type->tp_alloc(m_type, 0) : NULL;
            if (!m) { Py_XDECREF(dv); Py_DECREF(jv); Py_DECREF(ps); goto fail; }
            PyObject *vals[7] = {mod, jv, one, iv, one, gain, dv};
            for (int k = 0; k < 7; k++) {
                if (k != 6) Py_INCREF(vals[k]);  /* dv: its own reference passes to the slot */
                *(PyObject **)((char *)m + m_off[k]) = vals[k];
            }
            int bad = PyList_Append(here, m) < 0;
            Py_DECREF(m);
            if (bad) { Py_DECREF(jv); Py_DECREF(ps); goto fail; }
        }
        Py_DECREF(jv);
        Py_DECREF(ps);
    }
    Py_DECREF(one); Py_DECREF(mod); Py_DECREF(gain); Py_DECREF(seq);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(one); Py_XDECREF(mod); Py_XDECREF(gain); Py_DECREF(seq);
    return NULL;
}
