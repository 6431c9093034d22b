/* meteor_lite._accel: Meteor's -norm for the lines of a western language.  Part of one translation unit: included by meteor_lite/_accel.c, in order
 * (after the headers it includes, and the parts before this one). */

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
