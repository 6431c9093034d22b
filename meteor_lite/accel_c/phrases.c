/* meteor_lite._accel: paraphrase matches: the paraphrase module's matcher (entry_matches), for the pair kernel
 * (paraphrase_candidates, accel_c/pair.c) and its per-function twin (phrase_matches).  Part of one translation unit:
 * included by meteor_lite/_accel.c, in order (after the headers it includes, and the parts before this one). */

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
 * compared: only a paraphrase's first word has one. */
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

/* A sentence's words as the paraphrase matcher looks them up: n spans, chained by hash in a table of `size` buckets
 * (a power of two): head[hash & (size - 1)] is a bucket's first position, next[i] the one after i, every chain in
 * ascending position. */
typedef struct {
    Py_ssize_t n, size;
    Span *w;
    Py_ssize_t *head, *next;
} WordIndex;

static void word_index_free(WordIndex *x) {
    free(x->w);
    free(x->head);
    free(x->next);
}

/* The WordIndex of `words` (a tuple of str) into x (its arrays freed by word_index_free, also on failure); the spans
 * point into the words.  0, or -1 with an exception set (a word that is not a string). */
static int word_index(PyObject *words, WordIndex *x) {
    Py_ssize_t n = PyTuple_GET_SIZE(words), size = 8;
    while (size < 2 * n) size *= 2;
    x->n = n;
    x->size = size;
    x->w = (Span *)malloc(((size_t)n + 1) * sizeof(Span));
    x->head = (Py_ssize_t *)malloc((size_t)size * sizeof(Py_ssize_t));
    x->next = (Py_ssize_t *)malloc(((size_t)n + 1) * sizeof(Py_ssize_t));
    if (!x->w || !x->head || !x->next) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t b = 0; b < size; b++) x->head[b] = -1;
    for (Py_ssize_t i = n - 1; i >= 0; i--) {  /* from the back: every chain runs in ascending position */
        PyObject *o = PyTuple_GET_ITEM(words, i);
        if (!PyUnicode_Check(o)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); return -1; }
        int kind = PyUnicode_KIND(o);
        const void *data = PyUnicode_DATA(o);
        Py_ssize_t len = PyUnicode_GET_LENGTH(o);
        Span sp = {kind, data, 0, len, span_hash(kind, data, 0, len)};
        x->w[i] = sp;
        x->next[i] = x->head[sp.hash & (size - 1)];
        x->head[sp.hash & (size - 1)] = i;
    }
    return 0;
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

/* One paraphrase of a table entry: text[start..end) (no tab), its first word text[start..first_end) (first_end the
 * first space, or end) with its span_hash; every space ends a word, so a paraphrase has at least one (maybe empty). */
typedef struct {
    int32_t start, first_end, end;
    uint32_t hash;
} Para;

/* A table entry's paraphrases (joined by tabs, their words by single spaces, as the bundle stores them) as the
 * matcher reads them: npara paraphrases (every tab ends one) over the entry's code points (kind, data). */
typedef struct ParsedEntry {
    PyObject *text;          /* the entry (a strong reference when cached) */
    int kind;
    const void *data;
    Py_ssize_t npara;
    Para *para;
} ParsedEntry;

/* The paraphrases an entry is parsed into (at most one more than its length), kept from one entry to the next. */
typedef struct {
    Para *para;
    Py_ssize_t cap;
} EntryScratch;

/* The paraphrases of `entry` (a str), in one pass into s, which *view then describes (valid until s is parsed into
 * again).  0, or -1 with an exception set. */
static int parse_into(PyObject *entry, EntryScratch *s, ParsedEntry *view) {
    int kind = PyUnicode_KIND(entry);
    const void *data = PyUnicode_DATA(entry);
    Py_ssize_t end = PyUnicode_GET_LENGTH(entry);
    if (end > INT32_MAX - 2) { PyErr_SetString(PyExc_ValueError, "a paraphrase entry is too long"); return -1; }
    if (end + 1 > s->cap) {
        Py_ssize_t cap = s->cap ? s->cap : 64;
        while (cap < end + 1) cap *= 2;
        Para *grown = (Para *)realloc(s->para, (size_t)cap * sizeof(Para));
        if (!grown) { PyErr_NoMemory(); return -1; }
        s->para = grown;
        s->cap = cap;
    }
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0;; k++) {  /* one paraphrase: entry[p:e] */
        Py_ssize_t e = find_char(kind, data, p, end, '\t'), t1 = find_char(kind, data, p, e, ' ');
        Para q = {(int32_t)p, (int32_t)t1, (int32_t)e, span_hash(kind, data, p, t1)};
        s->para[k] = q;
        if (e >= end) break;
        p = e + 1;
    }
    view->text = entry;
    view->kind = kind;
    view->data = data;
    view->npara = k + 1;
    view->para = s->para;
    return 0;
}

/* The pack's parsing arrays, kept between calls (the GIL is held and no Python code runs while it parses). */
static EntryScratch parse_scratch;

/* `entry` parsed into one block of memory of its own (the pair kernel's packed sentences keep their entries so, and
 * its parse cache).  NULL with an exception set. */
static ParsedEntry *parse_entry(PyObject *entry) {
    ParsedEntry v;
    if (parse_into(entry, &parse_scratch, &v) < 0) return NULL;
    ParsedEntry *pe = (ParsedEntry *)malloc(sizeof(ParsedEntry) + (size_t)v.npara * sizeof(Para));
    if (!pe) { PyErr_NoMemory(); return NULL; }
    *pe = v;
    pe->para = (Para *)(pe + 1);
    memcpy(pe->para, v.para, (size_t)v.npara * sizeof(Para));
    return pe;
}

/* The paraphrase module's matcher: where the paraphrases of the entry pe occur in the words `to`, paraphrase by
 * paraphrase in table order, each one's starts ascending: out->add(ctx, start, paraphrase length) for each.  A
 * paraphrase's first word is looked up by its hash; its other words are read off the entry where it occurs.  Reads
 * no Python object (safe without the GIL).  0, or -1 when out stopped it. */
static int entry_matches(const ParsedEntry *pe, const WordIndex *to, const Sink *out) {
    int kind = pe->kind;
    const void *data = pe->data;
    for (Py_ssize_t q = 0; q < pe->npara; q++) {
        const Para *para = &pe->para[q];
        Span first = {kind, data, para->start, para->first_end - para->start, para->hash};
        for (Py_ssize_t o = to->head[first.hash & (to->size - 1)]; o >= 0; o = to->next[o]) {
            if (!span_equal(&to->w[o], &first)) continue;
            Py_ssize_t k = 1, a = para->first_end;
            int same = 1;
            while (same && a < para->end) {  /* a space at a: word k follows */
                Py_ssize_t b = find_char(kind, data, a + 1, para->end, ' ');
                Span wk = {kind, data, a + 1, b - a - 1, 0};
                same = o + k < to->n && span_same_text(&to->w[o + k], &wk);
                k++;
                a = b;
            }
            if (same && out->add(out->ctx, o, k) < 0) return -1;
        }
    }
    return 0;
}

/* phrase_matches' Sink: (start, length, other start, paraphrase length) appended to `out`, start and length the
 * hit's own objects. */
typedef struct {
    PyObject *out, *start, *len;
} PhraseRows;

static int phrase_row(void *ctx, Py_ssize_t o, Py_ssize_t pl) {
    PhraseRows *c = (PhraseRows *)ctx;
    PyObject *ov = PyLong_FromSsize_t(o), *plv = PyLong_FromSsize_t(pl);
    PyObject *t = ov && plv ? PyTuple_Pack(4, c->start, c->len, ov, plv) : NULL;
    Py_XDECREF(ov);
    Py_XDECREF(plv);
    int bad = !t || PyList_Append(c->out, t) < 0;
    Py_XDECREF(t);
    return bad ? -1 : 0;
}

/* phrase_matches(hits, words): where the paraphrases of table entries occur in `words`, by entry_matches.  hits:
 * (start, length, entry) with entry the paraphrases joined by tabs, their words by single spaces (as the bundle
 * stores them); words: a tuple of str.  Each entry is parsed once into arrays of this call's own (a finalizer run
 * while the result grows may pack sentences, which parse into the pack's).  Returns the (start, length, other start,
 * paraphrase length) of every occurrence in Meteor's order, as iter_phrase_matches yields them. */
static PyObject *phrase_matches(PyObject *self, PyObject *args) {
    PyObject *hits, *words;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!:phrase_matches", &PyList_Type, &hits, &PyTuple_Type, &words)) return NULL;
    WordIndex to = {0, 0, NULL, NULL, NULL};
    EntryScratch scratch = {NULL, 0};
    PyObject *out = PyList_New(0);
    if (!out || word_index(words, &to) < 0) goto fail;
    for (Py_ssize_t h = 0; h < PyList_GET_SIZE(hits); h++) {
        PyObject *hit = PyList_GET_ITEM(hits, h);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(hit, 2))) {
            PyErr_SetString(PyExc_TypeError, "a phrase hit must be a (start, length, table entry) tuple");
            goto fail;
        }
        Py_INCREF(hit);  /* its entry is read while the result grows (which may run Python code) */
        ParsedEntry pe;
        PhraseRows rows = {out, PyTuple_GET_ITEM(hit, 0), PyTuple_GET_ITEM(hit, 1)};
        Sink sink = {phrase_row, &rows};
        int bad = parse_into(PyTuple_GET_ITEM(hit, 2), &scratch, &pe) < 0 || entry_matches(&pe, &to, &sink) < 0;
        Py_DECREF(hit);
        if (bad) goto fail;
    }
    word_index_free(&to);
    free(scratch.para);
    return out;
fail:
    word_index_free(&to);
    free(scratch.para);
    Py_XDECREF(out);
    return NULL;
}
