#!/usr/bin/python3
"""Same-sense against cross-sense cosines of an ambiguous word's contextual vectors.

    /usr/bin/python3 scripts/sense_cosines.py data/bank_senses.tsv init=init.npy trained=fit.npy \\
        [--require-margin trained] [--require-gain trained:init]

SENSES is the sense<TAB>sentence file (lines starting with # skipped); each NAME=FILE.npy holds one vector per
sentence, in the file's order ([N, D] float32, e.g. `tokvec embed --lines --pooling last --format npy`). For every
pair of different sentences it takes the cosine of their vectors and prints, per model, the mean over pairs of the
same sense, the mean over pairs of different senses, and the margin (same - cross): once on the raw vectors, once
on the vectors minus their mean over the set ("centred"). Contextual vectors share a large common direction
(Ethayarajh 2019, https://arxiv.org/abs/1909.00512: raw cosines of a language model's last layer are near 1 for
any two words), which the raw cosines mostly measure; centring removes it, so the centred margin is the one
checked.

--require-margin NAME exits 1 unless NAME's centred margin is positive (its vectors tell the senses apart:
sentences of the same sense are closer than sentences of different senses); --require-gain A:B exits 1 unless A's
centred margin exceeds B's (e.g. the trained model separates the senses better than the same model untrained).
"""

import argparse
import itertools
import sys

import numpy as np


def read_senses(path):
    senses, sentences = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        sense, sentence = line.split("\t", 1)
        senses.append(sense)
        sentences.append(sentence)
    return senses, sentences


def margins(vectors, senses, centre):
    v = vectors.astype(np.float64)
    if centre:
        v = v - v.mean(axis=0)
    v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
    same, cross = [], []
    for i, j in itertools.combinations(range(len(senses)), 2):
        (same if senses[i] == senses[j] else cross).append(float(v[i] @ v[j]))
    return float(np.mean(same)), float(np.mean(cross)), len(same), len(cross)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("senses")
    parser.add_argument("vectors", nargs="+", help="NAME=FILE.npy")
    parser.add_argument("--require-margin", action="append", default=[])
    parser.add_argument("--require-gain", action="append", default=[])
    args = parser.parse_args()
    senses, _ = read_senses(args.senses)
    results = {}
    print("%-10s %-8s %10s %10s %10s   (%d sentences, %s)" % ("model", "vectors", "same", "cross", "margin",
                                                               len(senses), ", ".join(sorted(set(senses)))))
    for spec in args.vectors:
        name, path = spec.split("=", 1)
        vectors = np.load(path)
        if vectors.shape[0] != len(senses):
            print("error: %s holds %d vectors for %d sentences" % (path, vectors.shape[0], len(senses)),
                  file=sys.stderr)
            return 1
        for centre in (False, True):
            same, cross, n_same, n_cross = margins(vectors, senses, centre)
            if centre:
                results[name] = same - cross
            print("%-10s %-8s %10.4f %10.4f %+10.4f   (%d same-sense pairs, %d cross-sense pairs)" %
                  (name, "centred" if centre else "raw", same, cross, same - cross, n_same, n_cross))
    failed = False
    for name in args.require_margin:
        if not results[name] > 0:
            print("error: %s: the centred same-sense cosine does not exceed the cross-sense one" % name,
                  file=sys.stderr)
            failed = True
    for spec in args.require_gain:
        a, b = spec.split(":")
        if not results[a] > results[b]:
            print("error: %s's centred margin %.4f does not exceed %s's %.4f" % (a, results[a], b, results[b]),
                  file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
