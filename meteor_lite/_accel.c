/*
 * meteor_lite._accel: optional compiled twins of the scorer's hottest loops.
 *
 * Each function does exactly what a pure-Python function does (that one stays the reference
 * and the default; meteor_lite/accel.py decides which runs):
 *
 *   search         meteor_lite.align.search.search_alignment_pure
 *   phrase_matches meteor_lite.align.matches.phrase_matches (without a cap)
 *   synonym_pairs  meteor_lite.align.matches.synonym_positions (a sentence's pairwise branch)
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

/* The kernels, by topic (one translation unit: each part uses those before it). */
#include "accel_c/core.c"
#include "accel_c/phrases.c"
#include "accel_c/synonyms.c"
#include "accel_c/pair.c"
#include "accel_c/walk.c"
#include "accel_c/words.c"
#include "accel_c/normalize.c"
#include "accel_c/mapped.c"

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
