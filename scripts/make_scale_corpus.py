#!/usr/bin/python3
"""A large synthetic corpus for measuring `tokvec train` at scale (docs/scale.md): lines of words drawn from a
Zipf distribution (exponent 1.1) over a vocabulary of the shared corpora's words (most frequent first) followed by
synthetic syllable words, so the number of unique words grows with the corpus as in natural text (Heaps' law)
until the vocabulary's 4 million words. Deterministic (seeded). Needs Debian's python3-numpy.

    /usr/bin/python3 scripts/make_scale_corpus.py --gb 10 -o /tmp/scale.txt [--files 4 [--part K]]
"""
import argparse
import collections
import os
import re
import sys

import numpy as np

SYLLABLES = [a + b for a in "bcdfghklmnprstvwz" for b in ["a", "e", "i", "o", "u", "ai", "ou", "ea"]]


def vocabulary(shared, size):
    counts = collections.Counter()
    corpora = os.path.join(shared, "corpora")
    for name in ("tinyshakespeare.txt", "wikitext2-test.txt", "gutenberg-big.txt"):
        path = os.path.join(corpora, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                counts.update(re.findall(r"\S+", f.read()))
    words = [w for w, _ in counts.most_common()]
    n = len(SYLLABLES)
    k = 0
    while len(words) < size:  # syllable words: k in base len(SYLLABLES), 2..5 syllables
        x, parts = k, []
        for _ in range(2 + k % 4):
            parts.append(SYLLABLES[x % n])
            x //= n
        words.append("".join(parts))
        k += 1
    return np.array([w.encode() for w in words[:size]], dtype=object)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, required=True)
    ap.add_argument("-o", "--output", required=True, help="file (or prefix with --files > 1)")
    ap.add_argument("--files", type=int, default=1)
    ap.add_argument("--vocab", type=int, default=4_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--part", type=int, default=-1, help="write only file PART of --files (to run them in parallel)")
    args = ap.parse_args()
    shared = os.environ.get("TOKVEC_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    words = vocabulary(shared, args.vocab)
    target = int(args.gb * 1e9)
    per_file = target // args.files
    for f in range(args.files) if args.part < 0 else [args.part]:
        rng = np.random.default_rng(args.seed * 1000 + f)  # each file its own stream: parts can run in parallel
        path = args.output if args.files == 1 else "%s.%02d" % (args.output, f)
        written = 0
        with open(path, "wb") as out:
            while written < per_file:
                ranks = rng.zipf(1.1, size=2_000_000)
                ranks = ranks[ranks <= len(words)] - 1
                chunk = words[ranks]
                lines = [b" ".join(chunk[i:i + 12]) for i in range(0, len(chunk), 12)]
                data = b"\n".join(lines) + b"\n"
                out.write(data)
                written += len(data)
        print("wrote %s: %.2f GB" % (path, written / 1e9), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
