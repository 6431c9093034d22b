/*
 * meteor_lite.stemmers._english: the English (Porter2) stemmer of Snowball 2.2.0, compiled.
 *
 * The stemmer itself is the Snowball compiler's C output for algorithms/english.sbl and the
 * Snowball C runtime, vendored unchanged in snowball_c/ (its README.md says how they were made).
 * This file is only the CPython binding.  It gives the stems of snowballstemmer 2.2.0's
 * pure-Python EnglishStemmer (generated from the same english.sbl), which stays the
 * reference: meteor_lite/stemmers/compiled.py decides which runs.
 *
 *   stem(word)        the stem of one word, or None when this module declines the word
 *   stem_words(words) a list with the stem of each word, None where it declines
 *
 * It declines (the caller then stems with the pure-Python stemmer) a word holding a character
 * beyond U+FFFF (Meteor 1.5 stems such a word as UTF-16 surrogate pairs, which the pure-Python
 * path reproduces), a word holding a lone surrogate (no UTF-8 form), and a word of more than
 * MAX_BYTES bytes in UTF-8 (the runtime counts in int).
 *
 * The runtime keeps all its state in a struct SN_env (the generated code and the runtime have
 * no mutable global): each call makes its own and frees it, so calls from several threads at
 * once (or with the GIL released by another extension) never share one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "snowball_c/runtime/api.h"
#include "snowball_c/english.h"

#ifndef ENGLISH_SOURCE_SHA256  /* setup.py defines it: the digest of this file and snowball_c/ */
#define ENGLISH_SOURCE_SHA256 "unknown"
#endif

#define MAX_BYTES (1 << 24)

/* The stem of word in env (new reference), Py_None (new reference) when declined, NULL with an error set. */
static PyObject *
stem_one(struct SN_env *env, PyObject *word)
{
    const char *bytes;
    Py_ssize_t size;
    PyObject *encoded = NULL;
    PyObject *result;

    if (!PyUnicode_Check(word)) {
        PyErr_Format(PyExc_TypeError, "a word must be a str, not %.100s", Py_TYPE(word)->tp_name);
        return NULL;
    }
    if (PyUnicode_IS_ASCII(word)) {
        /* an ASCII string's UTF-8 form is its own data: no copy */
        bytes = PyUnicode_AsUTF8AndSize(word, &size);
        if (bytes == NULL)
            return NULL;
    } else {
        if (PyUnicode_KIND(word) == PyUnicode_4BYTE_KIND)  /* compact strings: some character is beyond U+FFFF */
            Py_RETURN_NONE;
        /* a bytes copy rather than PyUnicode_AsUTF8AndSize, which would keep a UTF-8 copy on the str */
        encoded = PyUnicode_AsUTF8String(word);
        if (encoded == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
                return NULL;
            PyErr_Clear();  /* a lone surrogate */
            Py_RETURN_NONE;
        }
        bytes = PyBytes_AS_STRING(encoded);
        size = PyBytes_GET_SIZE(encoded);
    }
    if (size > MAX_BYTES) {
        Py_XDECREF(encoded);
        Py_RETURN_NONE;
    }
    if (SN_set_current(env, (int)size, (const symbol *)bytes) < 0
            || meteor_lite_english_stem(env) < 0) {
        Py_XDECREF(encoded);
        return PyErr_NoMemory();  /* the runtime fails only when an allocation does */
    }
    if (env->l == size && memcmp(env->p, bytes, (size_t)size) == 0) {
        Py_INCREF(word);  /* unchanged: the same object */
        result = word;
    } else {
        result = PyUnicode_DecodeUTF8((const char *)env->p, env->l, "strict");
    }
    Py_XDECREF(encoded);
    return result;
}

static PyObject *
py_stem(PyObject *self, PyObject *word)
{
    struct SN_env *env;
    PyObject *result;

    (void)self;
    env = meteor_lite_english_create_env();
    if (env == NULL)
        return PyErr_NoMemory();
    result = stem_one(env, word);
    meteor_lite_english_close_env(env);
    return result;
}

static PyObject *
py_stem_words(PyObject *self, PyObject *words)
{
    struct SN_env *env;
    PyObject *seq, *out = NULL;
    Py_ssize_t i, n;

    (void)self;
    seq = PySequence_Fast(words, "stem_words() takes a sequence of str");
    if (seq == NULL)
        return NULL;
    env = meteor_lite_english_create_env();
    if (env == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    n = PySequence_Fast_GET_SIZE(seq);
    out = PyList_New(n);
    if (out == NULL)
        goto done;
    for (i = 0; i < n; i++) {
        PyObject *stem = stem_one(env, PySequence_Fast_GET_ITEM(seq, i));
        if (stem == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, stem);
    }
done:
    meteor_lite_english_close_env(env);
    Py_DECREF(seq);
    return out;
}

static PyMethodDef methods[] = {
    {"stem", py_stem, METH_O,
     "stem(word, /)\n--\n\nThe stem of word (snowballstemmer 2.2.0's English), or None when this module declines it."},
    {"stem_words", py_stem_words, METH_O,
     "stem_words(words, /)\n--\n\nA list of the stem of each word, None for each word this module declines."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_english",
    "Snowball 2.2.0's English stemmer compiled (see meteor_lite/stemmers/compiled.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__english(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "SOURCE_SHA256", ENGLISH_SOURCE_SHA256) < 0
            || PyModule_AddIntConstant(m, "MAX_BYTES", MAX_BYTES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
