/* meteor_lite._accel: one pair, aligned and counted (the pair kernel and its matchers).  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

/* ---- one pair, aligned and counted ------------------------------------------------------- */

/* One sentence as align_stats reads it, packed once by pack_words from its words' records: Java hashes of its
 * words and of their stems, its synset ids per word with their index (Synsets, the synonym matcher's), function-word
 * flags, length units, its words as spans chained by hash (WordIndex, the paraphrase matcher's), and its
 * paraphrase-table phrases, each with its table entry parsed (ParsedEntry: the parse cache's, kept alive with it, or
 * one of the sentence's own); the words' and the entries' texts are kept alive by `view`. */
typedef struct {
    Py_ssize_t n;
    long long *hash, *stem;              /* stem: NULL without the module */
    Synsets syn;                         /* its arrays NULL without the module */
    char *func;
    long *len;
    WordIndex words;
    Py_ssize_t nhits;                    /* its table phrases: phrase h is words hit_start[h]..+hit_len[h] */
    long *hit_start, *hit_len;
    const struct ParsedEntry **hit_entry; /* phrase h's entry, parsed: the parse cache's or one of owned */
    struct ParsedEntry **owned;          /* entries parsed for this sentence alone (not kept by the cache) */
    Py_ssize_t nowned;
    int has_hits;
    PyObject *view;                      /* the words and the entries' texts, which the spans point into */
    PyObject *cache;                     /* the parse cache holding the other entries (kept alive), or NULL */
} Packed;

static const char *const PACKED_NAME = "meteor_lite._accel.Packed";

static void packed_free(Packed *p) {
    if (!p) return;
    free(p->hash); free(p->stem); free(p->func); free(p->len); free(p->hit_start); free(p->hit_len);
    synsets_free(&p->syn);
    word_index_free(&p->words);
    free(p->hit_entry);
    for (Py_ssize_t k = 0; k < p->nowned; k++) free(p->owned[k]);
    free(p->owned);
    Py_XDECREF(p->view);
    Py_XDECREF(p->cache);
    free(p);
}

static void packed_destroy(PyObject *capsule) {
    packed_free((Packed *)PyCapsule_GetPointer(capsule, PACKED_NAME));
}

/* Parsed entries by their text (its address: the cache holds a reference to each text, so no other object has
 * it while cached): most entries come back in sentence after sentence, and parsing one cost more than packing the
 * rest of its sentence.  An open-addressing table in a capsule (parse_cache()), filled with the first `max`
 * entries met and then left as it is: those are the ones met early and often (the entries of common words and
 * phrases); the others are parsed for each sentence.  Nothing is dropped, so a sentence's parsed entries stay
 * valid while it is packed, and memory is bounded. */
typedef struct {
    size_t cap, count, max;  /* cap: a power of two, at least twice max */
    ParsedEntry **slots;     /* NULL: empty */
} ParseCache;

static const char *const PARSE_CACHE_NAME = "meteor_lite._accel.ParseCache";

static void pc_destroy(PyObject *capsule) {
    ParseCache *c = (ParseCache *)PyCapsule_GetPointer(capsule, PARSE_CACHE_NAME);
    if (!c) return;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i]) {
            Py_DECREF(c->slots[i]->text);
            free(c->slots[i]);
        }
    free(c->slots);
    free(c);
}

static size_t pc_bucket(const ParseCache *c, const void *entry) {
    return (size_t)((((uintptr_t)entry >> 4) * 0x9E3779B97F4A7C15ULL) >> 32) & (c->cap - 1);
}

/* parse_cache(max): a new, empty cache of at most `max` parsed entries for pack_words (see ParseCache). */
static PyObject *parse_cache(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t max = PyLong_AsSsize_t(arg);
    if (max == -1 && PyErr_Occurred()) return NULL;
    if (max < 1 || max > ((Py_ssize_t)1 << 28)) { PyErr_SetString(PyExc_ValueError, "parse_cache takes a size from 1 to 2**28"); return NULL; }
    ParseCache *c = (ParseCache *)calloc(1, sizeof(ParseCache));
    if (!c) return PyErr_NoMemory();
    c->max = (size_t)max;
    c->cap = 16;
    while (c->cap < 2 * c->max) c->cap *= 2;
    c->slots = (ParsedEntry **)calloc(c->cap, sizeof(ParsedEntry *));
    PyObject *capsule = c->slots ? PyCapsule_New(c, PARSE_CACHE_NAME, pc_destroy) : NULL;
    if (!capsule) {
        int allocated = c->slots != NULL;
        free(c->slots);
        free(c);
        return allocated ? NULL : PyErr_NoMemory();
    }
    return capsule;
}

/* parse_cache_len(cache): the parsed entries it holds. */
static PyObject *parse_cache_len(PyObject *self, PyObject *capsule) {
    (void)self;
    ParseCache *c = (ParseCache *)PyCapsule_GetPointer(capsule, PARSE_CACHE_NAME);
    return c ? PyLong_FromSize_t(c->count) : NULL;
}

/* The parsed form of `entry` from the cache c (parsed and kept there when new and there is room); NULL when it is
 * not kept (no cache, or a full one: the caller parses it into the scratch arrays), or NULL with an exception set. */
static ParsedEntry *pc_get(ParseCache *c, PyObject *entry) {
    if (!c) return NULL;
    size_t i = pc_bucket(c, entry);
    while (c->slots[i] && c->slots[i]->text != entry) i = (i + 1) & (c->cap - 1);
    if (c->slots[i] || c->count >= c->max) return c->slots[i];
    ParsedEntry *pe = parse_entry(entry);
    if (!pe) return NULL;
    Py_INCREF(entry);
    c->slots[i] = pe;
    c->count++;
    return pe;
}

/* A sentence's paraphrase-table phrases packed into p: phrase h starts at word start[h], is len[h] words long and
 * has the table entry entries[h] (a str).  p points at each entry's parsed form: the cache c's (see pc_get; the
 * caller keeps the cache alive as long as p), or one parsed here and owned by p.  The parsed words point into the
 * entries' texts, which p->view keeps (and the cache its own).  Nothing is copied: a packed sentence costs a few
 * words a phrase, where a copy of its entries' words cost kilobytes. */
static int pack_hit_arrays(Packed *p, Py_ssize_t nh, const long *start, const long *len, PyObject *const *entries,
                           ParseCache *c) {
    p->has_hits = 1;
    p->nhits = nh;
    p->hit_start = (long *)malloc((nh + 1) * sizeof(long));
    p->hit_len = (long *)malloc((nh + 1) * sizeof(long));
    p->hit_entry = (const ParsedEntry **)malloc((nh + 1) * sizeof(ParsedEntry *));
    if (!p->hit_start || !p->hit_len || !p->hit_entry) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t h = 0; h < nh; h++) {
        if (start[h] < 0 || len[h] < 1 || start[h] + len[h] > p->n) {
            PyErr_SetString(PyExc_ValueError, "a phrase hit lies outside its sentence");
            return -1;
        }
        p->hit_start[h] = start[h];
        p->hit_len[h] = len[h];
        const ParsedEntry *pe = pc_get(c, entries[h]);
        if (!pe) {
            if (PyErr_Occurred()) return -1;
            if (!p->owned && !(p->owned = (ParsedEntry **)malloc((nh + 1) * sizeof(ParsedEntry *)))) {
                PyErr_NoMemory();
                return -1;
            }
            ParsedEntry *own = parse_entry(entries[h]);
            if (!own) return -1;
            p->owned[p->nowned++] = own;
            pe = own;
        }
        p->hit_entry[h] = pe;
    }
    return 0;
}

/* pack_hit_arrays of `hits`, a list of (start, length, table entry) tuples. */
static int pack_hits(Packed *p, PyObject *hits, ParseCache *c) {
    Py_ssize_t nh = PyList_GET_SIZE(hits);
    long *start = (long *)malloc((nh + 1) * sizeof(long)), *len = (long *)malloc((nh + 1) * sizeof(long));
    PyObject **entries = (PyObject **)malloc((nh + 1) * sizeof(PyObject *));  /* borrowed from the hits */
    int rc = -1;
    if (!start || !len || !entries) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t h = 0; h < nh; h++) {
        PyObject *hit = PyList_GET_ITEM(hits, h);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(hit, 2))) {
            PyErr_SetString(PyExc_TypeError, "a phrase hit must be a (start, length, table entry) tuple");
            goto done;
        }
        start[h] = PyLong_AsLong(PyTuple_GET_ITEM(hit, 0));
        len[h] = PyLong_AsLong(PyTuple_GET_ITEM(hit, 1));
        if (PyErr_Occurred()) goto done;
        entries[h] = PyTuple_GET_ITEM(hit, 2);
    }
    rc = pack_hit_arrays(p, nh, start, len, entries, c);
done:
    free(start);
    free(len);
    free(entries);
    return rc;
}

/* The phrases of a sentence (`words`, a tuple) found by walking the mapped paraphrase table `spec` describes (see
 * pack_words), as pack_hit_arrays takes them; *entries a new tuple of their entries.  Defined with the walk. */
static int walk_for_pack(PyObject *spec, PyObject *words, Py_ssize_t *nh, long **start, long **len, PyObject **entries);

/* A word's record (make_records, pack_words): a bytes object of REC_HEAD bytes (the word's Java hash, its stem's
 * Java hash, its Java length, flags: REC_FUNC a function word, REC_STEM the stem's hash is there, REC_SYN the synset
 * ids are there; the number of synset ids), then its synset ids (8 bytes each), in the machine's byte order. */
enum { REC_FUNC = 1, REC_STEM = 2, REC_SYN = 4 };
typedef struct {
    int32_t hash, stem;
    uint32_t length, flags, nsyn;
} RecHead;
#define REC_HEAD ((Py_ssize_t)sizeof(RecHead))

/* The head of word w's record in `records`, and the record itself in *held (a new reference: its synset ids follow
 * the head, unaligned); 0 when it has none, 1 when found, -1 with an exception set (a record that is not one, or
 * lacks what `need` asks for). */
static int word_record(PyObject *records, PyObject *w, uint32_t need, RecHead *head, PyObject **held) {
    PyObject *rec = PyDict_GetItemWithError(records, w);  /* borrowed */
    if (!rec) return PyErr_Occurred() ? -1 : 0;
    if (!PyBytes_Check(rec) || PyBytes_GET_SIZE(rec) < REC_HEAD) goto bad;
    memcpy(head, PyBytes_AS_STRING(rec), sizeof(RecHead));
    if ((head->flags & need) != need || head->nsyn > (uint32_t)((PyBytes_GET_SIZE(rec) - REC_HEAD) / 8)) goto bad;
    Py_INCREF(rec);  /* its ids are read later: the dict may change meanwhile (a finalizer run by the collector) */
    *held = rec;
    return 1;
bad:
    PyErr_SetString(PyExc_TypeError, "a word record is not one made by make_records for these modules (Resources.word_records)");
    return -1;
}

/* Java's String.length() of a str: its UTF-16 code units. */
static Py_ssize_t java_length_of(PyObject *w) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(w), units = n;
    if (PyUnicode_KIND(w) == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *d = PyUnicode_4BYTE_DATA(w);
        for (Py_ssize_t i = 0; i < n; i++) units += d[i] > 0xFFFF;
    }
    return units;
}

/* make_records(records, words, hashes, stem_hashes, synsets, function): records[word] = the record of each of
 * `words` (lists of equal length: Java hashes, Java hashes of the stems or None, synset sets or None, function-word
 * flags), see word_record. */
static PyObject *make_records(PyObject *self, PyObject *args) {
    PyObject *records, *words, *hashes, *stems, *syns, *func;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!OOO!:make_records", &PyDict_Type, &records, &PyList_Type, &words, &PyList_Type,
                          &hashes, &stems, &syns, &PyList_Type, &func))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(words);
    if (PyList_GET_SIZE(hashes) != n || PyList_GET_SIZE(func) != n || (stems != Py_None && (!PyList_Check(stems) || PyList_GET_SIZE(stems) != n))
        || (syns != Py_None && (!PyList_Check(syns) || PyList_GET_SIZE(syns) != n))) {
        PyErr_SetString(PyExc_ValueError, "make_records needs one hash, stem hash, synset set and flag per word");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = PyList_GET_ITEM(words, i), *set = syns == Py_None ? NULL : PyList_GET_ITEM(syns, i);
        if (!PyUnicode_Check(w)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); return NULL; }
        if (set && !PyAnySet_Check(set)) { PyErr_SetString(PyExc_TypeError, "synsets must be sets"); return NULL; }
        RecHead head = {0, 0, 0, 0, 0};
        long long hv = PyLong_AsLongLong(PyList_GET_ITEM(hashes, i));
        long long sv = stems == Py_None ? 0 : PyLong_AsLongLong(PyList_GET_ITEM(stems, i));
        int f = PyObject_IsTrue(PyList_GET_ITEM(func, i));
        if (PyErr_Occurred() || f < 0) return NULL;
        if (hv < INT32_MIN || hv > INT32_MAX || sv < INT32_MIN || sv > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "a Java hash is a 32-bit int");
            return NULL;
        }
        head.hash = (int32_t)hv;
        head.stem = (int32_t)sv;
        head.length = (uint32_t)java_length_of(w);
        head.flags = (f ? REC_FUNC : 0) | (stems != Py_None ? REC_STEM : 0) | (set ? REC_SYN : 0);
        head.nsyn = set ? (uint32_t)PySet_GET_SIZE(set) : 0;
        PyObject *rec = PyBytes_FromStringAndSize(NULL, REC_HEAD + 8 * (Py_ssize_t)head.nsyn);
        if (!rec) return NULL;
        char *out = PyBytes_AS_STRING(rec);
        if (set) {
            PyObject *it = PyObject_GetIter(set), *x;
            Py_ssize_t k = 0;
            if (!it) { Py_DECREF(rec); return NULL; }
            while (k < (Py_ssize_t)head.nsyn && (x = PyIter_Next(it)) != NULL) {
                long long v = PyLong_AsLongLong(x);
                Py_DECREF(x);
                if (v == -1 && PyErr_Occurred()) break;
                memcpy(out + REC_HEAD + 8 * k++, &v, 8);
            }
            Py_DECREF(it);
            if (PyErr_Occurred()) { Py_DECREF(rec); return NULL; }
            head.nsyn = (uint32_t)k;
        }
        memcpy(out, &head, sizeof head);
        int r = PyDict_SetItem(records, w, rec);
        Py_DECREF(rec);
        if (r < 0) return NULL;
    }
    Py_RETURN_NONE;
}

/* pack_words(words, records, hits, stem, synonym, char_based, cache): one sentence packed for align_stats from the
 * records of its words (make_records; see Resources.word_records) and its phrase hits (a list; or the mapped
 * paraphrase table to walk for them, a tuple (data, fd, offset, slots, max_len, entry_cache()) as
 * MappedTables.walk_spec gives it, so that no hit tuples are made; or None without the paraphrase module), their
 * entries parsed through `cache` (a parse_cache(), or None).  Returns the words of
 * `words` that have no record yet (a list, each once) when there are any; else (capsule, function-word flags,
 * length units, total units, function-word units). */
static PyObject *pack_words(PyObject *self, PyObject *args) {
    PyObject *words, *records, *hits, *cache = Py_None;
    int stem, synonym, char_based = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!Opp|pO:pack_words", &words, &PyDict_Type, &records, &hits, &stem, &synonym,
                          &char_based, &cache))
        return NULL;
    ParseCache *pcache = NULL;
    if (cache != Py_None && !(pcache = (ParseCache *)PyCapsule_GetPointer(cache, PARSE_CACHE_NAME))) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "cache must be None or a parse_cache()");
        return NULL;
    }
    if (hits != Py_None && !PyList_Check(hits) && !PyTuple_Check(hits)) {
        PyErr_SetString(PyExc_TypeError, "hits must be a list, a table to walk (a tuple) or None");
        return NULL;
    }
    PyObject *tup = PySequence_Tuple(words);
    if (!tup) return NULL;
    uint32_t need = (stem ? REC_STEM : 0) | (synonym ? REC_SYN : 0);
    Py_ssize_t n = PyTuple_GET_SIZE(tup);
    PyObject *missing = NULL, *res = NULL, *flist = NULL, *llist = NULL, *walked = NULL;
    RecHead *heads = (RecHead *)malloc((n + 1) * sizeof(RecHead));
    PyObject **held = (PyObject **)calloc((size_t)n + 1, sizeof(PyObject *));
    Packed *p = NULL;
    Py_ssize_t syn_total = 0;
    if (!heads || !held) { PyErr_NoMemory(); goto out; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = PyTuple_GET_ITEM(tup, i);
        if (!PyUnicode_Check(w)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); goto out; }
        int got = word_record(records, w, need, &heads[i], &held[i]);
        if (got < 0) goto out;
        if (got) { syn_total += synonym ? (Py_ssize_t)heads[i].nsyn : 0; continue; }
        if (!missing && !(missing = PyDict_New())) goto out;
        if (PyDict_SetItem(missing, w, Py_None) < 0) goto out;
    }
    if (missing) {
        res = PyDict_Keys(missing);
        goto out;
    }
    p = (Packed *)calloc(1, sizeof(Packed));
    if (!p) { PyErr_NoMemory(); goto out; }
    p->n = n;
    p->hash = (long long *)malloc((n + 1) * sizeof(long long));
    p->func = (char *)malloc((size_t)n + 1);
    p->len = (long *)malloc((n + 1) * sizeof(long));
    if (stem) p->stem = (long long *)malloc((n + 1) * sizeof(long long));
    if (synonym) {
        p->syn.n = n;
        p->syn.vals = (long long *)malloc(((size_t)syn_total + 1) * sizeof(long long));
        p->syn.start = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    }
    flist = PyList_New(n);
    llist = PyList_New(n);
    if (!p->hash || !p->func || !p->len || (stem && !p->stem) || (synonym && (!p->syn.vals || !p->syn.start)) || !flist
        || !llist) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    if (word_index(tup, &p->words)) goto fail;
    double total = 0, func_total = 0;
    Py_ssize_t t = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const RecHead *hd = &heads[i];
        p->hash[i] = hd->hash;
        if (stem) p->stem[i] = hd->stem;
        if (synonym) {
            p->syn.start[i] = t;
            memcpy(p->syn.vals + t, PyBytes_AS_STRING(held[i]) + REC_HEAD, 8 * (size_t)hd->nsyn);
            t += hd->nsyn;
        }
        p->func[i] = (char)(hd->flags & REC_FUNC);
        p->len[i] = char_based ? (long)hd->length : 1;
        PyObject *lv = PyLong_FromLong(p->len[i]), *f = p->func[i] ? Py_True : Py_False;
        if (!lv) goto fail;
        Py_INCREF(f);
        PyList_SET_ITEM(flist, i, f);
        PyList_SET_ITEM(llist, i, lv);
        total += (double)p->len[i];
        if (p->func[i]) func_total += (double)p->len[i];
    }
    if (synonym) {
        p->syn.start[n] = t;
        if (synsets_index(&p->syn)) goto fail;
    }
    PyObject *texts = hits;  /* what holds the entries' texts */
    if (PyTuple_Check(hits)) {  /* the sentence walked here: no hit tuples made */
        Py_ssize_t nh = 0;
        long *hs = NULL, *hl = NULL;
        int bad = walk_for_pack(hits, tup, &nh, &hs, &hl, &walked) < 0
                  || pack_hit_arrays(p, nh, hs, hl, &PyTuple_GET_ITEM(walked, 0), pcache) < 0;
        free(hs);
        free(hl);
        if (bad) goto fail;
        texts = walked;
    } else if (hits != Py_None && pack_hits(p, hits, pcache)) {
        goto fail;
    }
    p->view = PyTuple_Pack(2, tup, texts);  /* the words' and the entries' text, which the spans point into */
    if (!p->view) goto fail;
    if (pcache && p->nhits > 0) {  /* p may point at entries the cache parsed: it lives as long as p */
        p->cache = cache;
        Py_INCREF(cache);
    }
    PyObject *cap = PyCapsule_New(p, PACKED_NAME, packed_destroy);
    if (!cap) goto fail;
    p = NULL;  /* the capsule's now */
    res = Py_BuildValue("(NOOdd)", cap, flist, llist, total, func_total);
    goto out;
fail:
    packed_free(p);
out:
    free(heads);
    if (held)
        for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(held[i]);
    free(held);
    Py_XDECREF(flist);
    Py_XDECREF(llist);
    Py_XDECREF(missing);
    Py_XDECREF(walked);
    Py_DECREF(tup);
    return res;
}

/* Candidates as they are found (module order, then each module's order), before grouping by reference start. */
typedef struct {
    MatchInts *m;
    int *mod;
    size_t len, cap;
} Found;

static int found_add(Found *f, int mod, long rs, long rl, long hs, long hl, int exact) {
    if (f->len == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        MatchInts *m = (MatchInts *)realloc(f->m, cap * sizeof(MatchInts));
        if (m) f->m = m;
        int *md = m ? (int *)realloc(f->mod, cap * sizeof(int)) : NULL;
        if (md) f->mod = md;
        if (!m || !md) { no_memory(); return -1; }
        f->cap = cap;
    }
    f->m[f->len] = match_ints(rs, rl, hs, hl, exact);
    f->mod[f->len] = mod;
    f->len++;
    return 0;
}

/* A one-word matcher's Sink into the candidates (reference position, hypothesis position) of module mi, whose gain
 * rule is `exact`. */
typedef struct {
    Found *f;
    int mi, exact;
} FoundWords;

static int found_word(void *ctx, Py_ssize_t j, Py_ssize_t i) {
    FoundWords *c = (FoundWords *)ctx;
    return found_add(c->f, c->mi, (long)j, 1, (long)i, 1, c->exact);
}

/* The exact and stem modules' matcher (key_matches), defined with the words. */
static int key_matches(const long long *hk, const long long *hw, Py_ssize_t n1, const long long *rk, const long long *rw,
                       Py_ssize_t n2, int other, const Sink *out);

/* The one-word candidates of the exact (MOD_EXACT) or stem (MOD_STEM) module, as collect_matches finds them:
 * key_matches of the words' hashes, or of their stems' for other words. */
static int word_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    FoundWords c = {f, mi, MODULE_EXACT_GAIN[code]};
    Sink sink = {found_word, &c};
    int stem = code == MOD_STEM;
    return key_matches(stem ? h->stem : h->hash, h->hash, h->n, stem ? r->stem : r->hash, r->hash, r->n, stem, &sink);
}

/* The synonym candidates, as collect_matches finds them (synonym_matches of the packed synsets). */
static int synonym_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    FoundWords c = {f, mi, MODULE_EXACT_GAIN[code]};
    Sink sink = {found_word, &c};
    return synonym_matches(&h->syn, h->hash, &r->syn, r->hash, &sink);
}

/* The paraphrase matcher's Sink into the candidates of module mi: occurrences of the paraphrases of a phrase of one
 * side (its start and length) in the other side, the reference's phrases (side 0) or the hypothesis's (side 1). */
typedef struct {
    Found *f;
    int mi, exact, side;
    long start, len;
} FoundPhrases;

static int found_phrase(void *ctx, Py_ssize_t o, Py_ssize_t pl) {
    FoundPhrases *c = (FoundPhrases *)ctx;
    return c->side == 0 ? found_add(c->f, c->mi, c->start, c->len, (long)o, (long)pl, c->exact)
                        : found_add(c->f, c->mi, (long)o, (long)pl, c->start, c->len, c->exact);
}

/* The paraphrase candidates: where the paraphrases of the reference's phrases occur in the hypothesis, then
 * the other way round; phrase by phrase, paraphrases in table order, positions ascending (entry_matches). */
static int paraphrase_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    FoundPhrases c = {f, mi, MODULE_EXACT_GAIN[code], 0, 0, 0};
    Sink sink = {found_phrase, &c};
    for (c.side = 0; c.side < 2; c.side++) {
        const Packed *from = c.side == 0 ? r : h, *to = c.side == 0 ? h : r;
        for (Py_ssize_t t = 0; t < from->nhits; t++) {
            c.start = from->hit_start[t];
            c.len = from->hit_len[t];
            if (entry_matches(from->hit_entry[t], &to->words, &sink) < 0) return -1;
        }
    }
    return 0;
}

/* The matchers of the modules beyond Meteor's four (their files, accel_c/<name>.c) and the table of every
 * module's matcher by code, all from the generated header. */
#define ACCEL_MODULE_MATCHERS
#include "../_accel_modules.h"

/* One module's candidates of a pair, by its code (MOD_*, the generated header; module_kinds checked it). */
static int module_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    return MODULE_MATCHERS[code](f, mi, code, h, r);
}

/* One pair's counts, as scoring._side_stats counts them, and its chosen matches: what align_stats returns, in C
 * (align_counts fills it without touching a Python object, so align_many runs it without the GIL). */
typedef struct {
    int rc;                            /* 0 counted, 1 out of the search's range, -1 failed (exception set) */
    double tc[MOD_COUNT], rc4[MOD_COUNT], tf[MOD_COUNT], rf[MOD_COUNT];  /* by position in the module list */
    long chunks, twm, rwm;
    long *chosen;                      /* count rows of (module, rstart, rlen, hstart, hlen), by reference start */
    size_t count;
} PairCounts;

/* The counts of the chosen candidates (ordered by reference start) into o. */
static int count_chosen(const State *s, const int *mod, const Py_ssize_t *chosen, size_t count, const Packed *h,
                        const Packed *r, PairCounts *o) {
    long pos = 0, last = -1;
    o->chosen = (long *)malloc((count ? count : 1) * 5 * sizeof(long));
    if (!o->chosen) { no_memory(); return -1; }
    o->count = count;
    for (size_t c = 0; c < count; c++) {
        const MatchInts *m = &s->mi[chosen[c]];
        int md = mod[chosen[c]];
        for (long k = m->hstart; k < m->hstart + m->hlen; k++) {
            if (h->func[k]) o->tf[md] += (double)h->len[k]; else o->tc[md] += (double)h->len[k];
        }
        for (long k = m->rstart; k < m->rstart + m->rlen; k++) {
            if (r->func[k]) o->rf[md] += (double)r->len[k]; else o->rc4[md] += (double)r->len[k];
        }
        /* chunks, as align.search.count_chunks */
        if (m->rstart > pos && last != -1) { o->chunks++; last = -1; }
        if (last != -1 && m->hstart != last) o->chunks++;
        pos = m->rstart + m->rlen;
        last = m->hstart + m->hlen;
        o->twm += m->hlen;
        o->rwm += m->rlen;
        long *row = o->chosen + 5 * c;
        row[0] = md; row[1] = m->rstart; row[2] = m->rlen; row[3] = m->hstart; row[4] = m->hlen;
    }
    if (last != -1) o->chunks++;
    return 0;
}

/* collect_matches, the search and the counts of one pair of packed sentences into o (zeroed by the caller; o->rc
 * says how it ended).  Reads only the packed sentences, which nothing changes once packed: safe without the GIL. */
static void align_counts(const Packed *h, const Packed *r, const int *kinds, int nmod, int beam, PairCounts *o) {
    int n1 = (int)h->n, n2 = (int)r->n;
    if ((n1 > n2 ? n1 : n2) > MAX_WORDS) { o->rc = 1; return; }
    Found f;
    memset(&f, 0, sizeof(f));
    State s;
    memset(&s, 0, sizeof(s));
    int *mod = NULL;
    Py_ssize_t *chosen = NULL, *fill = NULL;
    size_t count = 0;
    o->rc = -1;
    /* modules_used: a reference identical to the hypothesis is matched by the first module only */
    int same = n1 == n2;
    for (int i = 0; same && i < n1; i++) same = h->hash[i] == r->hash[i];
    int used = same ? 1 : nmod;
    for (int mi = 0; mi < used; mi++)
        if (module_candidates(&f, mi, kinds[mi], h, r)) goto done;
    /* Grouped by reference start, in the order found (the search's tie-breaking order). */
    s.mi = (MatchInts *)malloc((f.len ? f.len : 1) * sizeof(MatchInts));
    s.first = (Py_ssize_t *)calloc((size_t)n2 + 2, sizeof(Py_ssize_t));
    mod = (int *)malloc((f.len ? f.len : 1) * sizeof(int));
    fill = (Py_ssize_t *)malloc(((size_t)n2 + 1) * sizeof(Py_ssize_t));
    if (!s.mi || !s.first || !mod || !fill) { no_memory(); goto done; }
    for (size_t c = 0; c < f.len; c++) s.first[f.m[c].rstart + 1]++;
    for (int j = 0; j < n2; j++) s.first[j + 1] += s.first[j];
    memcpy(fill, s.first, ((size_t)n2 + 1) * sizeof(Py_ssize_t));
    for (size_t c = 0; c < f.len; c++) {
        Py_ssize_t at = fill[f.m[c].rstart]++;
        s.mi[at] = f.m[c];
        mod[at] = f.mod[c];
    }
    int rc = run_search(&s, n1, n2, beam, (Py_ssize_t)f.len, &chosen, &count);
    o->rc = rc == 0 ? count_chosen(&s, mod, chosen, count, h, r, o) : rc;
done:
    free(f.m); free(f.mod); free(mod); free(chosen); free(fill);
    state_free(&s);
}

static PyObject *float_list(const double *v, int n) {
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *x = PyFloat_FromDouble(v[k]);
        if (!x) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, k, x);
    }
    return l;
}

/* align_stats's result of counted pair: (test_content, ref_content, test_function, ref_function, chunks,
 * test_word_matches, ref_word_matches, matches).  NULL with an exception set. */
static PyObject *counts_result(const PairCounts *o, int nmod) {
    PyObject *matches = PyList_New((Py_ssize_t)o->count);
    if (!matches) return NULL;
    for (size_t c = 0; c < o->count; c++) {
        PyObject *t = int_tuple(5, o->chosen + 5 * c);
        if (!t) { Py_DECREF(matches); return NULL; }
        PyList_SET_ITEM(matches, (Py_ssize_t)c, t);
    }
    PyObject *ltc = float_list(o->tc, nmod), *lrc = float_list(o->rc4, nmod), *ltf = float_list(o->tf, nmod);
    PyObject *lrf = float_list(o->rf, nmod);
    PyObject *res = ltc && lrc && ltf && lrf
        ? Py_BuildValue("(OOOOdddO)", ltc, lrc, ltf, lrf, (double)o->chunks, (double)o->twm, (double)o->rwm, matches) : NULL;
    Py_XDECREF(ltc); Py_XDECREF(lrc); Py_XDECREF(ltf); Py_XDECREF(lrf);
    Py_DECREF(matches);
    return res;
}

/* What align_stats returns for a pair aligned by align_counts: counts_result, or None out of the search's range
 * (o->rc 1).  NULL with an exception set (o->rc -1: set by align_counts). */
static PyObject *pair_result(const PairCounts *o, int nmod) {
    if (o->rc == 1) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return o->rc == 0 ? counts_result(o, nmod) : NULL;
}

/* The module codes of align_stats and align_many (a tuple of one to MOD_COUNT codes, each once) into kinds
 * (MOD_COUNT ints); nmod, or -1 with an exception set. */
static int module_kinds(PyObject *modules, int beam, int *kinds) {
    int nmod = (int)PyTuple_GET_SIZE(modules);
    if (nmod < 1 || nmod > MOD_COUNT) {
        PyErr_Format(PyExc_ValueError, "one to %d module codes", MOD_COUNT);
        return -1;
    }
    if (beam < 1) { PyErr_SetString(PyExc_ValueError, "the beam must be at least 1"); return -1; }
    unsigned seen = 0;
    for (int k = 0; k < nmod; k++) {
        kinds[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(modules, k));
        if (kinds[k] < 0 || kinds[k] >= MOD_COUNT || (seen >> kinds[k]) & 1u) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "a module code is 0 to %d, each once", MOD_COUNT - 1);
            return -1;
        }
        seen |= 1u << kinds[k];
    }
    return nmod;
}

/* The packed sentences of a pair, checked to have what the modules need; 0, or -1 with an exception set. */
static int packed_pair(PyObject *hv, PyObject *rv, const int *kinds, int nmod, const Packed **h, const Packed **r) {
    *h = (const Packed *)PyCapsule_GetPointer(hv, PACKED_NAME);
    *r = *h ? (const Packed *)PyCapsule_GetPointer(rv, PACKED_NAME) : NULL;
    if (!*h || !*r) return -1;
    for (int k = 0; k < nmod; k++) {
        unsigned need = MODULE_NEEDS[kinds[k]];
        if (((need & NEED_STEM) && (!(*h)->stem || !(*r)->stem)) || ((need & NEED_SYNONYMS) && (!(*h)->syn.head || !(*r)->syn.head))
            || ((need & NEED_PHRASES) && (!(*h)->has_hits || !(*r)->has_hits))) {
            PyErr_SetString(PyExc_ValueError, "a side lacks what one of the modules needs");
            return -1;
        }
    }
    return 0;
}

/* align_stats(hyp, ref, modules, beam): collect_matches, the search and scoring._side_stats's counts of one
 * pair in one call.  hyp and ref are pack_words capsules; modules the module codes in the configuration's order
 * (MOD_* of the generated header _accel_modules.h).  Returns (test_content, ref_content, test_function,
 * ref_function, chunks, test_word_matches, ref_word_matches, matches) with matches the chosen (module, rstart,
 * rlen, hstart, hlen) by reference start, or None when the segment is out of the search's range (the caller
 * then takes the Python path). */
static PyObject *align_stats(PyObject *self, PyObject *args) {
    PyObject *hv, *rv, *modules;
    int beam, kinds[MOD_COUNT];
    const Packed *h, *r;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!i:align_stats", &hv, &rv, &PyTuple_Type, &modules, &beam)) return NULL;
    int nmod = module_kinds(modules, beam, kinds);
    if (nmod < 0 || packed_pair(hv, rv, kinds, nmod, &h, &r) < 0) return NULL;
    PairCounts o;
    memset(&o, 0, sizeof(o));
    align_counts(h, r, kinds, nmod, beam, &o);
    PyObject *res = pair_result(&o, nmod);
    free(o.chosen);
    return res;
}

/* align_many(pairs, modules, beam): align_stats of each (hyp, ref) pair of packed sentences, the GIL released
 * while they are aligned, so that another thread (the batch's packing of its next block) runs meanwhile.  pairs
 * is a list of 2-tuples, copied into a tuple first, so nothing another thread does to it frees a sentence being
 * read; a packed sentence is never changed.  Returns the list of align_stats's results. */
static PyObject *align_many(PyObject *self, PyObject *args) {
    PyObject *pairs, *modules;
    int beam, kinds[MOD_COUNT];
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!i:align_many", &pairs, &PyTuple_Type, &modules, &beam)) return NULL;
    int nmod = module_kinds(modules, beam, kinds);
    if (nmod < 0) return NULL;
    PyObject *held = PySequence_Tuple(pairs);
    if (!held) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(held);
    const Packed **sides = (const Packed **)malloc(((size_t)n + 1) * 2 * sizeof(Packed *));
    PairCounts *outs = (PairCounts *)calloc((size_t)n + 1, sizeof(PairCounts));
    PyObject *res = NULL;
    if (!sides || !outs) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(held, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "align_many takes a list of (hyp, ref) tuples of packed sentences");
            goto done;
        }
        if (packed_pair(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1), kinds, nmod, &sides[2 * i], &sides[2 * i + 1]) < 0)
            goto done;
    }
    Py_ssize_t failed = -1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && failed < 0; i++) {
        align_counts(sides[2 * i], sides[2 * i + 1], kinds, nmod, beam, &outs[i]);
        if (outs[i].rc < 0) failed = i;
    }
    Py_END_ALLOW_THREADS
    if (failed >= 0) goto done;
    res = PyList_New(n);
    for (Py_ssize_t i = 0; res && i < n; i++) {
        PyObject *x = pair_result(&outs[i], nmod);
        if (!x) Py_CLEAR(res);
        else PyList_SET_ITEM(res, i, x);
    }
done:
    if (outs)
        for (Py_ssize_t i = 0; i < n; i++) free(outs[i].chosen);
    free(outs);
    free(sides);
    Py_DECREF(held);
    return res;
}

/* walk_held(sentences, entries, beginnings, max_len): Resources._walk over a paraphrase table held in memory
 * (resources.memory.TablesInMemory: `entries` maps a phrase to its table entry, `beginnings` is the set of
 * phrases that begin a longer one).  For each start, the n-gram grows one word at a time while it begins a
 * longer phrase (and is shorter than max_len words and the sentence goes on); each n-gram with a non-empty
 * entry is a hit (start, n, entry).  Returns each sentence's hits by start, then length: what the level-by-level
 * walk returns, without the caches it fills for the bundle's queries. */
static PyObject *walk_held(PyObject *self, PyObject *args) {
    PyObject *sentences, *entries, *beginnings;
    Py_ssize_t max_len;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!On:walk_held", &PyList_Type, &sentences, &PyDict_Type, &entries, &beginnings,
                          &max_len))
        return NULL;
    if (!PyAnySet_Check(beginnings)) { PyErr_SetString(PyExc_TypeError, "beginnings must be a set"); return NULL; }
    PyObject *space = PyUnicode_FromString(" ");
    PyObject *out = space ? PyList_New(PyList_GET_SIZE(sentences)) : NULL;
    if (!out) { Py_XDECREF(space); return NULL; }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(sentences); k++) {
        PyObject *hits = PyList_New(0);
        if (!hits) goto fail;
        PyList_SET_ITEM(out, k, hits);
        PyObject *seq = PySequence_Fast(PyList_GET_ITEM(sentences, k), "a sentence must be a sequence of words");
        if (!seq) goto fail;
        Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < len; i++) {
            PyObject *g = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyUnicode_Check(g)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); Py_DECREF(seq); goto fail; }
            Py_INCREF(g);
            for (Py_ssize_t n = 1;; n++) {
                PyObject *entry = PyDict_GetItemWithError(entries, g);  /* borrowed */
                int has = entry ? PyObject_IsTrue(entry) : (PyErr_Occurred() ? -1 : 0);
                if (has > 0) {
                    Py_INCREF(entry);
                    PyObject *t = hit_tuple(i, n, entry);
                    if (!t || PyList_Append(hits, t) < 0) has = -1;
                    Py_XDECREF(t);
                }
                int grow = has < 0 ? -1 : (n < max_len && i + n < len) ? PySet_Contains(beginnings, g) : 0;
                if (grow <= 0) {
                    Py_DECREF(g);
                    if (has < 0 || grow < 0) { Py_DECREF(seq); goto fail; }
                    break;
                }
                PyObject *w = PySequence_Fast_GET_ITEM(seq, i + n);
                PyObject *gs = PyUnicode_Check(w) ? PyUnicode_Concat(g, space) : NULL;
                PyObject *ng = gs ? PyUnicode_Concat(gs, w) : NULL;
                Py_XDECREF(gs);
                Py_DECREF(g);
                if (!ng) {
                    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "words must be strings");
                    Py_DECREF(seq);
                    goto fail;
                }
                g = ng;
            }
        }
        Py_DECREF(seq);
    }
    Py_DECREF(space);
    return out;
fail:
    Py_DECREF(space);
    Py_DECREF(out);
    return NULL;
}
