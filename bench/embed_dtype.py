#!/usr/bin/python3
"""Reduced precision (`tokvec embed --dtype f32|bf16|int8`): speed, weight memory and accuracy against f32, same
run, GPT-2 small and BERT-base shapes with random weights (the checkpoints of bench/embed_model.py, written once
into its cache).

    bench/embed_dtype.sh [TOKVEC_BINARY] [--threads 1,2] [--rounds 3] [--corpus-lines 20]

Speed: `tokvec embed --lines --pooling mean --format npy --threads N --dtype D` over the 32 wikitext lines of
bench/embed_model.py (64..192 GPT-2 tokens each, 3,742 tokens), wall time minus that of a one-word run of the same
command (loading and packing the model), median over --rounds; tokens/s counts the model's tokens (BERT: with
[CLS] and [SEP]). Load: the one-word run's wall time (bf16 / int8 include packing the weights).
Memory: bytes of the big linear layers as they run (f32; bf16; int8 with a scale and offset per output), from
the shapes, and the peak RSS of the 32-line run (the f32 checkpoint stays mapped and, after packing, in the page
cache: RSS counts it too).
Accuracy: cosine between the mean-pooled vectors of each dtype and of f32 (min and median) and max abs diff, on
the 32 wikitext lines and on lines of ../shared/corpora: the first --corpus-lines non-empty lines (at most 200
characters) of each top-level file (English, Japanese) and the first line of every eighth UDHR translation.
PyTorch's own reduced precision, same run, same texts and weights: bench/embed_model.py's float32 Encoder
(transformers' GPT2Model / BertModel written out), and that model after `torch.ao.quantization.quantize_dynamic(
model, {nn.Linear}, dtype=torch.qint8)` on the onednn engine (Debian's PyTorch 1.13 has onednn and qnnpack, no
fbgemm): int8 weights per tensor, activations quantized per call, as a CPU user would try first. Each is timed over
the 32 texts, one text per call and in length-sorted buckets of 8 (its faster way counts), torch.set_num_threads(N),
median over --rounds; its ids are tokvec's (the Python module, PYTHONPATH as embed_dtype.sh sets it). Reported: its
tokens/s, tokvec int8 / PyTorch int8, and the cosine of PyTorch int8's pooled vectors to PyTorch f32's (and of
tokvec int8's to tokvec f32's). `--no-torch` leaves it out. No tokvec model is loaded in this process: loading one
sets OpenBLAS, which torch shares, to one thread.
"""
import argparse
import copy
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import embed_model as em  # noqa: E402  (checkpoints, text choice)

DTYPES = ("f32", "bf16", "int8")


def linear_bytes(dtype):
    """Bytes of the 12 layers' qkv, out, ffn up and down (768 / 3072: multiples of 16, no padding)."""
    shapes = [(em.D, 3 * em.D), (em.D, em.D), (em.D, em.FF), (em.FF, em.D)]
    params = sum(i * o for i, o in shapes) * em.LAYERS
    outputs = sum(o for _, o in shapes) * em.LAYERS
    return {"f32": 4 * params, "bf16": 2 * params, "int8": params + 8 * outputs}[dtype]


def embed(tokvec, folder, texts_path, out, dtype, threads):
    """(wall seconds, peak RSS bytes of this run: os.wait4's rusage of the child)."""
    start = time.perf_counter()
    child = subprocess.Popen([tokvec, "embed", "-m", str(folder), "--lines", "--pooling", "mean", "--format", "npy",
                              "--threads", str(threads), "--dtype", dtype, "-o", str(out), str(texts_path)])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"error: tokvec embed --dtype {dtype} exited with {child.returncode}")
    return wall, usage.ru_maxrss * 1024


def token_count(tokvec, folder, texts_path, arch):
    ids = subprocess.run([tokvec, "encode", "-m", str(folder), "--lines", str(texts_path)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return sum(len(line.split()) + (2 if arch == "bert" else 0) for line in ids)


def accuracy(a, b):
    cos = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(cos.min()), float(np.median(cos)), float(np.abs(a - b).max())


def torch_rates(arch, folder, texts, threads, rounds):
    """PyTorch f32 and quantize_dynamic int8 on the texts: ({(dtype, n): median seconds}, {dtype: pooled [N, D]}).
    Each (dtype, n) takes the faster of one text per call and buckets of 8 (bench/embed_model.py's batches)."""
    import torch

    # The ids the model takes ([CLS] ... [SEP] for BERT) from tokvec's module in another process: loading a model
    # sets the process's OpenBLAS, which torch shares, to one thread (kernels/ops.h), and torch's f32 products
    # would then run on one thread whatever set_num_threads says.
    code = ("import json, sys, tokvec\n"
            "m = tokvec.Model.load(sys.argv[1])\n"
            "print(json.dumps([list(m.tokenize(t)) for t in json.load(sys.stdin)]))\n")
    ids = json.loads(subprocess.run([sys.executable, "-c", code, str(folder)], input=json.dumps(texts), text=True,
                                    check=True, capture_output=True).stdout)
    f32 = em.Encoder(arch, em.read_safetensors(folder / "model.safetensors")).eval()
    torch.backends.quantized.engine = "onednn"
    int8 = torch.ao.quantization.quantize_dynamic(copy.deepcopy(f32), {torch.nn.Linear}, dtype=torch.qint8)
    calls = {mode: em.batches(ids, mode) for mode in ("single", "bucket")}
    seconds, pooled = {}, {}
    for round_index in range(rounds):
        for n in threads:
            torch.set_num_threads(n)
            em.openblas_threads(n)  # torch's f32 products run in OpenBLAS's own pool, which set_num_threads misses
            for name, model in (("f32", f32), ("int8", int8)):  # interleaved, as tokvec's dtypes are
                for mode in calls:
                    if round_index == 0:
                        em.run_torch(model, calls[mode][:2], len(texts))  # warm-up at this thread count
                    start = time.perf_counter()
                    pooled[name] = em.run_torch(model, calls[mode], len(texts))
                    seconds.setdefault((name, n, mode), []).append(time.perf_counter() - start)
    best = {(name, n): min(statistics.median(seconds[(name, n, mode)]) for mode in calls)
            for name in ("f32", "int8") for n in threads}
    return best, pooled


def corpus_lines(shared, count):
    """The first `count` usable lines of each top-level corpus file and the first of every 8th UDHR translation."""
    lines, files = [], 0
    paths = sorted(p for p in (shared / "corpora").glob("*.txt") if p.is_file())
    udhr = sorted((shared / "corpora" / "udhr").glob("*.txt"))[::8]
    for path, want in [(p, count) for p in paths] + [(p, 1) for p in udhr]:
        taken = 0
        files += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if line and len(line) <= 200:
                    lines.append(line)
                    taken += 1
                    if taken == want:
                        break
    return lines, files


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", default="build/tokvec")
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "bench_embed_model"))
    parser.add_argument("--archs", default="gpt2,bert")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus-lines", type=int, default=20, help="lines taken from each top-level corpus file")
    parser.add_argument("--no-torch", action="store_true", help="leave out PyTorch's f32 and quantize_dynamic int8")
    args = parser.parse_args()
    shared = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    cache = pathlib.Path(args.cache)
    threads = [int(t) for t in args.threads.split(",")]
    em.set_generator_sizes()
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    for arch in ("gpt2", "bert"):
        folder = cache / arch
        if not (folder / "bench_version").exists() or (folder / "bench_version").read_text() != str(em.FORMAT_VERSION):
            print(f"writing {folder}", flush=True)
            em.write_model(arch, folder, shared)
    work = pathlib.Path(tempfile.mkdtemp(prefix="tokvec_embed_dtype_"))

    # bench/embed_model.py's choice (pick_texts): the first 32 lines of 64..192 GPT-2 tokens, tokenized at once.
    stripped = [line.strip() for line in open(shared / "corpora" / "wikitext2-test.txt", encoding="utf-8")]
    stripped = [line for line in stripped if line and not line.startswith("=")]
    (work / "all.txt").write_text("".join(t + "\n" for t in stripped), encoding="utf-8")
    counts = subprocess.run([args.tokvec, "encode", "-m", str(cache / "gpt2"), "--lines", str(work / "all.txt")],
                            check=True, capture_output=True, text=True).stdout.splitlines()
    texts = [t for t, ids in zip(stripped, counts) if 64 <= len(ids.split()) <= 192][:32]
    wiki = work / "wiki.txt"
    wiki.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    one = work / "one.txt"
    one.write_text(texts[0].split()[0] + "\n", encoding="utf-8")  # one word: load and packing, next to no forward
    lines, files = corpus_lines(shared, args.corpus_lines)
    corpus = work / "corpus.txt"
    corpus.write_text("".join(t + "\n" for t in lines), encoding="utf-8")
    print(f"texts: 32 wikitext lines; accuracy also on {len(lines)} lines of {files} corpus files", flush=True)
    header = ("| model | dtype | threads | tokens/s | vs f32 | load s | linear weights MB | peak RSS MB "
              "| wikitext cos min / median | max abs diff | corpora cos min / median | max abs diff |")
    rows = [header, "|" + "---|" * 12]
    run_all_rows = []  # ROW lines for bench/run_all.sh
    torch_rows = ["| model | threads | tokvec f32 tokens/s | tokvec int8 | int8 / f32 | tokvec int8 cos min "
                  "| PyTorch f32 | PyTorch int8 | int8 / f32 | PyTorch int8 cos min | tokvec int8 / PyTorch int8 |",
                  "|" + "---|" * 11]
    for arch in args.archs.split(","):
        folder = cache / arch
        tokens = token_count(args.tokvec, folder, wiki, arch)
        results, vectors = {}, {}
        for dtype in DTYPES:
            embed(args.tokvec, folder, corpus, work / f"corpus_{dtype}.npy", dtype, max(threads))
            vectors[dtype] = np.load(work / f"corpus_{dtype}.npy")
        for _ in range(args.rounds):
            for n in threads:
                for dtype in DTYPES:  # interleaved, so load changes hit every dtype alike
                    load, _ = embed(args.tokvec, folder, one, work / "one.npy", dtype, n)
                    wall, rss = embed(args.tokvec, folder, wiki, work / f"wiki_{dtype}.npy", dtype, n)
                    results.setdefault((dtype, n), []).append((wall - load, load, rss))
        wiki_vectors = {dtype: np.load(work / f"wiki_{dtype}.npy") for dtype in DTYPES}
        for n in threads:
            base = statistics.median(r[0] for r in results[("f32", n)])
            for dtype in DTYPES:
                runs = results[(dtype, n)]
                seconds = statistics.median(r[0] for r in runs)
                load = statistics.median(r[1] for r in runs)
                rss = max(r[2] for r in runs)
                w = accuracy(wiki_vectors[dtype], wiki_vectors["f32"])
                c = accuracy(vectors[dtype], vectors["f32"])
                rows.append(f"| {arch} | {dtype} | {n} | {tokens / seconds:,.0f} | {base / seconds:.2f}x | {load:.2f} "
                            f"| {linear_bytes(dtype) / 1e6:.0f} | {rss / 1e6:.0f} | {w[0]:.5f} / {w[1]:.5f} | {w[2]:.2g} "
                            f"| {c[0]:.5f} / {c[1]:.5f} | {c[2]:.2g} |")
                if dtype != "f32":
                    run_all_rows.append(
                        f"ROW\t{arch} --dtype {dtype} tokens/s, {n} thread(s) (vs f32; corpora cosine min "
                        f"{c[0]:.5f}, >= 0.999 wanted)\t{tokens / seconds:.0f}\t{tokens / base:.0f}\t"
                        f"{base / seconds:.2f}\t> 1x, cos >= 0.999\t"
                        f"{'yes' if base / seconds > 1 and min(c[0], w[0]) >= 0.999 else 'NO'}")
        print(f"{arch}: {tokens} tokens", flush=True)
        if args.no_torch:
            continue
        torch_seconds, torch_pooled = torch_rates(arch, folder, texts, threads, args.rounds)
        torch_cos = accuracy(torch_pooled["int8"], torch_pooled["f32"])
        ours_cos = accuracy(wiki_vectors["int8"], wiki_vectors["f32"])
        parity = accuracy(wiki_vectors["f32"], torch_pooled["f32"])
        print(f"{arch}: PyTorch f32 vs tokvec f32 pooled vectors: cos min {parity[0]:.6f}, max abs diff "
              f"{parity[2]:.2g}", flush=True)
        for n in threads:
            ours = tokens / statistics.median(r[0] for r in results[("int8", n)])
            ours_f32 = tokens / statistics.median(r[0] for r in results[("f32", n)])
            peer, peer_f32 = tokens / torch_seconds[("int8", n)], tokens / torch_seconds[("f32", n)]
            torch_rows.append(f"| {arch} | {n} | {ours_f32:,.0f} | {ours:,.0f} | {ours / ours_f32:.2f}x "
                              f"| {ours_cos[0]:.5f} | {peer_f32:,.0f} | {peer:,.0f} | {peer / peer_f32:.2f}x "
                              f"| {torch_cos[0]:.5f} | {ours / peer:.2f}x |")
            run_all_rows.append(
                f"ROW\t{arch} int8 tokens/s, {n} thread(s), tokvec --dtype int8 vs PyTorch quantize_dynamic "
                f"(onednn; wikitext cosine to own f32: tokvec {ours_cos[0]:.5f}, torch {torch_cos[0]:.5f})\t"
                f"{ours:.0f}\t{peer:.0f}\t{ours / peer:.2f}\t>= 2x at 2 threads\t"
                f"{('yes' if ours / peer >= 2 and ours_cos[0] >= 0.999 else 'NO') if n == 2 else '-'}")
    print(f"load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("\n".join(rows))
    if len(torch_rows) > 2:
        print("\nAgainst PyTorch 1.13 (f32, and quantize_dynamic int8 on onednn), same texts (cos: pooled vectors of "
              "int8 against the same system's f32, wikitext lines)")
        print("\n".join(torch_rows))
    print("\n".join(run_all_rows))


if __name__ == "__main__":
    main()
