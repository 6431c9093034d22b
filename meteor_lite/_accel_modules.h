/* Generated from meteor_lite/align/modules.py (make accel, or make modules-header): do not edit.
 * The matcher modules' codes in the pair kernel, what each needs of a packed sentence, and its gain rule. */
#ifndef METEOR_LITE_ACCEL_MODULES_H
#define METEOR_LITE_ACCEL_MODULES_H

#define MOD_EXACT 0  /* exact */
#define MOD_STEM 1  /* stem */
#define MOD_SYNONYM 2  /* synonym */
#define MOD_PARAPHRASE 3  /* paraphrase */
#define MOD_NEAR 4  /* near */
#define MOD_COUNT 5

/* The near module's parameters. */
#define MOD_NEAR_MIN_CHARS 4
#define MOD_NEAR_LENGTH_PER_EDIT 4

#define NEED_STEM 1
#define NEED_SYNONYMS 2
#define NEED_PHRASES 4

/* What each module needs of both sides, by code. */
static const unsigned char MODULE_NEEDS[MOD_COUNT] = {0, NEED_STEM, NEED_SYNONYMS, NEED_PHRASES, 0};
/* Its gain rule, by code: 1 one per word matched, 0 half of each side rounded down. */
static const unsigned char MODULE_EXACT_GAIN[MOD_COUNT] = {1, 0, 0, 0, 0};

#endif

/* Included once more by accel_c/pair.c, with ACCEL_MODULE_MATCHERS defined, where the matchers are called: the
 * matchers in their own files, then every module's matcher by code. */
#if defined(ACCEL_MODULE_MATCHERS) && !defined(METEOR_LITE_ACCEL_MATCHERS)
#define METEOR_LITE_ACCEL_MATCHERS
#include "accel_c/near.c"
static int (*const MODULE_MATCHERS[MOD_COUNT])(Found *, int, int, const Packed *, const Packed *) = {
    word_candidates,  /* MOD_EXACT */
    word_candidates,  /* MOD_STEM */
    synonym_candidates,  /* MOD_SYNONYM */
    paraphrase_candidates,  /* MOD_PARAPHRASE */
    near_candidates,  /* MOD_NEAR */
};
#endif
