/* meteor_lite._accel: synonyms: the synonym module's matcher (synonym_matches), for the pair kernel
 * (synonym_candidates, accel_c/pair.c) and its per-function twin (synonym_pairs).  Part of one translation unit:
 * included by meteor_lite/_accel.c, in order (after the headers it includes, and the parts before this one). */

/* ---- synonyms ---------------------------------------------------------------------- */

/* A sentence's synset ids as the synonym matcher reads them: word i's are vals[start[i]..start[i + 1]] (n words);
 * and, for the side it looks ids up in (the hypothesis), their index (synsets_index): the ids chained by bucket,
 * head[key_bucket(id, size)] the first, next[k] the one after id k, pos[k] id k's word. */
typedef struct {
    Py_ssize_t n;
    long long *vals;
    Py_ssize_t *start;
    Py_ssize_t *pos, *head, *next, size;  /* NULL until indexed */
} Synsets;

static void synsets_free(Synsets *s) {
    free(s->vals);
    free(s->start);
    free(s->pos);
    free(s->head);
    free(s->next);
}

/* The index of s's ids (see Synsets).  0, or -1 with an exception set. */
static int synsets_index(Synsets *s) {
    Py_ssize_t total = s->start[s->n];
    s->size = 8;
    while (s->size < 2 * total) s->size *= 2;
    s->pos = (Py_ssize_t *)malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    s->next = (Py_ssize_t *)malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    s->head = (Py_ssize_t *)malloc((size_t)s->size * sizeof(Py_ssize_t));
    if (!s->pos || !s->next || !s->head) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t b = 0; b < s->size; b++) s->head[b] = -1;
    for (Py_ssize_t i = 0; i < s->n; i++)
        for (Py_ssize_t k = s->start[i]; k < s->start[i + 1]; k++) {
            size_t bucket = key_bucket(s->vals[k], s->size);
            s->pos[k] = i;
            s->next[k] = s->head[bucket];
            s->head[bucket] = k;
        }
    return 0;
}

/* The synonym module's matcher: for each reference word j, the hypothesis words i sharing a synset with it (looked
 * up in h's index, marked in a row of flags), positions ascending, other words only (their hashes hw[i], rw[j]
 * differ): out->add(ctx, j, i) for each.  Reads no Python object (safe without the GIL).  0, or -1 (no memory, or
 * out stopped it) with an exception set. */
static int synonym_matches(const Synsets *h, const long long *hw, const Synsets *r, const long long *rw, const Sink *out) {
    Py_ssize_t n1 = h->n;
    unsigned char *row = (unsigned char *)malloc((size_t)n1 + 1);
    if (!row) { no_memory(); return -1; }
    int rc = 0;
    for (Py_ssize_t j = 0; j < r->n && !rc; j++) {
        if (r->start[j + 1] == r->start[j]) continue;
        memset(row, 0, (size_t)n1 + 1);
        int any = 0;
        for (Py_ssize_t k = r->start[j]; k < r->start[j + 1]; k++) {
            long long v = r->vals[k];
            for (Py_ssize_t e = h->head[key_bucket(v, h->size)]; e >= 0; e = h->next[e])
                if (h->vals[e] == v) { row[h->pos[e]] = 1; any = 1; }
        }
        for (Py_ssize_t i = 0; any && i < n1; i++)
            if (row[i] && hw[i] != rw[j] && out->add(out->ctx, j, i) < 0) { rc = -1; break; }
    }
    free(row);
    return rc;
}

/* The ids of each set of `sets` (a list of sets of ints) into s (unindexed; its arrays freed by synsets_free, also
 * on failure).  0, or -1 with an exception set. */
static int synsets_of(PyObject *sets, Synsets *s) {
    Py_ssize_t n = PyList_GET_SIZE(sets), total = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyList_GET_ITEM(sets, k);
        if (!PyAnySet_Check(x)) { PyErr_SetString(PyExc_TypeError, "synsets must be sets"); return -1; }
        total += PySet_GET_SIZE(x);
    }
    s->n = n;
    s->vals = (long long *)malloc((total + 1) * sizeof(long long));
    s->start = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    if (!s->vals || !s->start) { PyErr_NoMemory(); return -1; }
    Py_ssize_t t = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        s->start[k] = t;
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
            s->vals[t++] = v;
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) return -1;
    }
    s->start[n] = t;
    return 0;
}

static int long_array(PyObject *lst, long long *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = PyLong_AsLongLong(PyList_GET_ITEM(lst, i));
        if (out[i] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* synonym_pairs(yh, yr, hk, rk): per reference word, the hypothesis positions sharing a synset with it (other words,
 * ascending): the pairwise branch of matches.synonym_positions, by synonym_matches. */
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
    long long *w = (long long *)malloc((n1 + n2 + 1) * sizeof(long long));
    Synsets sh = {0, NULL, NULL, NULL, NULL, NULL, 0}, sr = sh;
    PyObject *out = NULL;
    if (!w) return PyErr_NoMemory();
    if (long_array(hk, w, n1) || long_array(rk, w + n1, n2) || synsets_of(yh, &sh) || synsets_of(yr, &sr)
        || synsets_index(&sh) || !(out = position_rows(n2)))
        goto done;
    Sink sink = {row_append, out};
    if (synonym_matches(&sh, w, &sr, w + n1, &sink) < 0) Py_CLEAR(out);
done:
    free(w);
    synsets_free(&sh);
    synsets_free(&sr);
    return out;
}
