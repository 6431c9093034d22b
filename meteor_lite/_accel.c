/*
 * meteor_lite._accel: optional compiled twins of the scorer's hottest loops.
 *
 * Each function does exactly what a pure-Python function does (that one stays the reference
 * and the default; meteor_lite/accel.py decides which runs):
 *
 *   search         meteor_lite.align.search.search_alignment_pure
 *   phrase_matches meteor_lite.align.matches.phrase_matches (without a cap)
 *   synonym_pairs  meteor_lite.align.matches.synonym_positions (a sentence's pairwise branch)
 *   near_pairs     meteor_lite.align.near.near_positions without a cap (the pair kernel's matcher, near_spans)
 *   walk_level     one length of meteor_lite.resources.lookups.Resources._walk
 *   java_hashes    meteor_lite.jarcompat.java_string_hashes
 *   positions_of   meteor_lite.align.matches.positions_of
 *   word_matches   the loop of meteor_lite.align.matches.collect_matches that makes one-word Match objects
 *   pack_words,    one pair scored: collect_matches, the search and scoring._side_stats's counts
 *   align_stats,   (scoring._align_sides), on sentences packed once each (scoring.prepare_side); align_many
 *   align_many     aligns many pairs with the GIL released; the module codes are those of the generated
 *                  header _accel_modules.h (meteor_lite/align/modules.py, the module registry)
 *   walk_held      meteor_lite.resources.lookups.Resources._walk over a table held in memory (preload=True)
 *   mapped_find,   the look-ups of meteor_lite.resources.mapped.MappedTables and its walk (walk_held over a
 *   mapped_walk    mapped table file)
 *   mapped_synsets meteor_lite.resources.lookups.Resources.synsets over a mapped table file
 *   prepare_western  meteor_lite.text.normalize.prepare with -norm for a western language (normalize,
 *                  java_lower and Meteor's white-space split in one pass)
 *
 * The search: the same as meteor_lite/align/search.py: fix the matches that are the only candidate for every word
 * they cover, then a left-to-right beam search over reference positions.  Partial
 * alignments are ranked by one integer key (-gain * gain_unit + chunks * chunk_unit +
 * distance) and ties keep their order of creation, exactly as the stable sort of the
 * pure-Python search does.  Where the Python search skips children that cannot survive
 * the next cut (crowded positions), this one creates them all and cuts: the survivors
 * and their order are the same.
 *
 * search(n1, n2, cands, beam) returns the chosen Match objects ordered by reference
 * start, or None when the segment is out of this module's range (more than
 * MAX_WORDS words on a side, or a key that could overflow 62 bits): the caller then
 * runs the pure-Python search.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#ifndef _WIN32
#include <unistd.h>
#endif

#include "_accel_modules.h"

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

/* ---- one pair, aligned and counted ------------------------------------------------------- */

/* One sentence as align_stats reads it, packed once by pack_words from its words' records: Java hashes of its
 * words and of their stems, sorted synset ids per word, function-word flags, length units, its words as spans
 * chained by hash (ascending positions), and its paraphrase-table phrases, each with its table entry parsed
 * (ParsedEntry: the parse cache's, kept alive with it, or one of the sentence's own); the words' and the entries'
 * texts are kept alive by `view`. */
typedef struct {
    Py_ssize_t n;
    long long *hash, *stem, *syn_vals;   /* stem, syn_vals: NULL without the module */
    Py_ssize_t *syn_start;               /* word i's synsets: syn_vals[syn_start[i]..syn_start[i + 1]] */
    Py_ssize_t *syn_pos, *syn_head, *syn_next, syn_size;  /* by synset: chains of syn_vals' indices (hash table) */
    char *func;
    long *len;
    Span *w;
    Py_ssize_t size, *head, *next;       /* hash chains of the words: head[hash & (size - 1)], next[i] */
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
    free(p->hash); free(p->stem); free(p->syn_vals); free(p->syn_start); free(p->syn_pos); free(p->syn_head);
    free(p->syn_next); free(p->func); free(p->len); free(p->w); free(p->head); free(p->next); free(p->hit_start); free(p->hit_len);
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

/* A table entry's paraphrases (tab-separated, their words space-separated) as pack_words reads them: each
 * paraphrase's first word in word[], and each word's start and length in the entry and, for a paraphrase's first
 * word, its hash (span_hash; 0 for the others, which are compared as text).  One block of memory. */
typedef struct ParsedEntry {
    PyObject *text;          /* the entry (a strong reference when cached) */
    Py_ssize_t npara, nwords;
    int32_t *first;          /* npara + 1: paraphrase q's words are first[q]..first[q + 1] */
    int32_t *start, *len;    /* nwords each */
    uint32_t *hash;
} ParsedEntry;

/* Where parse_entry splits an entry: a word ends at a space, a paraphrase at a tab (and 0, a str's terminator). */
static const unsigned char ENTRY_STOP[256] = {[0] = 1, ['\t'] = 1, [' '] = 1};

/* parse_entry's scratch arrays (a word can be one character and its separator: at most len + 1 of each), kept
 * between calls (the GIL is held and no Python code runs while it parses). */
static struct {
    int32_t *first, *start, *len;
    uint32_t *hash;
    Py_ssize_t cap;
} parse_scratch;

static int parse_scratch_room(Py_ssize_t n) {
    if (n <= parse_scratch.cap) return 0;
    Py_ssize_t cap = parse_scratch.cap ? parse_scratch.cap : 1024;
    while (cap < n) cap *= 2;
    int32_t *f = (int32_t *)realloc(parse_scratch.first, (size_t)cap * sizeof(int32_t));
    if (f) parse_scratch.first = f;
    int32_t *st = f ? (int32_t *)realloc(parse_scratch.start, (size_t)cap * sizeof(int32_t)) : NULL;
    if (st) parse_scratch.start = st;
    int32_t *ln = st ? (int32_t *)realloc(parse_scratch.len, (size_t)cap * sizeof(int32_t)) : NULL;
    if (ln) parse_scratch.len = ln;
    uint32_t *h = ln ? (uint32_t *)realloc(parse_scratch.hash, (size_t)cap * sizeof(uint32_t)) : NULL;
    if (!h) { PyErr_NoMemory(); return -1; }
    parse_scratch.hash = h;
    parse_scratch.cap = cap;
    return 0;
}

/* The paraphrases and words of `entry` (a str), split as phrase_matches splits them: every tab ends a paraphrase,
 * every space a word (an empty paraphrase has one empty word), in one pass into the scratch arrays, which *view
 * then describes (valid until the next parse).  0, or -1 with an exception set. */
static int parse_to_scratch(PyObject *entry, ParsedEntry *view) {
    int kind = PyUnicode_KIND(entry);
    const void *data = PyUnicode_DATA(entry);
    Py_ssize_t end = PyUnicode_GET_LENGTH(entry);
    if (end > INT32_MAX - 2) { PyErr_SetString(PyExc_ValueError, "a paraphrase entry is too long"); return -1; }
    if (parse_scratch_room(end + 2) < 0) return -1;
    int32_t *first = parse_scratch.first, *start = parse_scratch.start, *len = parse_scratch.len;
    uint32_t *hash = parse_scratch.hash;
    Py_ssize_t q = 0, i = 0, w = 0, k = 0;  /* paraphrase start, position, words and paraphrases so far */
    first[k++] = 0;
    for (;;) {  /* one word: data[a:i] */
        Py_ssize_t a = i;
        uint32_t h = 0;
        if (kind == PyUnicode_1BYTE_KIND) {
            const Py_UCS1 *d = (const Py_UCS1 *)data;  /* NUL-terminated, as every str */
            for (;;) {
                while (!ENTRY_STOP[d[i]]) i++;
                if (d[i] || i >= end) break;
                i++;  /* a NUL inside the text: part of the word */
            }
        } else {
            while (i < end) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                if (c == ' ' || c == '\t') break;
                i++;
            }
        }
        if (a == q) h = span_hash(kind, data, a, i);  /* only a paraphrase's first word is looked up by its hash */
        start[w] = (int32_t)a;
        len[w] = (int32_t)(i - a);
        hash[w] = h;
        w++;
        if (i >= end) break;
        if (PyUnicode_READ(kind, data, i) == '\t') {
            q = i + 1;
            first[k++] = (int32_t)w;
        }
        i++;
    }
    first[k] = (int32_t)w;
    view->text = entry;
    view->npara = k;
    view->nwords = w;
    view->first = first;
    view->start = start;
    view->len = len;
    view->hash = hash;
    return 0;
}

/* parse_to_scratch's result in one block of its own (for the cache).  NULL with an exception set. */
static ParsedEntry *parse_entry(PyObject *entry) {
    ParsedEntry v;
    if (parse_to_scratch(entry, &v) < 0) return NULL;
    Py_ssize_t npara = v.npara, nwords = v.nwords;
    size_t bytes = sizeof(ParsedEntry) + (size_t)(npara + 1) * sizeof(int32_t) + (size_t)nwords * (2 * sizeof(int32_t) + sizeof(uint32_t));
    ParsedEntry *pe = (ParsedEntry *)malloc(bytes);
    if (!pe) { PyErr_NoMemory(); return NULL; }
    pe->text = entry;
    pe->npara = npara;
    pe->nwords = nwords;
    pe->first = (int32_t *)(pe + 1);
    pe->start = pe->first + npara + 1;
    pe->len = pe->start + nwords;
    pe->hash = (uint32_t *)(pe->len + nwords);
    memcpy(pe->first, v.first, (size_t)(npara + 1) * sizeof(int32_t));
    memcpy(pe->start, v.start, (size_t)nwords * sizeof(int32_t));
    memcpy(pe->len, v.len, (size_t)nwords * sizeof(int32_t));
    memcpy(pe->hash, v.hash, (size_t)nwords * sizeof(uint32_t));
    return pe;
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

/* The bucket of a synset id in a hash table of `size` (a power of two) buckets. */
static size_t synset_bucket(long long v, Py_ssize_t size) {
    return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ULL) >> 32) & (size_t)(size - 1);
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

/* The table of p's synsets (syn_vals, syn_start): each id's words, chained by bucket. */
static int pack_synset_table(Packed *p) {
    Py_ssize_t total = p->syn_start[p->n];
    p->syn_size = 8;
    while (p->syn_size < 2 * total) p->syn_size *= 2;
    p->syn_pos = (Py_ssize_t *)malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    p->syn_next = (Py_ssize_t *)malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    p->syn_head = (Py_ssize_t *)malloc((size_t)p->syn_size * sizeof(Py_ssize_t));
    if (!p->syn_pos || !p->syn_next || !p->syn_head) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t b = 0; b < p->syn_size; b++) p->syn_head[b] = -1;
    for (Py_ssize_t i = 0; i < p->n; i++)
        for (Py_ssize_t k = p->syn_start[i]; k < p->syn_start[i + 1]; k++) {
            size_t bucket = synset_bucket(p->syn_vals[k], p->syn_size);
            p->syn_pos[k] = i;
            p->syn_next[k] = p->syn_head[bucket];
            p->syn_head[bucket] = k;
        }
    return 0;
}

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
    p->size = 8;
    while (p->size < 2 * n) p->size *= 2;
    p->hash = (long long *)malloc((n + 1) * sizeof(long long));
    p->func = (char *)malloc((size_t)n + 1);
    p->len = (long *)malloc((n + 1) * sizeof(long));
    p->w = (Span *)malloc((n + 1) * sizeof(Span));
    p->head = (Py_ssize_t *)malloc(p->size * sizeof(Py_ssize_t));
    p->next = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    if (stem) p->stem = (long long *)malloc((n + 1) * sizeof(long long));
    if (synonym) {
        p->syn_vals = (long long *)malloc(((size_t)syn_total + 1) * sizeof(long long));
        p->syn_start = (Py_ssize_t *)malloc((n + 1) * sizeof(Py_ssize_t));
    }
    flist = PyList_New(n);
    llist = PyList_New(n);
    if (!p->hash || !p->func || !p->len || !p->w || !p->head || !p->next || (stem && !p->stem)
        || (synonym && (!p->syn_vals || !p->syn_start)) || !flist || !llist) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    if (chain_words(tup, p->w, p->head, p->next, p->size)) goto fail;
    double total = 0, func_total = 0;
    Py_ssize_t t = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const RecHead *hd = &heads[i];
        p->hash[i] = hd->hash;
        if (stem) p->stem[i] = hd->stem;
        if (synonym) {
            p->syn_start[i] = t;
            memcpy(p->syn_vals + t, PyBytes_AS_STRING(held[i]) + REC_HEAD, 8 * (size_t)hd->nsyn);
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
        p->syn_start[n] = t;
        if (pack_synset_table(p)) goto fail;
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
    MatchInts *x = &f->m[f->len];
    x->rstart = rs; x->rlen = rl; x->hstart = hs; x->hlen = hl;
    x->gain = exact ? hl + rl : hl / 2 + rl / 2;  /* as Match.__init__ */
    x->dist = rs > hs ? rs - hs : hs - rs;
    f->mod[f->len] = mod;
    f->len++;
    return 0;
}

/* The one-word candidates of the exact (MOD_EXACT) or stem (MOD_STEM) module, as collect_matches finds them. */
static int word_candidates(Found *f, int mi, int kind, const Packed *h, const Packed *r) {
    /* the hypothesis's words chained by their key (the word's hash, or its stem's) in a small table, each chain in
     * ascending position: each reference word then visits only the words with its key, in the order of a scan */
    const long long *hk = kind == MOD_EXACT ? h->hash : h->stem, *rk = kind == MOD_EXACT ? r->hash : r->stem;
    Py_ssize_t size = 8;
    while (size < 2 * h->n) size *= 2;
    Py_ssize_t local[64 + 32], *mem = size + h->n <= 64 + 32 ? local : (Py_ssize_t *)malloc((size_t)(size + h->n) * sizeof(Py_ssize_t));
    if (!mem) { no_memory(); return -1; }
    Py_ssize_t *head = mem, *next = mem + size;
    for (Py_ssize_t b = 0; b < size; b++) head[b] = -1;
    for (Py_ssize_t i = h->n - 1; i >= 0; i--) {
        size_t b = synset_bucket(hk[i], size);
        next[i] = head[b];
        head[b] = i;
    }
    int rc = 0;
    for (Py_ssize_t j = 0; j < r->n && !rc; j++) {
        long long rw = r->hash[j], key = rk[j];
        for (Py_ssize_t i = head[synset_bucket(key, size)]; i >= 0; i = next[i]) {
            int hit = hk[i] == key && (kind == MOD_EXACT || h->hash[i] != rw);
            if (hit && found_add(f, mi, (long)j, 1, (long)i, 1, MODULE_EXACT_GAIN[kind])) { rc = -1; break; }
        }
    }
    if (mem != local) free(mem);
    return rc;
}

/* The synonym candidates: for each reference word, the hypothesis words sharing a synset with it (found through
 * the hypothesis's synset table, marked in a row of flags), read as collect_matches finds them: hypothesis
 * positions ascending, other words only. */
static int synonym_candidates(Found *f, int mi, const Packed *h, const Packed *r) {
    Py_ssize_t n1 = h->n;
    unsigned char *row = (unsigned char *)malloc((size_t)n1 + 1);
    if (!row) { no_memory(); return -1; }
    int rc = 0;
    for (Py_ssize_t j = 0; j < r->n && !rc; j++) {
        if (r->syn_start[j + 1] == r->syn_start[j]) continue;
        memset(row, 0, (size_t)n1 + 1);
        int any = 0;
        for (Py_ssize_t k = r->syn_start[j]; k < r->syn_start[j + 1]; k++) {
            long long v = r->syn_vals[k];
            for (Py_ssize_t e = h->syn_head[synset_bucket(v, h->syn_size)]; e >= 0; e = h->syn_next[e])
                if (h->syn_vals[e] == v) { row[h->syn_pos[e]] = 1; any = 1; }
        }
        if (!any) continue;
        for (Py_ssize_t i = 0; i < n1; i++)
            if (row[i] && h->hash[i] != r->hash[j] && found_add(f, mi, (long)j, 1, (long)i, 1, MODULE_EXACT_GAIN[MOD_SYNONYM])) {
                rc = -1;
                break;
            }
    }
    free(row);
    return rc;
}

/* The paraphrase candidates: where the paraphrases of the reference's phrases occur in the hypothesis, then
 * the other way round; phrase by phrase, paraphrases in table order, positions ascending (phrase_matches). */
static int paraphrase_candidates(Found *f, int mi, const Packed *h, const Packed *r) {
    for (int side = 0; side < 2; side++) {
        const Packed *from = side == 0 ? r : h, *to = side == 0 ? h : r;
        for (Py_ssize_t t = 0; t < from->nhits; t++) {
            const ParsedEntry *pe = from->hit_entry[t];
            int kind = PyUnicode_KIND(pe->text);
            const void *data = PyUnicode_DATA(pe->text);
            for (Py_ssize_t q = 0; q < pe->npara; q++) {
                Py_ssize_t a = pe->first[q], pl = pe->first[q + 1] - a;  /* at least one (maybe empty) word */
                Span first = {kind, data, pe->start[a], pe->len[a], pe->hash[a]};
                for (Py_ssize_t o = to->head[first.hash & (to->size - 1)]; o >= 0; o = to->next[o]) {
                    if (o + pl > to->n || !span_equal(&to->w[o], &first)) continue;
                    int same = 1;
                    for (Py_ssize_t k = 1; same && k < pl; k++) {
                        Span wk = {kind, data, pe->start[a + k], pe->len[a + k], 0};
                        same = span_same_text(&to->w[o + k], &wk);
                    }
                    if (!same) continue;
                    long st = from->hit_start[t], kl = from->hit_len[t];
                    int exact = MODULE_EXACT_GAIN[MOD_PARAPHRASE];
                    if (side == 0 ? found_add(f, mi, st, kl, (long)o, (long)pl, exact)
                                  : found_add(f, mi, (long)o, (long)pl, st, kl, exact))
                        return -1;
                }
            }
        }
    }
    return 0;
}

/* The near module (meteor_lite/align/near.py): the optimal string alignment distance of two words' code points
 * (insertions, deletions, substitutions, swaps of adjacent characters) is at most `limit`?  rows: 3 * (y->len + 1)
 * ints of scratch. */
static int spans_within(const Span *x, const Span *y, Py_ssize_t limit, Py_ssize_t *rows) {
    Py_ssize_t la = x->len, lb = y->len;
    if (la - lb > limit || lb - la > limit) return 0;
    Py_ssize_t *prev2 = rows, *prev = rows + (lb + 1), *cur = rows + 2 * (lb + 1);
    for (Py_ssize_t j = 0; j <= lb; j++) prev[j] = j;
    for (Py_ssize_t i = 1; i <= la; i++) {
        Py_UCS4 ai = PyUnicode_READ(x->kind, x->data, x->start + i - 1);
        Py_UCS4 ap = i > 1 ? PyUnicode_READ(x->kind, x->data, x->start + i - 2) : 0;
        Py_ssize_t best = cur[0] = i;
        for (Py_ssize_t j = 1; j <= lb; j++) {
            Py_UCS4 bj = PyUnicode_READ(y->kind, y->data, y->start + j - 1);
            Py_ssize_t d = prev[j - 1] + (ai != bj);
            if (prev[j] + 1 < d) d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ai == PyUnicode_READ(y->kind, y->data, y->start + j - 2) && ap == bj && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < best) best = d;
        }
        if (best > limit) return 0;
        Py_ssize_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] <= limit;
}

/* Are two different words a near match (near.near_words: both of at least MOD_NEAR_MIN_CHARS code points, within one
 * edit per MOD_NEAR_LENGTH_PER_EDIT code points of the longer)?  rows as spans_within's. */
static int near_spans(const Span *x, const Span *y, Py_ssize_t *rows) {
    if (x->len < MOD_NEAR_MIN_CHARS || y->len < MOD_NEAR_MIN_CHARS) return 0;
    return spans_within(x, y, (x->len > y->len ? x->len : y->len) / MOD_NEAR_LENGTH_PER_EDIT, rows);
}

/* The near candidates: for each reference word, the other hypothesis words it nearly matches, positions ascending
 * (near.near_positions). */
static int near_candidates(Found *f, int mi, const Packed *h, const Packed *r) {
    Py_ssize_t longest = 0;
    for (Py_ssize_t i = 0; i < h->n; i++) if (h->w[i].len > longest) longest = h->w[i].len;
    for (Py_ssize_t j = 0; j < r->n; j++) if (r->w[j].len > longest) longest = r->w[j].len;
    Py_ssize_t *rows = (Py_ssize_t *)malloc(3 * ((size_t)longest + 1) * sizeof(Py_ssize_t));
    if (!rows) { no_memory(); return -1; }
    int rc = 0;
    for (Py_ssize_t j = 0; j < r->n && !rc; j++) {
        if (r->w[j].len < MOD_NEAR_MIN_CHARS) continue;
        for (Py_ssize_t i = 0; i < h->n; i++) {
            if (h->hash[i] == r->hash[j] || !near_spans(&h->w[i], &r->w[j], rows)) continue;
            if (found_add(f, mi, (long)j, 1, (long)i, 1, MODULE_EXACT_GAIN[MOD_NEAR])) { rc = -1; break; }
        }
    }
    free(rows);
    return rc;
}

/* near_pairs(hyp, ref, hk, rk): per reference word, the hypothesis positions of its near matches (other words,
 * ascending): near.near_positions without a cap, by the same matcher as the pair kernel's (near_spans). */
static PyObject *near_pairs(PyObject *self, PyObject *args) {
    PyObject *hyp, *ref, *hk, *rk;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOO!O!:near_pairs", &hyp, &ref, &PyList_Type, &hk, &PyList_Type, &rk)) return NULL;
    PyObject *ht = PySequence_Tuple(hyp), *rt = ht ? PySequence_Tuple(ref) : NULL, *out = NULL;
    Span *w = NULL;
    long long *keys = NULL;
    Py_ssize_t *rows = NULL;
    if (!rt) goto done;
    Py_ssize_t n1 = PyTuple_GET_SIZE(ht), n2 = PyTuple_GET_SIZE(rt), longest = 0;
    if (PyList_GET_SIZE(hk) != n1 || PyList_GET_SIZE(rk) != n2) {
        PyErr_SetString(PyExc_ValueError, "one hash per word is needed");
        goto done;
    }
    w = (Span *)malloc(((size_t)(n1 + n2) + 1) * sizeof(Span));
    keys = (long long *)malloc(((size_t)(n1 + n2) + 1) * sizeof(long long));
    if (!w || !keys) { PyErr_NoMemory(); goto done; }
    if (long_array(hk, keys, n1) || long_array(rk, keys + n1, n2)) goto done;
    for (Py_ssize_t k = 0; k < n1 + n2; k++) {
        PyObject *o = k < n1 ? PyTuple_GET_ITEM(ht, k) : PyTuple_GET_ITEM(rt, k - n1);
        if (!PyUnicode_Check(o)) { PyErr_SetString(PyExc_TypeError, "words must be strings"); goto done; }
        Span sp = {PyUnicode_KIND(o), PyUnicode_DATA(o), 0, PyUnicode_GET_LENGTH(o), 0};
        w[k] = sp;
        if (sp.len > longest) longest = sp.len;
    }
    rows = (Py_ssize_t *)malloc(3 * ((size_t)longest + 1) * sizeof(Py_ssize_t));
    if (!rows) { PyErr_NoMemory(); goto done; }
    out = PyList_New(n2);
    for (Py_ssize_t j = 0; out && j < n2; j++) {
        PyObject *row = PyList_New(0);
        if (!row) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, j, row);
        if (w[n1 + j].len < MOD_NEAR_MIN_CHARS) continue;
        for (Py_ssize_t i = 0; i < n1; i++) {
            if (keys[i] == keys[n1 + j] || !near_spans(&w[i], &w[n1 + j], rows)) continue;
            PyObject *iv = PyLong_FromSsize_t(i);
            if (!iv || PyList_Append(row, iv) < 0) { Py_XDECREF(iv); Py_CLEAR(out); break; }
            Py_DECREF(iv);
        }
    }
done:
    free(w); free(keys); free(rows);
    Py_XDECREF(ht);
    Py_XDECREF(rt);
    return out;
}

/* One module's candidates of a pair, by its code (MOD_*, the generated header). */
static int module_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    switch (code) {
    case MOD_EXACT:
    case MOD_STEM: return word_candidates(f, mi, code, h, r);
    case MOD_SYNONYM: return synonym_candidates(f, mi, h, r);
    case MOD_PARAPHRASE: return paraphrase_candidates(f, mi, h, r);
    case MOD_NEAR: return near_candidates(f, mi, h, r);
    default: break;
    }
    PyGILState_STATE g = PyGILState_Ensure();  /* module_kinds refuses other codes: not reached */
    PyErr_Format(PyExc_SystemError, "no matcher for module code %d", code);
    PyGILState_Release(g);
    return -1;
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
        if (((need & NEED_STEM) && (!(*h)->stem || !(*r)->stem)) || ((need & NEED_SYNONYMS) && (!(*h)->syn_head || !(*r)->syn_head))
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

/* word_matches(cands, positions, module, exact, Match): for each reference word j and each hypothesis
 * position i of positions[j] (ascending), append Match(module, j, 1, i, 1, exact) to cands[j]: the objects
 * Match's __init__ makes (gain 2 for an exact match of one word a side, else 1 // 2 + 1 // 2 = 0; distance
 * |j - i|), built in place. */
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
    PyObject *one = PyLong_FromLong(1), *mod = PyLong_FromLong(module), *gain = PyLong_FromLong(exact ? 2 : 0);
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
            PyObject *dv = PyLong_FromSsize_t(i > j ? i - j : j - i);
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

/* ---- Meteor's -norm for the lines of a western language ------------------------------ */

/* prepare_western(line, apostrophes, keep_punct, lower, nonbreaking, lower_table): the tokens that
 * meteor_lite.text.normalize.prepare(line, lang, norm=True, ...) returns for a language of WESTERN_LANGS with
 * Meteor's white-space tokeniser; None for a line out of this twin's range (lower-casing a line that holds a
 * capital sigma, whose Java lower case depends on word boundaries): the caller then runs the pure-Python code.
 * `apostrophes` is 0 for English's rules, 1 for French's, 2 for the generic rule (every apostrophe split off);
 * `nonbreaking` is the dict of non-breaking prefixes (prefix -> numeric only); `lower_table` is the dict of
 * Java's lower-case mappings (code point -> string) of normalize.py, read for non-ASCII characters.
 *
 * The line is copied into an array of code points (a Python str's characters) and each pass below rewrites it
 * as one re.sub / str.replace of the Python code does, in the same order and with the same left-to-right scan:
 * after a match the scan goes on after the characters it consumed (so in "a,b,c" the first comma rule takes
 * "a,b" and leaves ",c" alone).  The character classes are normalize.py's (_ALPHA: ASCII, Latin-1 and Latin
 * Extended-A letters but x and ÷, Cyrillic and its supplement, Cyrillic Extended-B, the phonetic extensions;
 * digits: 0-9 only). */

typedef Py_UCS4 NChar;

typedef struct {
    NChar *p;
    Py_ssize_t n, cap;
} NormBuf;

/* Empty `b` with room for `need` characters. */
static int nb_fresh(NormBuf *b, Py_ssize_t need) {
    b->n = 0;
    if (b->p && need <= b->cap) return 0;
    NChar *p = PyMem_Realloc(b->p, (size_t)need * sizeof(NChar));
    if (!p) { PyErr_NoMemory(); return -1; }
    b->p = p;
    b->cap = need;
    return 0;
}

static void nb_swap(NormBuf *a, NormBuf *b) {
    NormBuf t = *a;
    *a = *b;
    *b = t;
}

#define NC_COPY(dst, src, k) memcpy((dst), (src), (size_t)(k) * sizeof(NChar))

enum { NC_DIGIT, NC_NOT_DIGIT, NC_ALPHA, NC_NOT_ALPHA, NC_ALNUM, NC_NOT_ALNUM, NC_ALNUM_DOT, NC_S };

static inline int nc_alpha(NChar c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return (c >= 0xC0 && c <= 0x17E && c != 0xD7 && c != 0xF7) || (c >= 0x400 && c <= 0x527)
           || (c >= 0xA640 && c <= 0xA66E) || (c >= 0xA67E && c <= 0xA697) || (c >= 0x1D00 && c <= 0x1D7F);
}
static inline int nc_digit(NChar c) { return c >= '0' && c <= '9'; }
static inline int nc_alnum(NChar c) { return nc_digit(c) || nc_alpha(c); }
/* StringTokenizer's delimiters (not \x0b). */
static inline int nc_tokensep(NChar c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
/* The spaces Meteor collapses at the end: ' ', U+00A0, U+2000-U+200A, U+202F, U+205F, U+3000. */
static inline int nc_white(NChar c) {
    return c == ' ' || c == 0xA0 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
}

static inline int nc_in(int cls, NChar c) {
    switch (cls) {
    case NC_DIGIT: return nc_digit(c);
    case NC_NOT_DIGIT: return !nc_digit(c);
    case NC_ALPHA: return nc_alpha(c);
    case NC_NOT_ALPHA: return !nc_alpha(c);
    case NC_ALNUM: return nc_alnum(c);
    case NC_NOT_ALNUM: return !nc_alnum(c);
    case NC_ALNUM_DOT: return nc_alnum(c) || c == '.';
    default: return c == 's';
    }
}

/* Where character `c` first occurs in s[from:n], or -1. */
static inline Py_ssize_t nb_chr(const NChar *s, Py_ssize_t from, Py_ssize_t n, NChar c) {
    Py_ssize_t i = from;
#if defined(__SSE2__)
    /* four characters a comparison: most passes look for a character a line does not have (an apostrophe, a dash) */
    const __m128i want = _mm_set1_epi32((int)c);
    for (; i + 4 <= n; i += 4) {
        int hit = _mm_movemask_epi8(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), want));
        if (hit) return i + (__builtin_ctz((unsigned)hit) >> 2);
    }
#endif
    for (; i < n; i++)
        if (s[i] == c) return i;
    return -1;
}

/* Where `pat` (ASCII) first occurs in s[from:n], or -1. */
static Py_ssize_t nb_find(const NChar *s, Py_ssize_t n, Py_ssize_t from, const char *pat, Py_ssize_t pl) {
    while (from + pl <= n) {
        Py_ssize_t i = nb_chr(s, from, n - pl + 1, (NChar)(unsigned char)pat[0]);
        if (i < 0) return -1;
        Py_ssize_t k = 1;
        while (k < pl && s[i + k] == (NChar)(unsigned char)pat[k]) k++;
        if (k == pl) return i;
        from = i + 1;
    }
    return -1;
}

#define NB_HAS(buf, pat) (nb_find((buf)->p, (buf)->n, 0, (pat), (Py_ssize_t)sizeof(pat) - 1) >= 0)

static inline NChar *nb_put(NChar *o, const char *ascii, Py_ssize_t k) {
    for (Py_ssize_t i = 0; i < k; i++) *o++ = (NChar)(unsigned char)ascii[i];
    return o;
}

/* re.sub("(A)<mid>(B)", r"\1<repl>\2", s) for one-character classes A and B into `out`: 1, or 0 when nothing
 * matches (`out` then untouched), -1 on error.  A match at j needs j >= the end of the previous match, as
 * re.sub's scan does. */
static int nb_sub3(const NormBuf *in, NormBuf *out, int ca, char mid, int cb, const char *repl) {
    Py_ssize_t rl = (Py_ssize_t)strlen(repl), n = in->n, done = 0, from = 1;
    const NChar *s = in->p;
    NChar *o = NULL;
    while (from < n) {
        Py_ssize_t m = nb_chr(s, from, n, (NChar)mid);
        if (m < 0) break;
        if (m + 1 < n && nc_in(ca, s[m - 1]) && nc_in(cb, s[m + 1])) {
            if (!o) {
                if (nb_fresh(out, n + (n / 3 + 1) * rl) < 0) return -1;
                o = out->p;
            }
            NC_COPY(o, s + done, m - done);  /* up to and with the first character */
            o += m - done;
            o = nb_put(o, repl, rl);
            *o++ = s[m + 1];
            done = m + 2;
            from = done + 1;
        } else {
            from = m + 1;
        }
    }
    if (!o) return 0;
    NC_COPY(o, s + done, n - done);
    out->n = (o - out->p) + (n - done);
    return 1;
}

/* s.replace(pat, rep) (both ASCII) into `out`: 1, or 0 when `pat` does not occur (`out` untouched), -1 on error. */
static int nb_replace(const NormBuf *in, NormBuf *out, const char *pat, const char *rep) {
    Py_ssize_t pl = (Py_ssize_t)strlen(pat), rl = (Py_ssize_t)strlen(rep), n = in->n, i = 0;
    if (nb_find(in->p, n, 0, pat, pl) < 0) return 0;
    if (nb_fresh(out, n + (n / pl + 1) * rl) < 0) return -1;
    NChar *o = out->p;
    for (;;) {
        Py_ssize_t at = nb_find(in->p, n, i, pat, pl);
        if (at < 0) break;
        NC_COPY(o, in->p + i, at - i);
        o += at - i;
        o = nb_put(o, rep, rl);
        i = at + pl;
    }
    NC_COPY(o, in->p + i, n - i);
    out->n = (o - out->p) + (n - i);
    return 1;
}

/* " " + line + " " with every character other than letters, digits, Java's \s and . ' ` , - U+2018 U+2019
 * set off by spaces. */
static int nb_separate(PyObject *line, NormBuf *out) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(line);
    int kind = PyUnicode_KIND(line);
    const void *data = PyUnicode_DATA(line);
    if (nb_fresh(out, 3 * n + 2) < 0) return -1;
    NChar *o = out->p;
    *o++ = ' ';
    for (Py_ssize_t i = 0; i < n; i++) {
        NChar c = PyUnicode_READ(kind, data, i);
        if (nc_alnum(c) || c == ' ' || (c >= '\t' && c <= '\r') || c == '.' || c == '\'' || c == '`' || c == ','
            || c == '-' || c == 0x2018 || c == 0x2019) {
            *o++ = c;
        } else {
            *o++ = ' ';
            *o++ = c;
            *o++ = ' ';
        }
    }
    *o++ = ' ';
    out->n = o - out->p;
    return 0;
}

/* re.sub(r"\.(\.+)", r" DOTMULTI\1", s) into `out`: 1, or 0 when there is no ".." (`out` untouched). */
static int nb_mark_dots(const NormBuf *in, NormBuf *out) {
    Py_ssize_t n = in->n, i = 0;
    if (nb_find(in->p, n, 0, "..", 2) < 0) return 0;
    if (nb_fresh(out, 5 * n + 16) < 0) return -1;
    const NChar *s = in->p;
    NChar *o = out->p;
    while (i < n) {
        if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
            Py_ssize_t j = i + 1;
            while (j < n && s[j] == '.') j++;
            o = nb_put(o, " DOTMULTI", 9);
            NC_COPY(o, s + i + 1, j - i - 1);
            o += j - i - 1;
            i = j;
        } else {
            *o++ = s[i++];
        }
    }
    out->n = o - out->p;
    return 1;
}

/* re.sub(r"DOTMULTI\.([^.])", r"DOTDOTMULTI \1", s). */
static int nb_dotmulti_space(const NormBuf *in, NormBuf *out) {
    Py_ssize_t n = in->n, i = 0;
    if (nb_fresh(out, 2 * n + 16) < 0) return -1;
    const NChar *s = in->p;
    NChar *o = out->p;
    while (i < n) {
        if (i + 9 < n && s[i + 8] == '.' && s[i + 9] != '.' && nb_find(s, i + 8, i, "DOTMULTI", 8) == i) {
            o = nb_put(o, "DOTDOTMULTI ", 12);
            *o++ = s[i + 9];
            i += 10;
        } else {
            *o++ = s[i++];
        }
    }
    out->n = o - out->p;
    return 1;
}

/* _commas_quotes_dashes after the commas: ` U+2018 U+2019 -> ', then U+201C U+201D and '' -> " (spaced), then
 * U+2013 -> -, then -- -> -.  1 (the result in `out`) or -1. */
static int nb_quotes(NormBuf *a, NormBuf *b) {
    Py_ssize_t n = a->n, i = 0;
    NChar *s = a->p;
    for (Py_ssize_t k = 0; k < n; k++)
        if (s[k] == '`' || s[k] == 0x2018 || s[k] == 0x2019) s[k] = '\'';
    if (nb_fresh(b, 2 * n + 16) < 0) return -1;
    NChar *o = b->p;
    while (i < n) {  /* re.sub("[\u201c\u201d]|''", ' " ', s) */
        if (s[i] == 0x201C || s[i] == 0x201D) {
            o = nb_put(o, " \" ", 3);
            i++;
        } else if (s[i] == '\'' && i + 1 < n && s[i + 1] == '\'') {
            o = nb_put(o, " \" ", 3);
            i += 2;
        } else {
            *o++ = s[i] == 0x2013 ? '-' : s[i];  /* str.replace("\u2013", "-") comes next: no overlap */
            i++;
        }
    }
    b->n = o - b->p;
    int r = nb_replace(b, a, "--", "-");
    if (r < 0) return -1;
    if (r) nb_swap(a, b);
    return 1;
}

/* Start and length of each run of non-delimiters (StringTokenizer's tokens) of s[0:n], into `spans`
 * (pairs); returns how many, or -1 (an exception set).  *spans is PyMem-allocated (the caller frees it). */
static Py_ssize_t nb_spans(const NChar *s, Py_ssize_t n, Py_ssize_t **spans) {
    Py_ssize_t k = 0, i = 0;
    Py_ssize_t *sp = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n + 2));  /* at most n / 2 + 1 tokens */
    if (!sp) { PyErr_NoMemory(); return -1; }
    while (i < n) {
        while (i < n && nc_tokensep(s[i])) i++;
        if (i >= n) break;
        Py_ssize_t start = i;
        while (i < n && !nc_tokensep(s[i])) i++;
        sp[2 * k] = start;
        sp[2 * k + 1] = i - start;
        k++;
    }
    *spans = sp;
    return k;
}

/* A new str of the characters s[0:n]. */
static PyObject *nb_str(const NChar *s, Py_ssize_t n) {
    NChar top = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] > top) top = s[i];
    PyObject *str = PyUnicode_New(n, top);
    if (!str) return NULL;
    switch (PyUnicode_KIND(str)) {
    case PyUnicode_1BYTE_KIND: {
        Py_UCS1 *d = PyUnicode_1BYTE_DATA(str);
        for (Py_ssize_t i = 0; i < n; i++) d[i] = (Py_UCS1)s[i];
        break;
    }
    case PyUnicode_2BYTE_KIND: {
        Py_UCS2 *d = PyUnicode_2BYTE_DATA(str);
        for (Py_ssize_t i = 0; i < n; i++) d[i] = (Py_UCS2)s[i];
        break;
    }
    default:
        NC_COPY(PyUnicode_4BYTE_DATA(str), s, n);
    }
    return str;
}

/* Whether `pre` (a token less its final dot, followed by a token starting with `nxt`, 0 for none) keeps its
 * dot as a non-breaking prefix: 1 yes, 0 no, -1 error. */
static int nb_keeps_dot(PyObject *nonbreaking, const NChar *pre, Py_ssize_t len, NChar nxt) {
    if (nxt >= 'a' && nxt <= 'z') return 1;  /* before a lower-case word a dot always stays */
    if (PyDict_GET_SIZE(nonbreaking) == 0) return 0;
    PyObject *key = nb_str(pre, len);
    if (!key) return -1;
    PyObject *kind = PyDict_GetItemWithError(nonbreaking, key);  /* borrowed */
    Py_DECREF(key);
    if (!kind) return PyErr_Occurred() ? -1 : 0;
    if (kind == Py_None) return 0;
    int numeric_only = PyObject_IsTrue(kind);
    if (numeric_only < 0) return -1;
    return !numeric_only || (nxt >= '0' && nxt <= '9');
}

/* _split_final_dots: tokens joined by single spaces plus a final space; a final dot split off a token unless it
 * is an abbreviation with letters (its dots dropped: U.S. -> US) or a non-breaking prefix. */
static int nb_final_dots(const NormBuf *in, NormBuf *out, PyObject *nonbreaking) {
    Py_ssize_t *sp = NULL;
    Py_ssize_t k = nb_spans(in->p, in->n, &sp);
    if (k < 0) return -1;
    if (nb_fresh(out, 2 * in->n + 2) < 0) { PyMem_Free(sp); return -1; }
    NChar *o = out->p;
    for (Py_ssize_t t = 0; t < k; t++) {
        const NChar *tok = in->p + sp[2 * t];
        Py_ssize_t len = sp[2 * t + 1];
        int mode = 0;  /* 0 as is, 1 dots dropped, 2 final dot split off */
        if (len > 1 && tok[len - 1] == '.') {
            int dot = 0, alpha = 0;
            for (Py_ssize_t c = 0; c < len - 1; c++) {
                dot |= tok[c] == '.';
                alpha |= nc_alpha(tok[c]);
            }
            if (dot && alpha) {
                mode = 1;
            } else {
                NChar nxt = t + 1 < k ? in->p[sp[2 * t + 2]] : 0;
                int keeps = nb_keeps_dot(nonbreaking, tok, len - 1, nxt);
                if (keeps < 0) { PyMem_Free(sp); return -1; }
                mode = keeps ? 0 : 2;
            }
        }
        if (mode == 1) {
            for (Py_ssize_t c = 0; c < len; c++)
                if (tok[c] != '.') *o++ = tok[c];
        } else if (mode == 2) {
            NC_COPY(o, tok, len - 1);
            o += len - 1;
            *o++ = ' ';
            *o++ = '.';
        } else {
            NC_COPY(o, tok, len);
            o += len;
        }
        if (t + 1 < k) *o++ = ' ';
    }
    *o++ = ' ';
    out->n = o - out->p;
    PyMem_Free(sp);
    return 1;
}

/* The passes of _normalize_western, leaving the result (before _finish) in *a (b is scratch).  Each pass
 * writes into b and returns 1 (then a and b swap), or 0 when it changes nothing. */
static int nb_western(NormBuf *a, NormBuf *b, int apostrophes, int keep_punct, PyObject *nonbreaking) {
#define PASS(call) do { int r_ = (call); if (r_ < 0) return -1; if (r_) nb_swap(a, b); } while (0)
    PASS(nb_mark_dots(a, b));
    while (NB_HAS(a, "DOTMULTI.")) {
        PASS(nb_dotmulti_space(a, b));
        PASS(nb_replace(a, b, "DOTMULTI.", "DOTDOTMULTI"));
    }
    PASS(nb_sub3(a, b, NC_NOT_DIGIT, ',', NC_NOT_DIGIT, " , "));
    PASS(nb_sub3(a, b, NC_DIGIT, ',', NC_NOT_DIGIT, " , "));
    PASS(nb_sub3(a, b, NC_NOT_DIGIT, ',', NC_DIGIT, " , "));
    PASS(nb_quotes(a, b));
    PASS(nb_sub3(a, b, NC_ALNUM_DOT, '-', NC_ALNUM, " "));
    if (apostrophes == 0) {
        PASS(nb_sub3(a, b, NC_NOT_ALPHA, '\'', NC_NOT_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_NOT_ALNUM, '\'', NC_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_ALPHA, '\'', NC_NOT_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_ALPHA, '\'', NC_ALPHA, " '"));
        PASS(nb_sub3(a, b, NC_DIGIT, '\'', NC_S, " '"));
    } else if (apostrophes == 1) {
        PASS(nb_sub3(a, b, NC_NOT_ALPHA, '\'', NC_NOT_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_NOT_ALPHA, '\'', NC_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_ALPHA, '\'', NC_NOT_ALPHA, " ' "));
        PASS(nb_sub3(a, b, NC_ALPHA, '\'', NC_ALPHA, "' "));
    } else {
        PASS(nb_replace(a, b, "'", " ' "));
    }
    PASS(nb_final_dots(a, b, nonbreaking));
    while (NB_HAS(a, "DOTDOTMULTI")) PASS(nb_replace(a, b, "DOTDOTMULTI", "DOTMULTI."));
    PASS(nb_replace(a, b, "DOTMULTI", "."));
    if (!keep_punct)
        for (Py_ssize_t i = 0; i < a->n; i++)
            if (!nc_alnum(a->p[i])) a->p[i] = ' ';
    return 0;
#undef PASS
}

/* Java's toLowerCase() of a[start:end] (no capital sigma there) into b: ASCII directly, other characters by
 * `table` (code point -> str; absent: unchanged).  0 or -1. */
static int nb_lower(const NormBuf *a, Py_ssize_t start, Py_ssize_t end, NormBuf *b, PyObject *table) {
    if (nb_fresh(b, 3 * (end - start) + 1) < 0) return -1;  /* a mapping is at most 3 characters here */
    NChar *o = b->p;
    for (Py_ssize_t i = start; i < end; i++) {
        NChar c = a->p[i];
        if (c < 0x80) {
            *o++ = (c >= 'A' && c <= 'Z') ? c + 32 : c;
            continue;
        }
        PyObject *key = PyLong_FromUnsignedLong((unsigned long)c);
        if (!key) return -1;
        PyObject *low = PyDict_GetItemWithError(table, key);  /* borrowed */
        Py_DECREF(key);
        if (!low) {
            if (PyErr_Occurred()) return -1;
            *o++ = c;
            continue;
        }
        Py_ssize_t k = PyUnicode_Check(low) ? PyUnicode_GET_LENGTH(low) : -1;
        if (k < 0 || k > 3) {
            PyErr_SetString(PyExc_ValueError, "lower_table values must be strings of at most 3 characters");
            return -1;
        }
        for (Py_ssize_t j = 0; j < k; j++) *o++ = PyUnicode_READ_CHAR(low, j);
    }
    b->n = o - b->p;
    return 0;
}

/* _finish (runs of Meteor's spaces collapsed to one, String.trim()), lower-casing, StringTokenizer's tokens. */
static PyObject *nb_tokens(NormBuf *a, NormBuf *b, int lower, PyObject *table) {
    Py_ssize_t w = 0;
    int in_run = 0;
    for (Py_ssize_t i = 0; i < a->n; i++) {  /* in place: w <= i */
        NChar c = a->p[i];
        if (nc_white(c)) {
            if (!in_run) a->p[w++] = ' ';
            in_run = 1;
        } else {
            a->p[w++] = c;
            in_run = 0;
        }
    }
    Py_ssize_t start = 0, end = w;
    while (start < end && a->p[start] <= 0x20) start++;
    while (end > start && a->p[end - 1] <= 0x20) end--;
    const NChar *s = a->p;
    if (lower) {
        if (nb_lower(a, start, end, b, table) < 0) return NULL;
        s = b->p;
        start = 0;
        end = b->n;
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Py_ssize_t i = start;
    while (i < end) {
        while (i < end && nc_tokensep(s[i])) i++;
        if (i >= end) break;
        Py_ssize_t from = i;
        while (i < end && !nc_tokensep(s[i])) i++;
        PyObject *tok = nb_str(s + from, i - from);
        if (!tok) { Py_DECREF(out); return NULL; }
        int bad = PyList_Append(out, tok) < 0;
        Py_DECREF(tok);
        if (bad) { Py_DECREF(out); return NULL; }
    }
    return out;
}

static PyObject *prepare_western(PyObject *self, PyObject *args) {
    PyObject *line, *nonbreaking, *table;
    int apostrophes, keep_punct, lower;
    (void)self;
    if (!PyArg_ParseTuple(args, "UippO!O!:prepare_western", &line, &apostrophes, &keep_punct, &lower, &PyDict_Type,
                          &nonbreaking, &PyDict_Type, &table))
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(line) < 0) return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(line);
    if (apostrophes < 0 || apostrophes > 2 || n > PY_SSIZE_T_MAX / 64) Py_RETURN_NONE;
    if (lower && !PyUnicode_IS_ASCII(line)) {
        Py_ssize_t sigma = PyUnicode_FindChar(line, 0x3A3, 0, n, 1);
        if (sigma == -2) return NULL;
        if (sigma >= 0) Py_RETURN_NONE;  /* a capital sigma: its lower case depends on Java's word boundaries */
    }
    NormBuf a = {NULL, 0, 0}, b = {NULL, 0, 0};
    PyObject *res = NULL;
    if (nb_separate(line, &a) == 0 && nb_western(&a, &b, apostrophes, keep_punct, nonbreaking) == 0)
        res = nb_tokens(&a, &b, lower, table);
    PyMem_Free(a.p);
    PyMem_Free(b.p);
    return res;
}

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

static PyMethodDef methods[] = {
    {"word_matches", word_matches, METH_VARARGS,
     "word_matches(cands, positions, module, exact, Match): append the one-word matches of a module to cands."},
    {"search", search, METH_VARARGS,
     "search(n1, n2, cands, beam) -> list of Match, or None when out of range: the compiled alignment search."},
    {"make_records", make_records, METH_VARARGS,
     "make_records(records, words, hashes, stem_hashes, synsets, function) -> None: each word's record for pack_words, "
     "put in records."},
    {"pack_words", pack_words, METH_VARARGS,
     "pack_words(words, records, hits, stem, synonym, char_based=False, cache=None) -> (capsule, function flags, lengths, total, "
     "function total) of one sentence packed for align_stats, or the words that have no record yet; hits: its phrase hits, "
     "the mapped table to walk for them (MappedTables.walk_spec), or None."},
    {"walk_held", walk_held, METH_VARARGS,
     "walk_held(sentences, entries, beginnings, max_len) -> each sentence's phrase hits, from a table held in memory."},
    {"align_stats", align_stats, METH_VARARGS,
     "align_stats(hyp, ref, modules, beam) -> the statistics and chosen matches of one pair, or None out of range."},
    {"align_many", align_many, METH_VARARGS,
     "align_many(pairs, modules, beam) -> align_stats of each (hyp, ref) pair, the GIL released while they are aligned."},
    {"phrase_matches", phrase_matches, METH_VARARGS,
     "phrase_matches(hits, words) -> list of (start, length, other start, other length): table entries read as stored."},
    {"synonym_pairs", synonym_pairs, METH_VARARGS,
     "synonym_pairs(yh, yr, hk, rk) -> per reference word, the hypothesis positions sharing a synset (other words)."},
    {"java_hashes", java_hashes, METH_VARARGS,
     "java_hashes(words) -> Java's String.hashCode() of each word, or None when one holds a lone surrogate."},
    {"positions_of", positions_of, METH_VARARGS, "positions_of(words) -> item -> ascending positions."},
    {"near_pairs", near_pairs, METH_VARARGS,
     "near_pairs(hyp, ref, hk, rk) -> per reference word, the hypothesis positions of its near matches (other words)."},
    {"mapped_find", mapped_find, METH_VARARGS,
     "mapped_find(data, fd, off, nslots, kind, keys, cache=None) -> the keys' values in one table of a mapped table file."},
    {"parse_cache", parse_cache, METH_O, "parse_cache(max) -> an empty cache of at most max parsed paraphrase entries for pack_words."},
    {"parse_cache_len", parse_cache_len, METH_O, "parse_cache_len(cache) -> the parsed entries it holds."},
    {"entry_cache", entry_cache, METH_NOARGS, "entry_cache() -> an empty cache of paraphrase entries for mapped_find, mapped_walk and pack_words' walk."},
    {"entry_cache_len", entry_cache_len, METH_O, "entry_cache_len(cache) -> the entries it holds."},
    {"entry_cache_clear", entry_cache_clear, METH_O, "entry_cache_clear(cache) -> None: empty it."},
    {"mapped_walk", mapped_walk, METH_VARARGS,
     "mapped_walk(data, fd, off, nslots, sentences, max_len, cache=None) -> each sentence's phrase hits, from a mapped table file."},
    {"mapped_synsets", mapped_synsets, METH_VARARGS,
     "mapped_synsets(data, fd, syn_off, syn_n, exc_off, exc_n, words, rules) -> each word's synsets with its base "
     "forms', from a mapped table file."},
    {"walk_level", walk_level, METH_VARARGS,
     "walk_level(active, paras, prefix, sentences, n, grow, hits) -> (longer, unknown): one length of the walk."},
    {"prepare_western", prepare_western, METH_VARARGS,
     "prepare_western(line, apostrophes, keep_punct, lower, nonbreaking, lower_table) -> Meteor's -norm tokens of a "
     "line of a western language (apostrophes: 0 en, 1 fr, 2 split all), or None out of range."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_accel", "Optional compiled twins of the scorer's hottest loops (see meteor_lite/accel.py).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__accel(void) {
    s_rstart = PyUnicode_InternFromString("rstart");
    s_rlen = PyUnicode_InternFromString("rlen");
    s_hstart = PyUnicode_InternFromString("hstart");
    s_hlen = PyUnicode_InternFromString("hlen");
    s_gain = PyUnicode_InternFromString("gain");
    s_dist = PyUnicode_InternFromString("dist");
    if (!s_rstart || !s_rlen || !s_hstart || !s_hlen || !s_gain || !s_dist) return NULL;
    crc_init();
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "MAX_WORDS", MAX_WORDS) < 0
              || PyModule_AddStringConstant(m, "SOURCE_SHA256", ACCEL_SOURCE_SHA256) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
