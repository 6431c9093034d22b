/* meteor_lite._accel: the mapped table file.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

/* ---- the mapped table file (meteor_lite/resources/mapped.py) ------------------------------------------------ */

/* The file's layout is described in mapped.py: per table, 8-byte slots (the key's CRC-32 in the high half, its
 * record's offset in the low half, 0 when empty; probed linearly from crc & (n-1)) and records (key: 2-byte
 * length and UTF-8 bytes, then the table's value).  Every read is checked against the file's length: a damaged
 * file raises ValueError, never reads outside the mapping. */

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

/* The running state of zlib.crc32 after the bytes, from state c (0xFFFFFFFF at the start; the CRC is the final
 * state ^ 0xFFFFFFFF): a key's CRC continues its prefix's. */
static inline uint32_t crc32_update(uint32_t c, const unsigned char *p, Py_ssize_t n) {
    while (n-- > 0) c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c;
}

/* zlib.crc32 of the bytes. */
static uint32_t crc32_of(const unsigned char *p, Py_ssize_t n) {
    return crc32_update(0xFFFFFFFFu, p, n) ^ 0xFFFFFFFFu;
}

static inline uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static inline uint32_t rd32(const unsigned char *p) { return rd16(p) | (rd16(p + 2) << 16); }
static inline uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }

typedef struct {
    const unsigned char *base;
    Py_ssize_t size;     /* the file's length */
    Py_ssize_t off;      /* the slots' offset */
    Py_ssize_t nslots;   /* a power of two, or 0 for a table the file lacks */
} MTable;

static PyObject *mt_damaged(void) {
    PyErr_SetString(PyExc_ValueError, "the mapped table file is damaged (a record reaches past its end)");
    return NULL;
}

/* The mapping of `data` (kept in *view: release it) and one table of it; -1 with an exception set. */
static int mt_open(PyObject *data, Py_buffer *view, Py_ssize_t off, Py_ssize_t nslots, MTable *t) {
    if (PyObject_GetBuffer(data, view, PyBUF_SIMPLE) < 0) return -1;
    t->base = (const unsigned char *)view->buf;
    t->size = view->len;
    t->off = off;
    t->nslots = nslots;
    if (off < 0 || nslots < 0 || (nslots & (nslots - 1)) || (nslots && (off > view->len || nslots > (view->len - off) / 8))) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "the table's slots are not within the mapped file");
        return -1;
    }
    return 0;
}

/* The offset of the value of `key` (its CRC-32 `crc`) in the table, probing from slot i on (the first slot of its
 * chain, or a later one of it): -1 when the table lacks it, -2 when the file is damaged. */
static Py_ssize_t mt_find_from(const MTable *t, const unsigned char *key, Py_ssize_t klen, uint32_t crc, size_t i) {
    size_t mask = (size_t)t->nslots - 1;
    for (Py_ssize_t probes = 0; probes < t->nslots; probes++, i = (i + 1) & mask) {
        uint64_t slot = rd64(t->base + t->off + 8 * i);
        if (!slot) return -1;
        if ((uint32_t)(slot >> 32) != crc) continue;
        Py_ssize_t rec = (Py_ssize_t)(slot & 0xFFFFFFFFu);
        if (rec > t->size - 2) return -2;
        Py_ssize_t kl = (Py_ssize_t)rd16(t->base + rec);
        if (kl > t->size - rec - 2) return -2;
        if (kl == klen && memcmp(t->base + rec + 2, key, (size_t)klen) == 0) return rec + 2 + kl;
    }
    return -1;
}

/* The offset of the value of `key` in the table, -1 when the table lacks it, -2 when the file is damaged. */
static Py_ssize_t mt_find(const MTable *t, const unsigned char *key, Py_ssize_t klen) {
    if (!t->nslots) return -1;
    uint32_t crc = crc32_of(key, klen);
    return mt_find_from(t, key, klen, crc, crc & ((size_t)t->nslots - 1));
}

#if defined(__GNUC__) || defined(__clang__)
#define MT_PREFETCH(p) __builtin_prefetch(p)
#else
#define MT_PREFETCH(p) ((void)0)
#endif

/* Look up `count` keys at once (keys[k] of length lens[k], crc[k] its CRC-32; found[k] is set as mt_find returns):
 * the slots of all are asked of memory before any is read, then the records of those whose first slot holds
 * their hash, so that the cache misses of a batch overlap instead of following one another. */
static void mt_find_many(const MTable *t, const unsigned char *const *keys, const Py_ssize_t *lens, Py_ssize_t count,
                         const uint32_t *crc, Py_ssize_t *found) {
    if (!t->nslots) {
        for (Py_ssize_t k = 0; k < count; k++) found[k] = -1;
        return;
    }
    size_t mask = (size_t)t->nslots - 1;
    for (Py_ssize_t k = 0; k < count; k++) MT_PREFETCH(t->base + t->off + 8 * (crc[k] & mask));
    for (Py_ssize_t k = 0; k < count; k++) {  /* the first slot: empty (absent), or the record to fetch */
        uint64_t slot = rd64(t->base + t->off + 8 * (crc[k] & mask));
        found[k] = slot ? 0 : -1;
        if (slot && (uint32_t)(slot >> 32) == crc[k] && (Py_ssize_t)(slot & 0xFFFFFFFFu) <= t->size - 2)
            MT_PREFETCH(t->base + (slot & 0xFFFFFFFFu));
    }
    for (Py_ssize_t k = 0; k < count; k++)
        if (found[k] == 0) found[k] = mt_find_from(t, keys[k], lens[k], crc[k], crc[k] & mask);
}

/* A 2-byte-length text at *pos as a str (NULL with an exception set); *pos moves past it. */
static PyObject *mt_text16(const MTable *t, Py_ssize_t *pos) {
    if (*pos > t->size - 2) return mt_damaged();
    Py_ssize_t n = (Py_ssize_t)rd16(t->base + *pos);
    if (n > t->size - *pos - 2) return mt_damaged();
    PyObject *s = PyUnicode_DecodeUTF8((const char *)t->base + *pos + 2, n, "strict");
    *pos += 2 + n;
    return s;
}

/* Add the synset ids of the synsets-table value at pos (a 2-byte count, 8-byte ids) to the set `ids`: 0, or -1 with
 * an exception set. */
static int mt_add_ids(const MTable *t, Py_ssize_t pos, PyObject *ids) {
    if (pos > t->size - 2) { mt_damaged(); return -1; }
    Py_ssize_t count = (Py_ssize_t)rd16(t->base + pos);
    if (count > (t->size - pos - 2) / 8) { mt_damaged(); return -1; }
    for (Py_ssize_t j = 0; j < count; j++) {
        PyObject *v = PyLong_FromLongLong((long long)rd64(t->base + pos + 2 + 8 * j));
        int r = v ? PySet_Add(ids, v) : -1;
        Py_XDECREF(v);
        if (r < 0) return -1;
    }
    return 0;
}

/* A frozenset of the synset ids in the set `ids`, untracked by the cyclic collector: a set of ints is in no
 * reference cycle, and the scorer caches thousands of them (see int_tuple).  NULL with an exception set. */
static PyObject *frozen_ids(PyObject *ids) {
    PyObject *f = PyFrozenSet_New(ids);
    if (f && PyObject_GC_IsTracked(f)) PyObject_GC_UnTrack(f);
    return f;
}

/* The value of a record at pos: kind 0 a stem (str), 1 synset ids (frozenset), 2 base forms (list of str). */
static PyObject *mt_value(const MTable *t, int kind, Py_ssize_t pos) {
    if (kind == 0) return mt_text16(t, &pos);
    if (kind == 1) {
        PyObject *ids = PySet_New(NULL);
        PyObject *set = ids && mt_add_ids(t, pos, ids) == 0 ? frozen_ids(ids) : NULL;
        Py_XDECREF(ids);
        return set;
    }
    if (pos > t->size - 2) return mt_damaged();
    Py_ssize_t count = (Py_ssize_t)rd16(t->base + pos);
    pos += 2;
    PyObject *bases = PyList_New(count);
    for (Py_ssize_t j = 0; bases && j < count; j++) {
        PyObject *b = mt_text16(t, &pos);
        if (!b) { Py_CLEAR(bases); break; }
        PyList_SET_ITEM(bases, j, b);
    }
    return bases;
}

/* A paraphrase-table record at pos: its flags, and where its entry's bytes are in the file (*eoff, *elen; *eoff
 * is -1 when it has none); -1 with an exception set when damaged. */
static int mt_phrase(const MTable *t, Py_ssize_t pos, int *flags, Py_ssize_t *eoff, Py_ssize_t *elen) {
    if (pos > t->size - 1) { mt_damaged(); return -1; }
    *flags = t->base[pos];
    *eoff = -1;
    *elen = 0;
    if (*flags & 2) {
        if (pos + 1 > t->size - 8) { mt_damaged(); return -1; }
        Py_ssize_t o = (Py_ssize_t)rd32(t->base + pos + 1), n = (Py_ssize_t)rd32(t->base + pos + 5);
        if (o > t->size || n > t->size - o) { mt_damaged(); return -1; }
        *eoff = o;
        *elen = n;
    }
    return 0;
}

/* An entry's text, read with pread from the file descriptor `fd` where there is one (the entries' pages then stay
 * in the system's file cache, out of the process's memory), else from the mapping. */
static PyObject *mt_entry(const MTable *t, int fd, Py_ssize_t off, Py_ssize_t n) {
#ifndef _WIN32
    if (fd >= 0) {
        char small[512] = {0};
        char *buf = n <= (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)n);
        if (!buf) return PyErr_NoMemory();
        Py_ssize_t got = 0;
        while (got < n) {
            ssize_t r = pread(fd, buf + got, (size_t)(n - got), (off_t)(off + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                if (buf != small) PyMem_Free(buf);
                if (r < 0) return PyErr_SetFromErrno(PyExc_OSError);
                return mt_damaged();
            }
            got += r;
        }
        PyObject *e = PyUnicode_DecodeUTF8(buf, n, "strict");
        if (buf != small) PyMem_Free(buf);
        return e;
    }
#endif
    (void)fd;
    return PyUnicode_DecodeUTF8((const char *)t->base + off, n, "strict");
}

/* The paraphrase entries read lately, by their offset in the file: an open-addressing table in a capsule
 * (entry_cache()), so that finding an entry read before makes no int object and no dict look-up (a dict keyed by
 * offsets cost about 330 instructions a hit, a third of a walk's work). */
typedef struct {
    size_t cap, count;    /* cap: a power of two, at least twice count */
    int64_t *keys;        /* an offset, or -1 for an empty slot */
    PyObject **vals;      /* the entries' texts (owned) */
} EntryCache;

static const char *const ENTRY_CACHE_NAME = "meteor_lite._accel.EntryCache";

static void ec_clear(EntryCache *c) {
    for (size_t i = 0; i < c->cap; i++)
        if (c->keys[i] >= 0) {
            c->keys[i] = -1;
            Py_CLEAR(c->vals[i]);
        }
    c->count = 0;
}

static void ec_destroy(PyObject *capsule) {
    EntryCache *c = (EntryCache *)PyCapsule_GetPointer(capsule, ENTRY_CACHE_NAME);
    if (!c) return;
    ec_clear(c);
    free(c->keys);
    free(c->vals);
    free(c);
}

/* The slot of `key`: where it is, or the empty slot where it goes. */
static size_t ec_slot(const int64_t *keys, size_t cap, int64_t key) {
    size_t i = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
    while (keys[i] >= 0 && keys[i] != key) i = (i + 1) & (cap - 1);
    return i;
}

/* Room for `cap` slots (a power of two), the entries moved; 0, or -1 with an exception set. */
static int ec_resize(EntryCache *c, size_t cap) {
    int64_t *keys = (int64_t *)malloc(cap * sizeof(int64_t));
    PyObject **vals = (PyObject **)calloc(cap, sizeof(PyObject *));
    if (!keys || !vals) { free(keys); free(vals); PyErr_NoMemory(); return -1; }
    for (size_t i = 0; i < cap; i++) keys[i] = -1;
    for (size_t i = 0; i < c->cap; i++)
        if (c->keys[i] >= 0) {
            size_t j = ec_slot(keys, cap, c->keys[i]);
            keys[j] = c->keys[i];
            vals[j] = c->vals[i];
        }
    free(c->keys);
    free(c->vals);
    c->keys = keys;
    c->vals = vals;
    c->cap = cap;
    return 0;
}

/* entry_cache(): a new, empty cache of entries for mapped_find and mapped_walk. */
static PyObject *entry_cache(PyObject *self, PyObject *noargs) {
    (void)self; (void)noargs;
    EntryCache *c = (EntryCache *)calloc(1, sizeof(EntryCache));
    if (!c) return PyErr_NoMemory();
    if (ec_resize(c, 1024) < 0) { free(c); return NULL; }
    PyObject *capsule = PyCapsule_New(c, ENTRY_CACHE_NAME, ec_destroy);
    if (!capsule) { free(c->keys); free(c->vals); free(c); }
    return capsule;
}

static EntryCache *ec_of(PyObject *capsule) {
    return (EntryCache *)PyCapsule_GetPointer(capsule, ENTRY_CACHE_NAME);  /* NULL with an exception set */
}

/* entry_cache_len(cache): the entries it holds. */
static PyObject *entry_cache_len(PyObject *self, PyObject *capsule) {
    (void)self;
    EntryCache *c = ec_of(capsule);
    return c ? PyLong_FromSize_t(c->count) : NULL;
}

/* entry_cache_clear(cache): empty it (its texts are released). */
static PyObject *entry_cache_clear(PyObject *self, PyObject *capsule) {
    (void)self;
    EntryCache *c = ec_of(capsule);
    if (!c) return NULL;
    ec_clear(c);
    Py_RETURN_NONE;
}

/* A cache argument checked: None (no cache) or an entry_cache(). */
static int cache_arg_ok(PyObject *cache) {
    if (cache == Py_None || PyCapsule_IsValid(cache, ENTRY_CACHE_NAME)) return 1;
    PyErr_SetString(PyExc_TypeError, "cache must be None or an entry_cache()");
    return 0;
}

/* mt_entry through `cache` (see cache_arg_ok); a new reference, or NULL with an exception set. */
static PyObject *mt_entry_cached(const MTable *t, int fd, Py_ssize_t off, Py_ssize_t n, PyObject *cache) {
    if (cache == Py_None) return mt_entry(t, fd, off, n);
    EntryCache *c = ec_of(cache);
    if (!c) return NULL;
    size_t i = ec_slot(c->keys, c->cap, (int64_t)off);
    if (c->keys[i] < 0) {
        PyObject *e = mt_entry(t, fd, off, n);
        if (!e) return NULL;
        if (2 * (c->count + 1) > c->cap && ec_resize(c, 2 * c->cap) < 0) { Py_DECREF(e); return NULL; }
        i = ec_slot(c->keys, c->cap, (int64_t)off);  /* again: decoding may have run a finalizer that used it */
        if (c->keys[i] < 0) {
            c->keys[i] = (int64_t)off;
            c->vals[i] = e;  /* the cache's reference */
            c->count++;
        } else {
            Py_DECREF(e);
        }
    }
    Py_INCREF(c->vals[i]);
    return c->vals[i];
}

/* mapped_find(data, fd, off, nslots, kind, keys, cache=None) (cache: see mt_entry_cached): the look-ups of MappedTables (kinds 0-2: a dict of the keys found;
 * kind 3, the paraphrase table: (entries, the keys that begin a longer phrase)). */
static PyObject *mapped_find(PyObject *self, PyObject *args) {
    PyObject *data, *keys, *cache = Py_None;
    Py_ssize_t off, nslots;
    int kind, fd;
    (void)self;
    if (!PyArg_ParseTuple(args, "OinniO!|O:mapped_find", &data, &fd, &off, &nslots, &kind, &PyList_Type, &keys, &cache))
        return NULL;
    if (!cache_arg_ok(cache)) return NULL;
    if (kind < 0 || kind > 3) { PyErr_SetString(PyExc_ValueError, "kind is 0-3"); return NULL; }
    Py_buffer view;
    MTable t;
    if (mt_open(data, &view, off, nslots, &t) < 0) return NULL;
    PyObject *found = PyDict_New();
    PyObject *begins = kind == 3 ? PySet_New(NULL) : NULL;
    if (!found || (kind == 3 && !begins)) goto fail;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(keys); k++) {
        PyObject *key = PyList_GET_ITEM(keys, k);
        Py_ssize_t klen;
        const char *kb = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &klen) : NULL;
        if (!kb) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "keys must be strings");
            goto fail;
        }
        Py_ssize_t pos = mt_find(&t, (const unsigned char *)kb, klen);
        if (pos == -2) { mt_damaged(); goto fail; }
        if (pos < 0) continue;
        if (kind < 3) {
            PyObject *v = mt_value(&t, kind, pos);
            int bad = !v || PyDict_SetItem(found, key, v) < 0;
            Py_XDECREF(v);
            if (bad) goto fail;
            continue;
        }
        int flags;
        Py_ssize_t eoff, elen;
        if (mt_phrase(&t, pos, &flags, &eoff, &elen) < 0) goto fail;
        if ((flags & 1) && PySet_Add(begins, key) < 0) goto fail;
        if (eoff >= 0) {
            PyObject *e = mt_entry_cached(&t, fd, eoff, elen, cache);
            int bad = !e || PyDict_SetItem(found, key, e) < 0;
            Py_XDECREF(e);
            if (bad) goto fail;
        }
    }
    PyBuffer_Release(&view);
    if (kind < 3) return found;
    PyObject *pair = PyTuple_Pack(2, found, begins);
    Py_DECREF(found);
    Py_DECREF(begins);
    return pair;
fail:
    PyBuffer_Release(&view);
    Py_XDECREF(found);
    Py_XDECREF(begins);
    return NULL;
}

/* Append the synset ids of the key (UTF-8) in the synsets table to `ids`: 1 found, 0 absent, -1 error. */
static int mt_add_synsets(const MTable *syn, const unsigned char *key, Py_ssize_t klen, PyObject *ids) {
    Py_ssize_t pos = mt_find(syn, key, klen);
    if (pos == -2) { mt_damaged(); return -1; }
    if (pos < 0) return 0;
    return mt_add_ids(syn, pos, ids) < 0 ? -1 : 1;
}

/* Java's length of a UTF-8 string (UTF-16 units: two for a character beyond U+FFFF). */
static Py_ssize_t utf16_units(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t units = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) units++;
        if ((s[i] & 0xF8) == 0xF0) units++;
    }
    return units;
}

/* mapped_synsets(data, fd, syn_off, syn_n, exc_off, exc_n, words, rules): Resources.synsets's sets for new words
 * over a mapped file: a word's own synsets, plus those of its base forms from the exception lists when it is
 * listed there, else those of the first candidate of `rules` (WordNet's detachment rules: (suffix, ending) pairs,
 * lookups.MORPH_RULES, tried in order) that has synsets; no candidate for a word ending in "ss" or of at most two
 * UTF-16 units.  Returns a list of frozensets, one per word. */
static PyObject *mapped_synsets(PyObject *self, PyObject *args) {
    PyObject *data, *words, *rules;
    Py_ssize_t soff, sn, eoff, en;
    int fd;
    (void)self;
    if (!PyArg_ParseTuple(args, "OinnnnO!O!:mapped_synsets", &data, &fd, &soff, &sn, &eoff, &en, &PyList_Type, &words,
                          &PyTuple_Type, &rules))
        return NULL;
    (void)fd;
    Py_ssize_t nrules = PyTuple_GET_SIZE(rules);
    if (nrules > 64) { PyErr_SetString(PyExc_ValueError, "at most 64 rules"); return NULL; }
    const char *suf[64], *end[64];
    Py_ssize_t suflen[64], endlen[64];
    for (Py_ssize_t k = 0; k < nrules; k++) {
        PyObject *r = PyTuple_GET_ITEM(rules, k);
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(r, 0))
            || !PyUnicode_Check(PyTuple_GET_ITEM(r, 1))) {
            PyErr_SetString(PyExc_TypeError, "rules must be (suffix, ending) pairs of strings");
            return NULL;
        }
        suf[k] = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(r, 0), &suflen[k]);
        end[k] = suf[k] ? PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(r, 1), &endlen[k]) : NULL;
        if (!end[k]) return NULL;
    }
    Py_buffer view, view2;
    MTable syn, exc;
    if (mt_open(data, &view, soff, sn, &syn) < 0) return NULL;
    if (mt_open(data, &view2, eoff, en, &exc) < 0) { PyBuffer_Release(&view); return NULL; }
    PyObject *out = PyList_New(PyList_GET_SIZE(words));
    unsigned char *cand = NULL;
    size_t cand_cap = 0;
    if (!out) goto fail;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(words); k++) {
        PyObject *w = PyList_GET_ITEM(words, k);
        Py_ssize_t n;
        const unsigned char *s = PyUnicode_Check(w) ? (const unsigned char *)PyUnicode_AsUTF8AndSize(w, &n) : NULL;
        if (!s) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "words must be strings");
            goto fail;
        }
        PyObject *ids = PySet_New(NULL);
        if (!ids) goto fail;
        int ok = mt_add_synsets(&syn, s, n, ids) >= 0;
        Py_ssize_t pos = ok ? mt_find(&exc, s, n) : -1;
        if (pos == -2) { mt_damaged(); ok = 0; }
        if (ok && pos >= 0) {  /* listed: the synsets of each of its base forms */
            if (pos > exc.size - 2) { mt_damaged(); ok = 0; }
            Py_ssize_t count = ok ? (Py_ssize_t)rd16(exc.base + pos) : 0;
            pos += 2;
            for (Py_ssize_t j = 0; ok && j < count; j++) {
                if (pos > exc.size - 2) { mt_damaged(); ok = 0; break; }
                Py_ssize_t bl = (Py_ssize_t)rd16(exc.base + pos);
                if (bl > exc.size - pos - 2) { mt_damaged(); ok = 0; break; }
                ok = mt_add_synsets(&syn, exc.base + pos + 2, bl, ids) >= 0;
                pos += 2 + bl;
            }
        } else if (ok && n > 0 && !(n >= 2 && s[n - 1] == 's' && s[n - 2] == 's') && utf16_units(s, n) > 2) {
            for (Py_ssize_t r = 0; ok && r < nrules; r++) {  /* the first candidate base form that has synsets */
                if (suflen[r] > n || memcmp(s + n - suflen[r], suf[r], (size_t)suflen[r]) != 0) continue;
                size_t need = (size_t)(n - suflen[r] + endlen[r]);
                if (need > cand_cap) {
                    unsigned char *c2 = PyMem_Realloc(cand, need * 2 + 16);
                    if (!c2) { PyErr_NoMemory(); ok = 0; break; }
                    cand = c2;
                    cand_cap = need * 2 + 16;
                }
                memcpy(cand, s, (size_t)(n - suflen[r]));
                memcpy(cand + n - suflen[r], end[r], (size_t)endlen[r]);
                int got = mt_add_synsets(&syn, cand, (Py_ssize_t)need, ids);
                if (got < 0) ok = 0;
                if (got != 0) break;
            }
        }
        PyObject *frozen = ok ? frozen_ids(ids) : NULL;
        Py_DECREF(ids);
        if (!frozen) goto fail;
        PyList_SET_ITEM(out, k, frozen);
    }
    PyMem_Free(cand);
    PyBuffer_Release(&view);
    PyBuffer_Release(&view2);
    return out;
fail:
    PyMem_Free(cand);
    PyBuffer_Release(&view);
    PyBuffer_Release(&view2);
    Py_XDECREF(out);
    return NULL;
}

/* A phrase found by the walk: its first word, its length in words, where its entry is (eoff -1: none). */
typedef struct {
    Py_ssize_t start, n, eoff, elen;
} WalkHit;

/* The walk's working memory, grown as needed and freed once. */
typedef struct {
    const char **wb;            /* each word's UTF-8 */
    Py_ssize_t *wl, words_cap;
    Py_ssize_t *act, *nact;     /* the starts of the n-grams of this length, and of the next */
    const unsigned char **keys;
    Py_ssize_t *klen, *found;
    uint32_t *crc;
    char *gram;
    size_t gram_cap;
    WalkHit *hits, *spare;      /* spare: as large as hits, for sorting them */
    size_t nhits, hits_cap;
    Py_ssize_t *bucket;         /* per start (and one more): where its hits go when they are sorted */
    uint32_t *state;            /* per start: the CRC state of its n-gram of the current length */
} WalkMem;

static void walk_mem_free(WalkMem *m) {
    PyMem_Free(m->wb); PyMem_Free(m->wl); PyMem_Free(m->act); PyMem_Free(m->nact); PyMem_Free((void *)m->keys);
    PyMem_Free(m->klen); PyMem_Free(m->found); PyMem_Free(m->crc); PyMem_Free(m->gram); PyMem_Free(m->hits);
    PyMem_Free(m->spare); PyMem_Free(m->bucket); PyMem_Free(m->state);
}

/* Room for a sentence of `len` words; 0 or -1 (no memory). */
static int walk_mem_words(WalkMem *m, Py_ssize_t len) {
    if (len <= m->words_cap) return 0;
    size_t n = (size_t)len;
#define WALK_GROW(field, type) do { type *x = PyMem_Realloc((void *)m->field, n * sizeof(type)); if (!x) return -1; m->field = x; } while (0)
    WALK_GROW(wb, const char *);
    WALK_GROW(wl, Py_ssize_t);
    WALK_GROW(act, Py_ssize_t);
    WALK_GROW(nact, Py_ssize_t);
    WALK_GROW(keys, const unsigned char *);
    WALK_GROW(klen, Py_ssize_t);
    WALK_GROW(found, Py_ssize_t);
    WALK_GROW(crc, uint32_t);
    WALK_GROW(state, uint32_t);
    n = (size_t)len + 1;
    WALK_GROW(bucket, Py_ssize_t);
#undef WALK_GROW
    m->words_cap = len;
    return 0;
}

/* m->hits sorted by start, then length: a counting sort by start, in the order they were found (each length's
 * hits one after another, the lengths in increasing order), so each start's hits stay in increasing length. */
static void sort_walk_hits(WalkMem *m, Py_ssize_t len) {
    if (m->nhits < 2) return;
    Py_ssize_t *b = m->bucket;
    for (Py_ssize_t i = 0; i <= len; i++) b[i] = 0;
    for (size_t h = 0; h < m->nhits; h++) b[m->hits[h].start + 1]++;
    for (Py_ssize_t i = 1; i <= len; i++) b[i] += b[i - 1];
    for (size_t h = 0; h < m->nhits; h++) m->spare[b[m->hits[h].start]++] = m->hits[h];
    WalkHit *t = m->hits;
    m->hits = m->spare;
    m->spare = t;
}

/* The phrases of one sentence (its words in m->wb/m->wl) in m->hits, by start then length: one length at a time,
 * the n-grams of each length looked up together (mt_find_many); an n-gram is extended by a word while it begins a
 * longer phrase, is shorter than max_len words and the sentence goes on.  0, or -1 with an exception set. */
static int walk_sentence(const MTable *t, WalkMem *m, Py_ssize_t len, Py_ssize_t max_len) {
    m->nhits = 0;
    Py_ssize_t nact = len;
    for (Py_ssize_t i = 0; i < len; i++) m->act[i] = i;
    for (Py_ssize_t n = 1; nact > 0; n++) {
        size_t need = 0;  /* the bytes of this length's n-grams */
        for (Py_ssize_t a = 0; a < nact; a++) {
            for (Py_ssize_t k = 0; k < n; k++) need += (size_t)m->wl[m->act[a] + k] + 1;
        }
        if (need > m->gram_cap) {
            char *g = PyMem_Realloc(m->gram, need * 2);
            if (!g) { PyErr_NoMemory(); return -1; }
            m->gram = g;
            m->gram_cap = need * 2;
        }
        size_t at = 0;
        for (Py_ssize_t a = 0; a < nact; a++) {
            size_t from = at;
            Py_ssize_t i = m->act[a];
            for (Py_ssize_t k = 0; k < n; k++) {
                if (k) m->gram[at++] = ' ';
                memcpy(m->gram + at, m->wb[i + k], (size_t)m->wl[i + k]);
                at += (size_t)m->wl[i + k];
            }
            m->klen[a] = (Py_ssize_t)(at - from);
            m->keys[a] = (const unsigned char *)m->gram + from;
            /* the CRC continues the (n - 1)-gram's: only the space and the new word are read */
            uint32_t c = n == 1 ? 0xFFFFFFFFu : crc32_update(m->state[i], (const unsigned char *)" ", 1);
            m->state[i] = c = crc32_update(c, (const unsigned char *)m->wb[i + n - 1], m->wl[i + n - 1]);
            m->crc[a] = c ^ 0xFFFFFFFFu;
        }
        mt_find_many(t, m->keys, m->klen, nact, m->crc, m->found);
        Py_ssize_t next = 0;
        for (Py_ssize_t a = 0; a < nact; a++) {
            Py_ssize_t pos = m->found[a], i = m->act[a];
            if (pos == -2) { mt_damaged(); return -1; }
            if (pos < 0) continue;
            int flags;
            Py_ssize_t eoff, elen;
            if (mt_phrase(t, pos, &flags, &eoff, &elen) < 0) return -1;
            if (eoff >= 0 && elen > 0) {
                if (m->nhits == m->hits_cap) {
                    size_t cap = m->hits_cap ? 2 * m->hits_cap : 64;
                    WalkHit *h = PyMem_Realloc(m->hits, cap * sizeof(WalkHit));
                    if (h) m->hits = h;
                    WalkHit *sp = h ? PyMem_Realloc(m->spare, cap * sizeof(WalkHit)) : NULL;
                    if (!sp) { PyErr_NoMemory(); return -1; }
                    m->spare = sp;
                    m->hits_cap = cap;
                }
                WalkHit hit = {i, n, eoff, elen};
                m->hits[m->nhits++] = hit;
            }
            if ((flags & 1) && n < max_len && i + n < len) m->nact[next++] = i;
        }
        Py_ssize_t *swap = m->act;
        m->act = m->nact;
        m->nact = swap;
        nact = next;
    }
    sort_walk_hits(m, len);
    return 0;
}

/* The phrases of a sentence of `len` words (`words`, which must be str) in m->hits: the words' UTF-8 read into
 * m->wb/m->wl, then walk_sentence.  0, or -1 with an exception set. */
static int walk_words(const MTable *t, WalkMem *m, PyObject *const *words, Py_ssize_t len, Py_ssize_t max_len) {
    if (walk_mem_words(m, len) < 0) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *w = words[i];
        m->wb[i] = PyUnicode_Check(w) ? PyUnicode_AsUTF8AndSize(w, &m->wl[i]) : NULL;
        if (!m->wb[i]) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "words must be strings");
            return -1;
        }
    }
    return walk_sentence(t, m, len, max_len);
}

/* mapped_walk(data, fd, off, nslots, sentences, max_len, cache=None): walk_held over the mapped paraphrase table: each
 * sentence's (start, length, entry) of the phrases that have a non-empty entry, by start then length; an n-gram
 * is extended while it begins a longer phrase, up to max_len words (walk_sentence). */
static PyObject *mapped_walk(PyObject *self, PyObject *args) {
    PyObject *data, *sentences, *cache = Py_None;
    Py_ssize_t off, nslots, max_len;
    int fd;
    (void)self;
    if (!PyArg_ParseTuple(args, "OinnO!n|O:mapped_walk", &data, &fd, &off, &nslots, &PyList_Type, &sentences, &max_len,
                          &cache))
        return NULL;
    if (!cache_arg_ok(cache)) return NULL;
    Py_buffer view;
    MTable t;
    if (mt_open(data, &view, off, nslots, &t) < 0) return NULL;
    PyObject *out = PyList_New(PyList_GET_SIZE(sentences));
    WalkMem m;
    memset(&m, 0, sizeof m);
    if (!out) goto fail;
    for (Py_ssize_t s = 0; s < PyList_GET_SIZE(sentences); s++) {
        PyObject *seq = PySequence_Fast(PyList_GET_ITEM(sentences, s), "a sentence must be a sequence of words");
        if (!seq) goto fail;
        int bad = walk_words(&t, &m, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq), max_len) < 0;
        Py_DECREF(seq);  /* its words' UTF-8 (m.wb) is not read after the walk */
        PyObject *hits = bad ? NULL : PyList_New((Py_ssize_t)m.nhits);
        for (size_t h = 0; hits && h < m.nhits; h++) {
            const WalkHit *x = &m.hits[h];
            PyObject *e = mt_entry_cached(&t, fd, x->eoff, x->elen, cache);
            PyObject *hit = hit_tuple(x->start, x->n, e);
            if (!hit) { Py_CLEAR(hits); break; }
            PyList_SET_ITEM(hits, (Py_ssize_t)h, hit);
        }
        if (!hits) goto fail;
        PyList_SET_ITEM(out, s, hits);
    }
    walk_mem_free(&m);
    PyBuffer_Release(&view);
    return out;
fail:
    walk_mem_free(&m);
    PyBuffer_Release(&view);
    Py_XDECREF(out);
    return NULL;
}

/* walk_for_pack's working memory, kept between calls (the GIL is held and no Python code runs while it walks). */
static WalkMem pack_walk_mem;

static int walk_for_pack(PyObject *spec, PyObject *words, Py_ssize_t *nh, long **start, long **len, PyObject **entries) {
    PyObject *data, *cache;
    Py_ssize_t off, nslots, max_len;
    int fd;
    if (!PyArg_ParseTuple(spec, "OinnnO", &data, &fd, &off, &nslots, &max_len, &cache)) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "a table to walk is (data, fd, offset, slots, max_len, entry_cache())");
        }
        return -1;
    }
    if (!PyCapsule_IsValid(cache, ENTRY_CACHE_NAME)) {
        PyErr_SetString(PyExc_TypeError, "a table to walk needs an entry_cache()");
        return -1;
    }
    Py_buffer view;
    MTable t;
    if (mt_open(data, &view, off, nslots, &t) < 0) return -1;
    WalkMem *m = &pack_walk_mem;
    int rc = -1;
    if (walk_words(&t, m, PySequence_Fast_ITEMS(words), PyTuple_GET_SIZE(words), max_len) < 0) goto done;
    Py_ssize_t k = (Py_ssize_t)m->nhits;
    *start = (long *)malloc((size_t)(k + 1) * sizeof(long));
    *len = (long *)malloc((size_t)(k + 1) * sizeof(long));
    *entries = PyTuple_New(k);
    if (!*start || !*len || !*entries) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    for (Py_ssize_t h = 0; h < k; h++) {
        const WalkHit *x = &m->hits[h];
        PyObject *e = mt_entry_cached(&t, fd, x->eoff, x->elen, cache);
        if (!e) goto done;
        PyTuple_SET_ITEM(*entries, h, e);
        (*start)[h] = (long)x->start;
        (*len)[h] = (long)x->n;
    }
    *nh = k;
    rc = 0;
done:
    PyBuffer_Release(&view);
    return rc;
}
