#!/usr/bin/python3
"""Speed of the Python module against the npm peers (tiktoken 1.0.22, Hugging Face tokenizers 0.23.2), gpt2 ids:

  1. microseconds per encode("hello world") (the per-call overhead of each binding on a short string; also through
     the drop-in tokvec.tiktoken, which checks for disallowed special text first as tiktoken does)
  2. MB/s of encode_batch over every line of the shared corpora (each line its own text), 1 and 2 threads;
     the peers' batch encoders: Hugging Face encodeBatch (RAYON_NUM_THREADS threads), tiktoken a loop of
     encode_ordinary (its JS binding has no batch call; one thread)

    PYTHONPATH=build/python bench/python_bench.py [--rounds 5]

Prints medians over the rounds and the ratios (peer time / tokvec time: > 1 means tokvec is faster). The token
counts of all three are checked equal. Environment: TOKVEC_SHARED_DIR (default ../shared); the npm peers come
from ${XDG_CACHE_HOME:-~/.cache}/tokvec/npm (scripts/conformance.sh installs them).
"""
import argparse
import importlib
import json
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

import tokvec

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200000)
    args = parser.parse_args()
    shared = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    npm = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "tokvec" / "npm"
    vocab = shared / "vocab"
    enc = tokvec.Tokenizer.load(str(vocab / "gpt2.tiktoken"))

    # 1. Short calls.
    ours = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for _ in range(args.calls):
            enc.encode("hello world")
        ours.append((time.perf_counter() - start) * 1e6 / args.calls)
    peers = json.loads(subprocess.check_output(
        ["node", str(ROOT / "bench" / "python_peer.mjs"), str(npm / "node_modules"), str(vocab), "short",
         str(args.rounds), str(args.calls)]))
    us = statistics.median(ours)
    os.environ.setdefault("TOKVEC_VOCAB_PATH", str(vocab))
    dropin_enc = importlib.import_module("tokvec.tiktoken").get_encoding("gpt2")
    dropin = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for _ in range(args.calls):
            dropin_enc.encode("hello world")  # tiktoken's semantics: the disallowed-special check included
        dropin.append((time.perf_counter() - start) * 1e6 / args.calls)
    print(f"encode('hello world'), µs per call (median of {args.rounds} rounds of {args.calls} calls)")
    print(f"  tokvec (Python)         {us:8.3f}")
    print(f"  tokvec.tiktoken         {statistics.median(dropin):8.3f}   (drop-in: tiktoken's special-text check)")
    for name, key in [("tiktoken (npm, WASM)", "tiktoken_us"), ("HF tokenizers (npm)", "hf_us")]:
        peer = statistics.median(peers[key])
        print(f"  {name:23s} {peer:8.3f}   tokvec {peer / us:5.2f}x faster")

    # 2. Batches of lines.
    files = sorted((shared / "corpora").glob("*.txt")) + sorted((shared / "corpora" / "udhr").glob("*.txt"))
    data = b"".join(f.read_bytes().rstrip(b"\n") + b"\n" for f in files)
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    megabytes = len(text.encode()) / 1e6
    print(f"\nencode_batch of {len(lines)} lines, {megabytes:.1f} MB (shared corpora), MB/s (median of {args.rounds})")
    tokens = None
    results = {}
    for threads in (1, 2):
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            ids = enc.encode_batch(lines, num_threads=threads)
            times.append(time.perf_counter() - start)
            count = sum(len(x) for x in ids)
            del ids  # freeing the 6 million ints is not part of the next round's time
        assert tokens in (None, count)
        tokens = count
        results[threads] = megabytes / statistics.median(times)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        for threads in (1, 2):
            env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
            peers = json.loads(subprocess.check_output(
                ["node", str(ROOT / "bench" / "python_peer.mjs"), str(npm / "node_modules"), str(vocab), "batch",
                 str(args.rounds), f.name], env=env))
            assert peers["tokens"] == tokens, (peers["tokens"], tokens)
            hf = megabytes / (statistics.median(peers["hf_ms"]) / 1e3)
            tk = megabytes / (statistics.median(peers["tiktoken_ms"]) / 1e3)
            ours = results[threads]
            print(f"  {threads} thread{'s' if threads > 1 else ' '}: tokvec {ours:7.2f}   HF encodeBatch {hf:7.2f} "
                  f"(tokvec {ours / hf:5.2f}x)   tiktoken loop, 1 thread {tk:7.2f} (tokvec {ours / tk:5.2f}x)")
    print(f"  {tokens} tokens, equal in all three")


if __name__ == "__main__":
    main()
