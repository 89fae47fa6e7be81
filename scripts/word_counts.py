#!/usr/bin/env python3
"""Word counts in tokvec's count-file format, written the way docs/scale.md's Spark and Dask examples write them:
whitespace words (str.split), tokvec's escapes, one `piece<TAB>count` line each, no header, no order, split into
--parts files like a cluster job's partitions. Plain python3, no packages.

    python3 scripts/word_counts.py --parts 3 -o counts/ corpus.txt more.txt
    tokvec train --from-counts --type word --vocab-size 30000 -o m.tokvec counts/part-*

It is the format's reference writer outside tokvec (tests/cli/count_command_test.cc trains from its output and
expects the bytes of `tokvec train` on the text). Python's whitespace is Unicode's White_Space plus the
separators U+001C..U+001F, which tokvec treats as word characters; text without them is counted alike.
"""
import argparse
import collections
import os
import sys


def escape(piece):
    """tokvec's escapes (tokenizer/formats/text_escape.h) for a word: backslash, control characters and DEL."""
    out = []
    for ch in piece:
        if ch == "\\":
            out.append("\\\\")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02X" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", type=int, default=2, help="how many part files (default 2)")
    parser.add_argument("-o", "--output", required=True, help="directory for part-00000 ... (created)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    counts = collections.Counter()
    for path in args.files:
        with open(path, encoding="utf-8", newline="") as f:
            for line in f:
                counts.update(line.split())
    os.makedirs(args.output, exist_ok=True)
    parts = [open(os.path.join(args.output, "part-%05d" % i), "w", encoding="utf-8", newline="\n")
             for i in range(args.parts)]
    for word, count in counts.items():  # partitioned by hash, in no order, as reduceByKey leaves them
        parts[hash(word) % args.parts].write("%s\t%d\n" % (escape(word), count))
    for part in parts:
        part.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
