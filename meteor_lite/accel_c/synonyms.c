/* meteor_lite._accel: synonyms.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

/* ---- synonyms ---------------------------------------------------------------------- */

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The elements of each set of `sets` (ints), one after another in *values (each set's sorted when `sort`); set
 * k's run is start[k]..start[k+1].  0, or -1 with an exception set. */
static int set_runs(PyObject *sets, long long **values, Py_ssize_t **start, int sort) {
    Py_ssize_t n = PyList_GET_SIZE(sets), total = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyList_GET_ITEM(sets, k);
        if (!PyAnySet_Check(x)) { PyErr_SetString(PyExc_TypeError, "synsets must be sets"); return -1; }
        total += PySet_GET_SIZE(x);
    }
    *values = (long long *)malloc((total + 1) * sizeof(long long));
    *start = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    if (!*values || !*start) { PyErr_NoMemory(); return -1; }
    Py_ssize_t t = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        (*start)[k] = t;
        PyObject *it = PyObject_GetIter(PyList_GET_ITEM(sets, k)), *x;
        if (!it) return -1;
        while ((x = PyIter_Next(it)) != NULL) {
            long long v = PyLong_AsLongLong(x);
            Py_DECREF(x);
            if (v == -1 && PyErr_Occurred()) { Py_DECREF(it); return -1; }
            if (t == total) {  /* a set grew while it was read (its elements' hooks run Python code) */
                Py_DECREF(it);
                PyErr_SetString(PyExc_RuntimeError, "a synset set changed size while it was read");
                return -1;
            }
            (*values)[t++] = v;
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) return -1;
        if (sort) qsort(*values + (*start)[k], (size_t)(t - (*start)[k]), sizeof(long long), cmp_ll);
    }
    (*start)[n] = t;
    return 0;
}

/* Do two sorted runs share a value? */
static int runs_meet(const long long *a, Py_ssize_t na, const long long *b, Py_ssize_t nb) {
    Py_ssize_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (a[i] == b[j]) return 1;
        if (a[i] < b[j]) i++; else j++;
    }
    return 0;
}

static int long_array(PyObject *lst, long long *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PyList_GET_ITEM(lst, i));
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *synonym_pairs(PyObject *self, PyObject *args) {
    PyObject *yh, *yr, *hk, *rk;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!:synonym_pairs", &PyList_Type, &yh, &PyList_Type, &yr, &PyList_Type, &hk,
                          &PyList_Type, &rk))
        return NULL;
    Py_ssize_t n1 = PyList_GET_SIZE(yh), n2 = PyList_GET_SIZE(yr);
    if (PyList_GET_SIZE(hk) != n1 || PyList_GET_SIZE(rk) != n2) {
        PyErr_SetString(PyExc_ValueError, "one hash per word is needed");
        return NULL;
    }
    long long *h = (long long *)malloc((n1 + n2 + 1) * sizeof(long long));
    long long *vh = NULL, *vr = NULL;
    Py_ssize_t *sh = NULL, *sr = NULL;
    PyObject *out = NULL;
    if (!h) return PyErr_NoMemory();
    if (long_array(hk, h, n1) || long_array(rk, h + n1, n2) || set_runs(yh, &vh, &sh, 1) || set_runs(yr, &vr, &sr, 1))
        goto done;
    out = PyList_New(n2);
    if (!out) goto done;
    for (Py_ssize_t j = 0; j < n2; j++) {
        PyObject *row = PyList_New(0);
        if (!row) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, j, row);
        Py_ssize_t nj = sr[j + 1] - sr[j];
        if (nj == 0) continue;
        for (Py_ssize_t i = 0; i < n1; i++) {
            Py_ssize_t ni = sh[i + 1] - sh[i];
            if (ni == 0 || h[i] == h[n1 + j] || !runs_meet(vh + sh[i], ni, vr + sr[j], nj)) continue;
            PyObject *iv = PyLong_FromSsize_t(i);
            if (!iv || PyList_Append(row, iv) < 0) { Py_XDECREF(iv); Py_CLEAR(out); goto done; }
            Py_DECREF(iv);
        }
    }
done:
    free(h); free(vh); free(vr); free(sh); free(sr);
    return out;
}
