/* meteor_lite._accel: paraphrase matches.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

/* ---- paraphrase matches ------------------------------------------------------------ */

/* A word (or a span of a table entry) as code points: kind, data, length, and a hash of them. */
typedef struct {
    int kind;
    const void *data;
    Py_ssize_t start, len;
    uint32_t hash;
} Span;

/* FNV-1a over the code points data[a:b]. */
static uint32_t span_hash(int kind, const void *data, Py_ssize_t a, Py_ssize_t b) {
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = a; i < b; i++) {
        h ^= (uint32_t)PyUnicode_READ(kind, data, i);
        h *= 16777619u;
    }
    return h;
}

/* Do two spans hold the same code points (str equality, whatever their storage kinds)?  Their hashes are not
 * compared: only the first word of a packed paraphrase has one. */
static int span_same_text(const Span *x, const Span *y) {
    if (x->len != y->len) return 0;
    if (x->kind == y->kind)
        return memcmp((const char *)x->data + x->start * x->kind, (const char *)y->data + y->start * y->kind,
                      (size_t)(x->len * x->kind)) == 0;
    for (Py_ssize_t i = 0; i < x->len; i++)
        if (PyUnicode_READ(x->kind, x->data, x->start + i) != PyUnicode_READ(y->kind, y->data, y->start + i)) return 0;
    return 1;
}

/* :func:`span_same_text` of two spans with hashes, which differ for most different words. */
static int span_equal(const Span *x, const Span *y) {
    return x->hash == y->hash && span_same_text(x, y);
}

/* The span of entry[a:b] (entry's kind and data). */
static Span entry_span(int kind, const void *data, Py_ssize_t a, Py_ssize_t b) {
    Span s = {kind, data, a, b - a, span_hash(kind, data, a, b)};
    return s;
}

/* First index >= a and < b holding code point c, or b. */
static Py_ssize_t find_char(int kind, const void *data, Py_ssize_t a, Py_ssize_t b, Py_UCS4 c) {
    if (kind == PyUnicode_1BYTE_KIND && c < 256) {
        const Py_UCS1 *at = a < b ? (const Py_UCS1 *)memchr((const Py_UCS1 *)data + a, (int)c, (size_t)(b - a)) : NULL;
        return at ? at - (const Py_UCS1 *)data : b;
    }
    while (a < b && PyUnicode_READ(kind, data, a) != c) a++;
    return a;
}

/* The words of a tuple as spans (w), chained by hash in a table of `size` buckets (a power of two): head[bucket]
 * is the first position, next[i] the one after i; built from the back, so every chain runs in ascending
 * position.  0, or -1 with an exception set (a word that is not a string). */
static int chain_words(PyObject *words, Span *w, Py_ssize_t *head, Py_ssize_t *next, Py_ssize_t size) {
    for (Py_ssize_t b = 0; b < size; b++) head[b] = -1;
    for (Py_ssize_t i = PyTuple_GET_SIZE(words) - 1; i >= 0; i--) {
        PyObject *o = PyTuple_GET_ITEM(words, i);
        if (!PyUnicode_Check(o)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); return -1; }
        int kind = PyUnicode_KIND(o);
        const void *data = PyUnicode_DATA(o);
        Py_ssize_t len = PyUnicode_GET_LENGTH(o);
        Span sp = {kind, data, 0, len, span_hash(kind, data, 0, len)};
        w[i] = sp;
        next[i] = head[sp.hash & (size - 1)];
        head[sp.hash & (size - 1)] = i;
    }
    return 0;
}

/* Where the paraphrases of table entries occur in `words`.  hits: (start, length, entry) with entry the
 * paraphrases joined by tabs, their words by single spaces (as the bundle stores them); words: a tuple of
 * str.  The words are hashed into a small table whose chains run in ascending position, so each
 * paraphrase's first word finds its occurrences in order without a dict or a new string.  Returns the
 * (start, length, other start, paraphrase length) of every occurrence in Meteor's order, as
 * iter_phrase_matches yields them. */
static PyObject *phrase_matches(PyObject *self, PyObject *args) {
    PyObject *hits, *words;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!:phrase_matches", &PyList_Type, &hits, &PyTuple_Type, &words)) return NULL;
    Py_ssize_t nw = PyTuple_GET_SIZE(words), size = 8;
    while (size < 2 * nw) size *= 2;
    Span *w = PyMem_Malloc(sizeof(Span) * (size_t)(nw ? nw : 1));
    Py_ssize_t *head = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)size);
    Py_ssize_t *next = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(nw ? nw : 1));
    PyObject *out = PyList_New(0);
    if (!w || !head || !next || !out) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    if (chain_words(words, w, head, next, size)) goto fail;
    for (Py_ssize_t h = 0; h < PyList_GET_SIZE(hits); h++) {
        PyObject *hit = PyList_GET_ITEM(hits, h);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(hit, 2))) {
            PyErr_SetString(PyExc_TypeError, "a phrase hit must be a (start, length, table entry) tuple");
            goto fail;
        }
        PyObject *start = PyTuple_GET_ITEM(hit, 0), *k = PyTuple_GET_ITEM(hit, 1), *entry = PyTuple_GET_ITEM(hit, 2);
        int kind = PyUnicode_KIND(entry);
        const void *data = PyUnicode_DATA(entry);
        Py_ssize_t end = PyUnicode_GET_LENGTH(entry);
        for (Py_ssize_t p = 0; p <= end;) {  /* one paraphrase: entry[p:e] */
            Py_ssize_t e = find_char(kind, data, p, end, '\t');
            Py_ssize_t t1 = find_char(kind, data, p, e, ' ');
            Py_ssize_t pl = 1;
            for (Py_ssize_t c = t1; c < e; c = find_char(kind, data, c + 1, e, ' ')) pl++;
            Span first = entry_span(kind, data, p, t1);
            for (Py_ssize_t o = head[first.hash & (size - 1)]; o >= 0; o = next[o]) {
                if (o + pl > nw || !span_equal(&w[o], &first)) continue;
                int same = 1;
                for (Py_ssize_t a = t1 + 1, t = 1; same && t < pl; t++) {  /* the paraphrase's other words */
                    Py_ssize_t b = find_char(kind, data, a, e, ' ');
                    Span s = entry_span(kind, data, a, b);
                    same = span_equal(&w[o + t], &s);
                    a = b + 1;
                }
                if (!same) continue;
                PyObject *ov = PyLong_FromSsize_t(o), *plv = PyLong_FromSsize_t(pl);
                PyObject *t = ov && plv ? PyTuple_Pack(4, start, k, ov, plv) : NULL;
                Py_XDECREF(ov);
                Py_XDECREF(plv);
                if (!t || PyList_Append(out, t) < 0) { Py_XDECREF(t); goto fail; }
                Py_DECREF(t);
            }
            p = e + 1;
        }
    }
    PyMem_Free(w);
    PyMem_Free(head);
    PyMem_Free(next);
    return out;
fail:
    PyMem_Free(w);
    PyMem_Free(head);
    PyMem_Free(next);
    Py_XDECREF(out);
    return NULL;
}
