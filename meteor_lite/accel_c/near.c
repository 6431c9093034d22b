/* meteor_lite._accel: the near module's matcher (near_matches; meteor_lite/align/near.py) for the pair kernel
 * (near_candidates).  Included by pair.c through the generated header _accel_modules.h.  A module needs nothing
 * else in C: no per-function twin, no method-table entry (pairs the pair kernel does not take are matched in
 * Python). */

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

/* The near module's matcher: for each reference word j of at least MOD_NEAR_MIN_CHARS code points, the other
 * hypothesis words i it nearly matches (near_spans; other words: their hashes hk[i], rk[j] differ), positions
 * ascending (near.near_positions): out->add(ctx, j, i) for each.  Reads no Python object (safe without the GIL).  0,
 * or -1 (no memory, or out stopped it) with an exception set. */
static int near_matches(const Span *hw, const long long *hk, Py_ssize_t n1, const Span *rw, const long long *rk,
                        Py_ssize_t n2, const Sink *out) {
    Py_ssize_t longest = 0;
    for (Py_ssize_t i = 0; i < n1; i++) if (hw[i].len > longest) longest = hw[i].len;
    for (Py_ssize_t j = 0; j < n2; j++) if (rw[j].len > longest) longest = rw[j].len;
    Py_ssize_t *rows = (Py_ssize_t *)malloc(3 * ((size_t)longest + 1) * sizeof(Py_ssize_t));
    if (!rows) { no_memory(); return -1; }
    int rc = 0;
    for (Py_ssize_t j = 0; j < n2 && !rc; j++) {
        if (rw[j].len < MOD_NEAR_MIN_CHARS) continue;
        for (Py_ssize_t i = 0; i < n1; i++)
            if (hk[i] != rk[j] && near_spans(&hw[i], &rw[j], rows) && out->add(out->ctx, j, i) < 0) { rc = -1; break; }
    }
    free(rows);
    return rc;
}

/* The near candidates (near_matches of the packed words). */
static int near_candidates(Found *f, int mi, int code, const Packed *h, const Packed *r) {
    FoundWords c = {f, mi, MODULE_EXACT_GAIN[code]};
    Sink sink = {found_word, &c};
    return near_matches(h->words.w, h->hash, h->n, r->words.w, r->hash, r->n, &sink);
}
