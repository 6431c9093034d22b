/* meteor_lite._accel: the shared helpers and the alignment search.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

#define MAX_WORDS 8192

#ifndef ACCEL_SOURCE_SHA256  /* setup.py defines it: the SHA-256 of this file */
#define ACCEL_SOURCE_SHA256 "unknown"
#endif
#define MAX_BLOCKS (MAX_WORDS / 64)

static PyObject *s_rstart, *s_rlen, *s_hstart, *s_hlen, *s_gain, *s_dist;

typedef struct {
    int64_t gk, d;     /* gain in key units, distance */
    int32_t hs, hend, rs, rend;  /* the words it covers: tested and set in a path's bits as ranges (no mask per
                                  * step: 1,224 repeats of a word have 1.5 million steps of 2 x 20 words each) */
    Py_ssize_t cand;   /* its candidate's index in State.mi */
} Step;

typedef struct {
    int64_t key;
    int32_t idx, last;
    int32_t chain;     /* node of the chosen chain, -1 for none */
    int32_t step;      /* step this child took, not yet in the chain (-1 for none) */
    int32_t moff;      /* used hypothesis bits then used reference bits in the path pool */
} Path;

/* A kept child's rank: its key and where it is (State.nxt and its masks in State.npool); the ranks are kept
 * sorted, so an insertion moves 16 bytes a rank rather than a whole path. */
typedef struct {
    int64_t key;
    int32_t slot, pad;
} Rank;

typedef struct {
    int32_t parent, step;
} Node;

typedef struct {
    void *data;
    size_t len, cap, size;
} Vec;

/* (a, b, item): a phrase hit, without Py_BuildValue's format parsing (the walks build tens per sentence); the
 * reference to `item` is stolen (also on failure).  NULL with an exception set. */
static PyObject *hit_tuple(Py_ssize_t a, Py_ssize_t b, PyObject *item) {
    PyObject *t = item ? PyTuple_New(3) : NULL;
    PyObject *x = t ? PyLong_FromSsize_t(a) : NULL, *y = x ? PyLong_FromSsize_t(b) : NULL;
    if (!y) {
        Py_XDECREF(x);
        Py_XDECREF(t);
        Py_XDECREF(item);
        return NULL;
    }
    PyTuple_SET_ITEM(t, 0, x);
    PyTuple_SET_ITEM(t, 1, y);
    PyTuple_SET_ITEM(t, 2, item);
    if (PyUnicode_CheckExact(item)) PyObject_GC_UnTrack(t);  /* no cycle through ints and a str (see int_tuple) */
    return t;
}

/* A tuple of `n` ints (n <= 5), without Py_BuildValue's format parsing.  NULL with an exception set. */
static PyObject *int_tuple(int n, const long *v) {
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *x = PyLong_FromLong(v[k]);
        if (!x) { Py_CLEAR(t); break; }
        PyTuple_SET_ITEM(t, k, x);
    }
    /* Untracked, as the collector would untrack it at its first pass: a tuple of ints is in no reference cycle.
     * The walks and the pair kernel make thousands that outlive a paused collector (gcpause.py), whose first pass
     * after the pause would otherwise visit each of them (tens of milliseconds after a corpus). */
    if (t) PyObject_GC_UnTrack(t);
    return t;
}

/* PyErr_NoMemory from code that also runs without the GIL (align_many's loop): the GIL is taken for the call
 * (PyGILState_Ensure works whether this thread holds it or released it). */
static void no_memory(void) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyErr_NoMemory();
    PyGILState_Release(g);
}

static int vec_reserve(Vec *v, size_t n) {
    if (n <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < n) cap *= 2;
    void *p = realloc(v->data, cap * v->size);
    if (!p) { no_memory(); return -1; }
    v->data = p;
    v->cap = cap;
    return 0;
}

static int get_long(PyObject *o, PyObject *name, long *out) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (!v) return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    if (*out == -1 && PyErr_Occurred()) return -1;
    return 0;
}

typedef struct { long rstart, rlen, hstart, hlen, gain, dist; } MatchInts;

/* A candidate's values as Match.__init__ sets them: the gain (under the exact rule one per word matched, else half
 * of each side rounded down) and the distance of its starts. */
static MatchInts match_ints(long rs, long rl, long hs, long hl, int exact) {
    MatchInts m = {rs, rl, hs, hl, exact ? hl + rl : hl / 2 + rl / 2, rs > hs ? rs - hs : hs - rs};
    return m;
}

/* Where a module's matcher puts its matches, add(ctx, a, b) for each in its order: a one-word matcher gives the
 * reference position a and the hypothesis position b, the paraphrase matcher the start a and length b of an
 * occurrence.  The pair kernel adds them to its candidates, a per-function kernel to its Python result.  add
 * returns 0, or -1 (an exception set) to stop the matcher, which then returns -1. */
typedef struct {
    int (*add)(void *ctx, Py_ssize_t a, Py_ssize_t b);
    void *ctx;
} Sink;

/* The bucket of a 64-bit key (a word's Java hash, its stem's, a synset id) in a table of `size` buckets (a power of
 * two). */
static size_t key_bucket(long long v, Py_ssize_t size) {
    return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> 32) & (size_t)(size - 1);
}

/* A per-function kernel's result of a one-word matcher: per reference word, a list of hypothesis positions; n
 * empty rows to fill with row_append.  NULL with an exception set. */
static PyObject *position_rows(Py_ssize_t n) {
    PyObject *rows = PyList_New(n);
    for (Py_ssize_t j = 0; rows && j < n; j++) {
        PyObject *row = PyList_New(0);
        if (!row) { Py_CLEAR(rows); break; }
        PyList_SET_ITEM(rows, j, row);
    }
    return rows;
}

/* A Sink's add into position_rows (ctx): hypothesis position i appended to reference word j's row. */
static int row_append(void *rows, Py_ssize_t j, Py_ssize_t i) {
    PyObject *iv = PyLong_FromSsize_t(i);
    int bad = !iv || PyList_Append(PyList_GET_ITEM((PyObject *)rows, j), iv) < 0;
    Py_XDECREF(iv);
    return bad ? -1 : 0;
}

/* Match's __slots__ as the type lays them out (module, rstart, rlen, hstart, hlen, gain, dist): read and
 * written in place for objects of exactly that type (match_layout), through getattr for any other. */
static const char *const SLOT_NAMES[7] = {"module", "rstart", "rlen", "hstart", "hlen", "gain", "dist"};
static PyTypeObject *m_type = NULL;
static Py_ssize_t m_off[7];

static int match_layout(PyObject *type) {
    if ((PyTypeObject *)type == m_type) return 0;
    if (!PyType_Check(type)) { PyErr_SetString(PyExc_TypeError, "the match type must be a class"); return -1; }
    Py_ssize_t off[7];
    for (int k = 0; k < 7; k++) {
        PyObject *d = PyDict_GetItemString(((PyTypeObject *)type)->tp_dict, SLOT_NAMES[k]);  /* borrowed */
        if (!d || !PyObject_TypeCheck(d, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
            PyErr_Format(PyExc_TypeError, "the match type has no __slots__ member %s", SLOT_NAMES[k]);
            return -1;
        }
        off[k] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    Py_INCREF(type);
    Py_XDECREF((PyObject *)m_type);
    m_type = (PyTypeObject *)type;
    memcpy(m_off, off, sizeof(off));
    return 0;
}

static int slot_long(PyObject *m, int k, long *out) {
    PyObject *v = *(PyObject **)((char *)m + m_off[k]);
    if (!v) { PyErr_Format(PyExc_AttributeError, "a match has no %s", SLOT_NAMES[k]); return -1; }
    *out = PyLong_AsLong(v);
    if (*out == -1 && PyErr_Occurred()) return -1;
    return 0;
}

static int read_match(PyObject *m, MatchInts *mi) {
    if (m_type && Py_TYPE(m) == m_type)
        return (slot_long(m, 1, &mi->rstart) || slot_long(m, 2, &mi->rlen) || slot_long(m, 3, &mi->hstart)
                || slot_long(m, 4, &mi->hlen) || slot_long(m, 5, &mi->gain) || slot_long(m, 6, &mi->dist)) ? -1 : 0;
    if (get_long(m, s_rstart, &mi->rstart) || get_long(m, s_rlen, &mi->rlen) || get_long(m, s_hstart, &mi->hstart)
        || get_long(m, s_hlen, &mi->hlen) || get_long(m, s_gain, &mi->gain) || get_long(m, s_dist, &mi->dist))
        return -1;
    return 0;
}

static void set_bits(uint64_t *bits, long start, long len) {
    for (long k = start; k < start + len; k++) bits[k >> 6] |= (uint64_t)1 << (k & 63);
}

static int bitlen(uint64_t x) {
    int n = 0;
    while (x) { n++; x >>= 1; }
    return n;
}

static int cmp_rstart(const void *a, const void *b) {
    long x = ((const long *)a)[0], y = ((const long *)b)[0];
    return (x > y) - (x < y);
}

/* The search's working state, freed in one place. */
typedef struct {
    MatchInts *mi;        /* every candidate, in cands order */
    Py_ssize_t *first;    /* index of position j's first candidate in mi */
    int *cov_h, *cov_r;
    Py_ssize_t *fixed;    /* per reference position: 1 + the index of its fixed candidate in mi, 0 for none */
    int64_t *f_gk, *f_d;
    int32_t *f_hs, *f_rend, *f_hend;
    int32_t *st_first;    /* per position: first step, steps of position j are st_first[j]..st_first[j+1] */
    Step *steps;
    uint64_t *st_masks;   /* with one mask word (W == 1, most sentences): per step, the bits it tests and sets,
                           * hypothesis then reference (none for a one-word reference match, see push_path);
                           * apart from the steps, which a crowded segment has millions of */
    Vec paths, nxt, pool, npool, nodes;
    Vec ord;              /* the ranks of the children of the current position (nxt, npool: their slots) */
    Vec pord;             /* the ranks of the parents (paths, pool: their slots) */
    size_t room;          /* the children ord, nxt and npool have room for */
} State;

static void state_free(State *s) {
    free(s->mi); free(s->first); free(s->cov_h); free(s->cov_r); free(s->fixed);
    free(s->f_gk); free(s->f_d); free(s->f_hs); free(s->f_rend); free(s->f_hend);
    free(s->st_first); free(s->steps); free(s->st_masks);
    free(s->paths.data); free(s->nxt.data); free(s->pool.data); free(s->npool.data); free(s->nodes.data);
    free(s->ord.data); free(s->pord.data);
}

/* Copy a path's masks (2 * W words: hypothesis, then reference); most sentences need one word each. */
static inline void copy_mask(uint64_t *dst, const uint64_t *src, int W) {
    if (W == 1) {
        dst[0] = src[0];
        dst[1] = src[1];
    } else {
        memcpy(dst, src, 2 * (size_t)W * sizeof(uint64_t));
    }
}

/* The children the arrays of the current position (ord, nxt and npool) have room for. */
static void children_room(State *s, int W) {
    size_t room = s->npool.cap / (2 * (size_t)W);
    room = room < s->ord.cap ? room : s->ord.cap;
    s->room = room < s->nxt.cap ? room : s->nxt.cap;
}

/* The children of one position are ranked by (key, creation order), at most `beam` of them: a child no better
 * than the worst of `beam` kept ones would be cut at the next step, so it is dropped at once.  A new child is
 * created after every kept one, so it is ranked after those with an equal key.  When the beam is full, the
 * worst falls out and the new child takes its slot. */
static inline int push_path(State *s, int W, int beam, int64_t key, int32_t idx, int32_t last, int32_t chain, int32_t step,
                     const uint64_t *src, const Step *add, const uint64_t *add_mask) {
    Rank *o = (Rank *)s->ord.data;
    size_t n = s->ord.len;
    size_t lo = n;  /* the first kept child with a larger key */
    if (n && o[n - 1].key > key) {
        size_t hi = n - 1;
        lo = 0;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (o[mid].key <= key) lo = mid + 1; else hi = mid;
        }
    } else if (n == (size_t)beam) {
        return 0;  /* the usual cut: beam kept children are no worse */
    }
    int32_t slot;
    if (n < (size_t)beam) {  /* room for one more (grown as needed: a huge -x must not be allocated up front) */
        if (n == s->room) {
            if (vec_reserve(&s->ord, n + 1) || vec_reserve(&s->nxt, n + 1) || vec_reserve(&s->npool, (n + 1) * 2 * (size_t)W))
                return -1;
            children_room(s, W);
            o = (Rank *)s->ord.data;
        }
        slot = (int32_t)n;
    } else {
        slot = o[n - 1].slot;  /* the worst falls out */
    }
    uint64_t *dst = (uint64_t *)s->npool.data + (size_t)slot * 2 * (size_t)W;
    copy_mask(dst, src, W);
    if (add_mask) {
        dst[0] |= add_mask[0];
        dst[1] |= add_mask[1];
    } else if (add) {
        set_bits(dst, add->hs, add->hend - add->hs);
        /* A one-word reference match needs no reference bit: the search never reads bits behind its position. */
        if (add->rend - add->rs > 1) set_bits(dst + W, add->rs, add->rend - add->rs);
    }
    size_t keep = n == (size_t)beam && n > 0 ? n - 1 : n;  /* the worst falls out when the beam is full */
    for (size_t k = keep; k > lo; k--) o[k] = o[k - 1];  /* a few ranks of 16 bytes: no call to memmove */
    o[lo].key = key;
    o[lo].slot = slot;
    Path *p = (Path *)s->nxt.data + slot;
    p->key = key; p->idx = idx; p->last = last; p->chain = chain; p->step = step;
    p->moff = (int32_t)((size_t)slot * 2 * (size_t)W);
    s->ord.len = keep + 1;
    return 0;
}

static int any_bit(const uint64_t *bits, int32_t start, int32_t end) {
    for (int32_t k = start; k < end; k++)
        if (bits[k >> 6] >> (k & 63) & 1) return 1;
    return 0;
}

/* Whether a step covers a word a path has used (its reference words only when it covers more than one): with one
 * mask word, its two masks (mask, from State.st_masks), else its ranges. */
static inline int collides(const uint64_t *used, const Step *st, const uint64_t *mask, int W) {
    if (mask) return ((used[0] & mask[0]) | (used[1] & mask[1])) != 0;
    return any_bit(used, st->hs, st->hend) || (st->rend - st->rs > 1 && any_bit(used + W, st->rs, st->rend));
}

/* The kept children become the parents of the next position: the steps they took are put into the chain (in rank
 * order), and their arrays are swapped with the parents' (nothing is copied). */
static int keep_best(State *s, int W) {
    Path *nx = (Path *)s->nxt.data;
    const Rank *o = (const Rank *)s->ord.data;
    size_t n = s->ord.len;
    if (vec_reserve(&s->nodes, s->nodes.len + n)) return -1;
    Node *nodes = (Node *)s->nodes.data;
    for (size_t i = 0; i < n; i++) {
        Path *p = &nx[o[i].slot];
        if (p->step >= 0) {
            nodes[s->nodes.len].parent = p->chain;
            nodes[s->nodes.len].step = p->step;
            p->chain = (int32_t)s->nodes.len;
            p->step = -1;
            s->nodes.len += 1;
        }
    }
    Vec t = s->paths; s->paths = s->nxt; s->nxt = t;
    t = s->pool; s->pool = s->npool; s->npool = t;
    t = s->pord; s->pord = s->ord; s->ord = t;
    children_room(s, W);
    return 0;
}

/* The key of a path (key, last hypothesis end) extended by the fixed match at reference position `at`: a new chunk
 * unless it continues the path's last match. */
static inline int64_t fixed_key(const State *s, int32_t at, int64_t key, int32_t last, int64_t cu) {
    if (last != -1 && s->f_hs[at] != last) key += cu;
    return key - s->f_gk[at] + s->f_d[at];
}

/* A reference position without candidates, the parents changed in place: each has one child (itself, its key, end
 * and last match moved as the loop of run_search would move them), so no child is copied and no step recorded.
 * A parent whose word here is covered ends unless it is inside a longer match or a fixed match starts here; when
 * every parent ends, the best is kept as it is.  The ranks are then sorted again by key, ties in their order
 * (what push_path gives children made in parents' order: at most beam parents, so none is cut). */
static void pass_in_place(State *s, int W, int n2, int cur, int64_t cu) {
    int blk = cur >> 6;
    uint64_t bit = (uint64_t)1 << (cur & 63);
    Rank *po = (Rank *)s->pord.data;
    Path *pa = (Path *)s->paths.data;
    const uint64_t *pool = (const uint64_t *)s->pool.data;
    size_t np = s->pord.len, kept = 0;
    for (size_t i = 0; i < np; i++) {
        Path *p = &pa[po[i].slot];
        if (pool[p->moff + W + blk] & bit) {
            if (cur < p->idx) {
                po[kept++] = po[i];
            } else if (p->idx < n2 && s->fixed[p->idx]) {
                int32_t at = p->idx;
                p->key = fixed_key(s, at, p->key, p->last, cu);
                p->idx = s->f_rend[at];
                p->last = s->f_hend[at];
                po[i].key = p->key;
                po[kept++] = po[i];
            }
            continue;
        }
        if (p->last != -1) {
            p->key += cu;
            p->last = -1;
            po[i].key = p->key;
        }
        p->idx += 1;
        po[kept++] = po[i];
    }
    if (kept == 0) {
        s->pord.len = 1;  /* po[0] is the best parent, untouched (a parent that ends is not changed) */
        return;
    }
    for (size_t i = 1; i < kept; i++) {  /* insertion sort, stable: a few ranks, nearly in order */
        Rank r = po[i];
        size_t j = i;
        while (j > 0 && po[j - 1].key > r.key) {
            po[j] = po[j - 1];
            j--;
        }
        po[j] = r;
    }
    s->pord.len = kept;
}

/* The chosen candidates (indices into mi): the fixed matches and the best path's, ordered by reference start
 * (no two share one).  *out is malloc'd, *count its length; 0, or -1 with an exception set. */
static int chosen_order(State *s, int n2, const Path *best, Py_ssize_t **out, size_t *count) {
    const Node *nodes = (const Node *)s->nodes.data;
    size_t n = 0;
    for (int j = 0; j < n2; j++) n += s->fixed[j] != 0;
    for (int32_t c = best->chain; c >= 0; c = nodes[c].parent) n++;
    long *order = (long *)malloc((n ? n : 1) * 2 * sizeof(long));
    Py_ssize_t *res = (Py_ssize_t *)malloc((n ? n : 1) * sizeof(Py_ssize_t));
    if (!order || !res) { free(order); free(res); no_memory(); return -1; }
    size_t k = 0;
    for (int j = 0; j < n2; j++)
        if (s->fixed[j]) { order[2 * k] = j; order[2 * k + 1] = (long)(s->fixed[j] - 1); k++; }
    for (int32_t c = best->chain; c >= 0; c = nodes[c].parent) {
        order[2 * k] = s->steps[nodes[c].step].rs;
        order[2 * k + 1] = (long)s->steps[nodes[c].step].cand;
        k++;
    }
    qsort(order, n, 2 * sizeof(long), cmp_rstart);
    for (size_t i = 0; i < n; i++) res[i] = (Py_ssize_t)order[2 * i + 1];
    free(order);
    *out = res;
    *count = n;
    return 0;
}

/* Fill s->mi and s->first from cands (lists of Match objects by reference start), checked; 0 or -1. */
static int load_cands(State *s, PyObject *cands, int n1, int n2, Py_ssize_t *total_out) {
    Py_ssize_t total = 0;
    for (int j = 0; j < n2; j++) {
        PyObject *lst = PyList_GET_ITEM(cands, j);
        if (!PyList_Check(lst)) { PyErr_SetString(PyExc_TypeError, "cands must be a list of lists"); return -1; }
        total += PyList_GET_SIZE(lst);
    }
    s->mi = (MatchInts *)malloc((total ? total : 1) * sizeof(MatchInts));
    s->first = (Py_ssize_t *)malloc((n2 + 1) * sizeof(Py_ssize_t));
    if (!s->mi || !s->first) { PyErr_NoMemory(); return -1; }
    Py_ssize_t t = 0;
    for (int j = 0; j < n2; j++) {
        PyObject *lst = PyList_GET_ITEM(cands, j);
        s->first[j] = t;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lst); i++, t++) {
            MatchInts *mi = &s->mi[t];
            if (read_match(PyList_GET_ITEM(lst, i), mi)) return -1;
            if (mi->hstart < 0 || mi->hlen < 1 || mi->hstart + mi->hlen > n1 || mi->rstart != j || mi->rlen < 1
                || mi->rstart + mi->rlen > n2 || mi->dist < 0 || mi->gain < 0) {
                PyErr_SetString(PyExc_ValueError, "a candidate match lies outside the segment");
                return -1;
            }
        }
    }
    s->first[n2] = t;
    *total_out = total;
    return 0;
}

/* The search over the candidates in s->mi (s->first[j]..s->first[j + 1] at reference position j, checked to lie
 * in the segment).  0 with the chosen candidates in out and count (chosen_order), 1 when the segment is out of
 * this module's range (a key could overflow: the caller runs the pure-Python search), -1 with an exception. */
static int run_search(State *s, int n1, int n2, int beam, Py_ssize_t total, Py_ssize_t **out, size_t *count) {
    int nmax = n1 > n2 ? n1 : n2;
    int W = nmax / 64 + 1;
    s->cov_h = (int *)calloc(n1 + 1, sizeof(int));
    s->cov_r = (int *)calloc(n2 + 1, sizeof(int));
    s->fixed = (Py_ssize_t *)calloc(n2 + 1, sizeof(Py_ssize_t));
    s->f_gk = (int64_t *)calloc(n2 + 1, sizeof(int64_t));
    s->f_d = (int64_t *)calloc(n2 + 1, sizeof(int64_t));
    s->f_hs = (int32_t *)calloc(n2 + 1, sizeof(int32_t));
    s->f_rend = (int32_t *)calloc(n2 + 1, sizeof(int32_t));
    s->f_hend = (int32_t *)calloc(n2 + 1, sizeof(int32_t));
    s->st_first = (int32_t *)calloc(n2 + 2, sizeof(int32_t));
    if (!s->cov_h || !s->cov_r || !s->fixed || !s->f_gk || !s->f_d || !s->f_hs || !s->f_rend || !s->f_hend
        || !s->st_first) {
        no_memory();
        return -1;
    }
    /* How many candidates cover each word, and the distances' sum (for the key units). */
    uint64_t dist_sum = 0;
    for (Py_ssize_t t = 0; t < total; t++) {
        const MatchInts *mi = &s->mi[t];
        for (long k = mi->hstart; k < mi->hstart + mi->hlen; k++) s->cov_h[k]++;
        for (long k = mi->rstart; k < mi->rstart + mi->rlen; k++) s->cov_r[k]++;
        dist_sum += (uint64_t)mi->dist;
    }

    /* Key units, as in Plan: distances never spill into chunks, nor chunks into gains. */
    int dist_bits = bitlen(dist_sum + 1);
    int len_bits = bitlen((uint64_t)(n1 + n2 + 2));
    if (dist_bits + len_bits + bitlen((uint64_t)(n1 + n2 + 1)) + 1 > 62) return 1;
    int64_t cu = (int64_t)1 << dist_bits;
    int64_t gu = cu << len_bits;

    /* Fixed matches: the only candidate at their position, every word they cover covered once. */
    uint64_t used[2 * MAX_BLOCKS + 2];
    memset(used, 0, sizeof(used));
    int open = 0;  /* positions left to choose */
    for (int j = 0; j < n2; j++) {
        Py_ssize_t c = s->first[j + 1] - s->first[j];
        if (c != 1) { open += c > 0; continue; }
        MatchInts *mi = &s->mi[s->first[j]];
        int ok = 1;
        for (long k = mi->rstart; ok && k < mi->rstart + mi->rlen; k++) ok = s->cov_r[k] == 1;
        for (long k = mi->hstart; ok && k < mi->hstart + mi->hlen; k++) ok = s->cov_h[k] == 1;
        if (!ok) { open++; continue; }
        s->fixed[j] = s->first[j] + 1;
        s->f_hs[j] = (int32_t)mi->hstart;
        s->f_gk[j] = (int64_t)mi->gain * gu;
        s->f_d[j] = mi->dist;
        s->f_rend[j] = (int32_t)(mi->rstart + mi->rlen);
        s->f_hend[j] = (int32_t)(mi->hstart + mi->hlen);
        set_bits(used, mi->hstart, mi->hlen);
        set_bits(used + W, mi->rstart, mi->rlen);
    }
    if (!open) {
        Path none = {0, 0, -1, -1, -1, 0};
        return chosen_order(s, n2, &none, out, count);
    }

    /* Steps: the candidates of the positions left open. */
    s->steps = (Step *)malloc((total ? total : 1) * sizeof(Step));
    if (W == 1) s->st_masks = (uint64_t *)malloc((total ? total : 1) * 2 * sizeof(uint64_t));
    if (!s->steps || (W == 1 && !s->st_masks)) { no_memory(); return -1; }
    int32_t ns = 0;
    for (int j = 0; j < n2; j++) {
        s->st_first[j] = ns;
        if (s->fixed[j]) continue;
        for (Py_ssize_t c = s->first[j]; c < s->first[j + 1]; c++) {
            MatchInts *mi = &s->mi[c];
            Step *st = &s->steps[ns];
            st->gk = (int64_t)mi->gain * gu;
            st->d = mi->dist;
            st->hs = (int32_t)mi->hstart;
            st->hend = (int32_t)(mi->hstart + mi->hlen);
            st->rs = (int32_t)mi->rstart;
            st->rend = (int32_t)(mi->rstart + mi->rlen);
            st->cand = c;
            if (W == 1) {  /* hend, rend <= 63 */
                uint64_t *mk = s->st_masks + 2 * (size_t)ns;
                mk[0] = (((uint64_t)1 << (st->hend - st->hs)) - 1) << st->hs;
                mk[1] = st->rend - st->rs > 1 ? (((uint64_t)1 << (st->rend - st->rs)) - 1) << st->rs : 0;
            }
            ns++;
        }
    }
    s->st_first[n2] = ns;
    s->st_first[n2 + 1] = ns;

    s->paths.size = s->nxt.size = sizeof(Path);
    s->ord.size = s->pord.size = sizeof(Rank);
    s->pool.size = s->npool.size = sizeof(uint64_t);
    s->nodes.size = sizeof(Node);
    if (vec_reserve(&s->paths, 1) || vec_reserve(&s->pool, 2 * (size_t)W) || vec_reserve(&s->pord, 1))
        return -1;
    Path start = {0, 0, -1, -1, -1, 0};
    Rank first = {0, 0, 0};
    ((Path *)s->paths.data)[0] = start;
    ((Rank *)s->pord.data)[0] = first;
    memcpy(s->pool.data, used, 2 * (size_t)W * sizeof(uint64_t));
    s->pord.len = 1;

    for (int cur = 0; cur < n2; cur++) {
        int blk = cur >> 6;
        uint64_t bit = (uint64_t)1 << (cur & 63);
        const Step *here = s->steps + s->st_first[cur];
        int32_t nhere = s->st_first[cur + 1] - s->st_first[cur];
        if (nhere == 0) {
            pass_in_place(s, W, n2, cur, cu);
            continue;
        }
        s->ord.len = 0;
        const Rank *po = (const Rank *)s->pord.data;
        size_t np = s->pord.len;
        for (size_t i = 0; i < np; i++) {  /* the parents, best first (push_path writes the other arrays) */
            const Path p = ((const Path *)s->paths.data)[po[i].slot];
            const uint64_t *m = (const uint64_t *)s->pool.data + p.moff;
            if (m[W + blk] & bit) {
                if (cur < p.idx) {
                    if (push_path(s, W, beam, p.key, p.idx, p.last, p.chain, -1, m, NULL, NULL)) return -1;
                } else if (p.idx < n2 && s->fixed[p.idx]) {
                    if (push_path(s, W, beam, fixed_key(s, p.idx, p.key, p.last, cu), s->f_rend[p.idx], s->f_hend[p.idx],
                                  p.chain, -1, m, NULL, NULL))
                        return -1;
                }
                continue;
            }
            int64_t key = p.key;
            int64_t keyc = p.last != -1 ? key + cu : key;
            const uint64_t *masks = W == 1 ? s->st_masks + 2 * (size_t)s->st_first[cur] : NULL;
            for (int32_t k = 0; k < nhere; k++) {
                const Step *st = &here[k];
                const uint64_t *mk = masks ? masks + 2 * (size_t)k : NULL;
                if (collides(m, st, mk, W)) continue;
                if (push_path(s, W, beam, (st->hs == p.last ? key : keyc) - st->gk, st->rend, st->hend, p.chain,
                              s->st_first[cur] + k, m, st, mk))
                    return -1;
                key += st->d;
                keyc += st->d;
            }
            if (push_path(s, W, beam, keyc, p.idx + 1, -1, p.chain, -1, m, NULL, NULL)) return -1;
        }
        if (s->ord.len == 0) {
            /* Every path ended: keep the best one. */
            const Path p = ((const Path *)s->paths.data)[po[0].slot];
            const uint64_t *m = (const uint64_t *)s->pool.data + p.moff;
            if (push_path(s, W, beam, p.key, p.idx, p.last, p.chain, -1, m, NULL, NULL)) return -1;
        }
        if (keep_best(s, W)) return -1;
    }

    /* Close the open chunk of each kept path; the first best (in rank order) wins. */
    const Path *paths = (const Path *)s->paths.data;
    const Rank *po = (const Rank *)s->pord.data;
    const Path *best = &paths[po[0].slot];
    int64_t best_key = best->key + (best->last != -1 ? cu : 0);
    for (size_t i = 1; i < s->pord.len; i++) {
        const Path *p = &paths[po[i].slot];
        int64_t k = p->key + (p->last != -1 ? cu : 0);
        if (k < best_key) { best_key = k; best = p; }
    }
    return chosen_order(s, n2, best, out, count);
}

static PyObject *search(PyObject *self, PyObject *args) {
    int n1, n2, beam;
    PyObject *cands;
    (void)self;
    if (!PyArg_ParseTuple(args, "iiO!i:search", &n1, &n2, &PyList_Type, &cands, &beam)) return NULL;
    if (n1 < 0 || n2 < 0) { PyErr_SetString(PyExc_ValueError, "negative segment length"); return NULL; }
    if (PyList_GET_SIZE(cands) != n2) {
        PyErr_Format(PyExc_ValueError, "cands has %zd reference positions, the reference %d words", PyList_GET_SIZE(cands), n2);
        return NULL;
    }
    if (beam < 1) { PyErr_SetString(PyExc_ValueError, "the beam must be at least 1"); return NULL; }
    if ((n1 > n2 ? n1 : n2) > MAX_WORDS) Py_RETURN_NONE;
    State s;
    memset(&s, 0, sizeof(s));
    Py_ssize_t total = 0, *chosen = NULL;
    size_t count = 0;
    PyObject *res = NULL;
    int rc = load_cands(&s, cands, n1, n2, &total);
    if (rc == 0) rc = run_search(&s, n1, n2, beam, total, &chosen, &count);
    if (rc == 1) { res = Py_None; Py_INCREF(res); }
    else if (rc == 0 && (res = PyList_New((Py_ssize_t)count)) != NULL) {
        for (size_t i = 0; i < count; i++) {  /* candidate index -> its Match object */
            Py_ssize_t c = chosen[i];
            int j = (int)s.mi[c].rstart;
            PyObject *m = PyList_GET_ITEM(PyList_GET_ITEM(cands, j), c - s.first[j]);
            Py_INCREF(m);
            PyList_SET_ITEM(res, (Py_ssize_t)i, m);
        }
    }
    free(chosen);
    state_free(&s);
    return res;
}
