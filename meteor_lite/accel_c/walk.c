/* meteor_lite._accel: the paraphrase table's walk.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

/* ---- the paraphrase table's walk ------------------------------------------------------ */

/* The truth of a value just looked up under `key` (NULL: missing, a KeyError unless another error is set):
 * 1, 0, or -1 with an exception set. */
static int truth_of(PyObject *value, PyObject *key) {
    if (!value) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
        return -1;
    }
    return PyObject_IsTrue(value);
}

/* One length of the walk: for each (sentence, start, n-gram) of `active`, record the n-gram's paraphrases
 * in hits[sentence] as (start, n, paraphrases) when it has some, and (with `grow`) extend it by the next word
 * when it begins a longer phrase.  Returns (the extended n-grams, those of them not in `paras`). */
static PyObject *walk_level(PyObject *self, PyObject *args) {
    PyObject *active, *paras, *prefix, *sentences, *hits;
    Py_ssize_t n;
    int grow;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!npO!:walk_level", &PyList_Type, &active, &PyDict_Type, &paras, &PyDict_Type,
                          &prefix, &PyList_Type, &sentences, &n, &grow, &PyList_Type, &hits))
        return NULL;
    PyObject *nobj = PyLong_FromSsize_t(n), *space = PyUnicode_FromString(" ");
    PyObject *longer = PyList_New(0), *unknown = PySet_New(NULL);
    if (!nobj || !space || !longer || !unknown) goto fail;
    for (Py_ssize_t a = 0; a < PyList_GET_SIZE(active); a++) {
        PyObject *st = PyList_GET_ITEM(active, a);
        if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 3) {
            PyErr_SetString(PyExc_TypeError, "a walk state must be a (sentence, start, n-gram) tuple");
            goto fail;
        }
        PyObject *k = PyTuple_GET_ITEM(st, 0), *i = PyTuple_GET_ITEM(st, 1), *g = PyTuple_GET_ITEM(st, 2);
        Py_ssize_t kv = PyLong_AsSsize_t(k);
        if (kv == -1 && PyErr_Occurred()) goto fail;
        if (kv < 0 || kv >= PyList_GET_SIZE(hits) || kv >= PyList_GET_SIZE(sentences)) {
            PyErr_SetString(PyExc_IndexError, "sentence index out of range");
            goto fail;
        }
        PyObject *found = PyDict_GetItemWithError(paras, g);
        int has = truth_of(found, g);
        if (has < 0) goto fail;
        if (has) {
            PyObject *t = PyTuple_Pack(3, i, nobj, found);
            if (!t || PyList_Append(PyList_GET_ITEM(hits, kv), t) < 0) { Py_XDECREF(t); goto fail; }
            Py_DECREF(t);
        }
        if (!grow) continue;
        int begins = truth_of(PyDict_GetItemWithError(prefix, g), g);
        if (begins < 0) goto fail;
        if (!begins) continue;
        PyObject *sent = PyList_GET_ITEM(sentences, kv);
        Py_ssize_t iv = PyLong_AsSsize_t(i), len = PySequence_Size(sent);
        if ((iv == -1 || len == -1) && PyErr_Occurred()) goto fail;
        if (iv + n >= len) continue;
        PyObject *w = PySequence_GetItem(sent, iv + n);
        if (!w) goto fail;
        PyObject *head = PyUnicode_Concat(g, space);
        PyObject *ng = head ? PyUnicode_Concat(head, w) : NULL;
        Py_XDECREF(head);
        Py_DECREF(w);
        if (!ng) goto fail;
        PyObject *t = PyTuple_Pack(3, k, i, ng);
        int known = PyDict_Contains(paras, ng);
        int bad = !t || known < 0 || PyList_Append(longer, t) < 0 || (!known && PySet_Add(unknown, ng) < 0);
        Py_XDECREF(t);
        Py_DECREF(ng);
        if (bad) goto fail;
    }
    Py_DECREF(nobj);
    Py_DECREF(space);
    PyObject *res = PyTuple_Pack(2, longer, unknown);
    Py_DECREF(longer);
    Py_DECREF(unknown);
    return res;
fail:
    Py_XDECREF(nobj);
    Py_XDECREF(space);
    Py_XDECREF(longer);
    Py_XDECREF(unknown);
    return NULL;
}
