#!/usr/bin/python3
"""`tokvec.search` (exact top-k, retrieval/vector_search.h) against NumPy's brute force in the same run: one GEMM
(`Q @ X.T`, OpenBLAS sgemm on the index normalised beforehand, so NumPy does less work than tokvec, which scales
by the norms as it goes) then `np.argpartition` and a sort of the k. Both get the same arrays in memory; each
measurement runs in its own process (OpenBLAS's thread count is global to a process), 1 and 2 threads apart,
with the environment's OPENBLAS_CORETYPE (run_all.sh sets it to the kernels tokvec uses). Also the binary index (ubinary codes of the same vectors, Hamming then float
rescoring of 4k candidates, sentence-transformers' recipe) against the same NumPy float search, and the recall@k
the binary index keeps. Every tokvec float answer is checked against NumPy's (same top-k; ties within 1e-6 may
swap).

    /usr/bin/python3 bench/search.py [--rows 1000000] [--dims 384] [--queries 100] [-k 10] [--rounds 5]

Then real vectors: `tokvec word2vec train --dim 384` on the shared corpora (about 37,000 words, 10 s), every
1 in 37 words as a query against all of them, tokvec's top-k checked against NumPy's float64 brute force (skipped,
with a message, without the tokvec binary or ../shared).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(args):
    """One measurement in this process: prints {"times": [...], "indices": path}."""
    import numpy as np
    X = np.load(os.path.join(args.data, "index.npy"))
    Q = np.load(os.path.join(args.data, "queries.npy"))
    times, indices = [], None
    if args.worker == "numpy":
        Xn = X / np.linalg.norm(X, axis=1, keepdims=True)  # before the clock: NumPy gets a normalised index
        Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
        for _ in range(args.rounds):
            t = time.perf_counter()
            S = Qn @ Xn.T
            part = np.argpartition(-S, args.k - 1, axis=1)[:, :args.k]
            order = np.argsort(-np.take_along_axis(S, part, 1), axis=1, kind="stable")
            indices = np.take_along_axis(part, order, 1)
            times.append(time.perf_counter() - t)
            del S
    else:
        sys.path.insert(0, args.python_path)
        import tokvec
        index = X if args.worker == "tokvec" else tokvec.quantize_embeddings(X, "ubinary")
        for _ in range(args.rounds):
            t = time.perf_counter()
            _, indices = tokvec.search(Q, index, k=args.k, num_threads=args.threads)
            times.append(time.perf_counter() - t)
    out = os.path.join(args.data, f"{args.worker}-{args.threads}.npy")
    np.save(out, indices)
    print(json.dumps({"times": times, "indices": out}))


def measure(args, tool, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--worker", tool, "--threads", str(threads), "--data", args.data,
           "--rounds", str(args.rounds), "-k", str(args.k), "--python-path", args.python_path]
    result = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
    return statistics.median(result["times"]), result["indices"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--dims", type=int, default=384)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--python-path", default=os.path.join(HERE, "..", "build", "python"))
    p.add_argument("--worker", choices=["numpy", "tokvec", "tokvec-binary"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--data")
    p.add_argument("--tokvec", default=os.path.join(HERE, "..", "build", "tokvec"))
    p.add_argument("--shared", default=os.environ.get("TOKVEC_SHARED_DIR", os.path.join(HERE, "..", "..", "shared")))
    args = p.parse_args()
    if args.worker:
        return worker(args)
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="tokvec-search-") as data:
        args.data = data
        rng = np.random.default_rng(7)
        np.save(os.path.join(data, "index.npy"), rng.standard_normal((args.rows, args.dims), dtype=np.float32))
        np.save(os.path.join(data, "queries.npy"), rng.standard_normal((args.queries, args.dims), dtype=np.float32))
        X = np.load(os.path.join(data, "index.npy"), mmap_mode="r")
        Q = np.load(os.path.join(data, "queries.npy"))
        print(f"# exact top-{args.k} of {args.queries} queries over {args.rows} x {args.dims} float32 (random normal), "
              f"median of {args.rounds}")
        print("| threads | NumPy sgemm + argpartition | tokvec float | ratio | tokvec binary + rescoring | ratio | "
              "binary recall@k |")
        print("|---|---|---|---|---|---|---|")
        for threads in (1, 2):
            t_np, i_np = measure(args, "numpy", threads)
            t_tv, i_tv = measure(args, "tokvec", threads)
            t_bin, i_bin = measure(args, "tokvec-binary", threads)
            ref, got, binary = np.load(i_np), np.load(i_tv), np.load(i_bin)
            same = (ref == got).all(axis=1)
            for q in np.flatnonzero(~same):  # a swap is fine only between scores equal within float rounding
                qn = Q[q] / np.linalg.norm(Q[q])
                s_ref = np.sort([float(qn @ X[i]) / float(np.linalg.norm(X[i])) for i in ref[q]])
                s_got = np.sort([float(qn @ X[i]) / float(np.linalg.norm(X[i])) for i in got[q]])
                assert np.allclose(s_ref, s_got, atol=1e-6), f"query {q}: tokvec {got[q]} vs NumPy {ref[q]}"
            recall = np.mean([len(set(ref[q]) & set(binary[q])) / args.k for q in range(args.queries)])
            print(f"| {threads} | {t_np * 1e3:.0f} ms | {t_tv * 1e3:.0f} ms | **{t_np / t_tv:.2f}x** | "
                  f"{t_bin * 1e3:.0f} ms | **{t_np / t_bin:.1f}x** | {recall:.2f} |", flush=True)
            print(f"#   threads {threads}: top-k identical to NumPy's on {same.sum()}/{args.queries} queries "
                  f"(the rest: swaps of scores equal within 1e-6)", flush=True)
            if threads == 2:  # rows for bench/run_all.sh's table
                shape = f"{args.rows // 1000}k x {args.dims}, {args.queries} queries, 2 threads"
                print(f"ROW\tsearch top-{args.k}, float ({shape})\t{t_tv * 1e3:.0f} ms\t{t_np * 1e3:.0f} ms (NumPy)\t"
                      f"{t_np / t_tv:.2f}x\t>= 2x\t{'yes' if t_np / t_tv >= 2 else 'no'}")
                print(f"ROW\tsearch top-{args.k}, binary + rescoring ({shape})\t{t_bin * 1e3:.0f} ms\t"
                      f"{t_np * 1e3:.0f} ms (NumPy float)\t{t_np / t_bin:.1f}x\t>= 10x\t"
                      f"{'yes' if t_np / t_bin >= 10 else 'no'}", flush=True)

        real_vectors(args, data)


def read_word2vec(path):
    """word2vec.c's binary format: "N D\\n", then per word its text, a space and D little-endian float32."""
    import numpy as np
    with open(path, "rb") as f:
        n, d = map(int, f.readline().split())
        rows = np.empty((n, d), dtype=np.float32)
        for i in range(n):
            while f.read(1) not in (b" ", b""):
                pass
            rows[i] = np.frombuffer(f.read(4 * d), dtype="<f4")
    return rows


def real_vectors(args, data):
    import numpy as np
    corpora = [os.path.join(args.shared, "corpora", name) for name in
               ("gutenberg-big.txt", "wikitext2-test.txt", "wikitext2-valid.txt", "tinyshakespeare.txt")]
    if not os.path.exists(args.tokvec) or not all(map(os.path.exists, corpora)):
        print(f"# SKIP real vectors: {args.tokvec} or the shared corpora are missing")
        return
    path = os.path.join(data, "w2v.bin")
    subprocess.run([args.tokvec, "word2vec", "train", "--dim", "384", "--min-count", "2", "--epochs", "3",
                    "--threads", "2", "--seed", "1", "-o", path, *corpora], check=True, capture_output=True)
    X = read_word2vec(path)
    Q = X[::37].copy()
    sys.path.insert(0, args.python_path)
    import tokvec
    _, got = tokvec.search(Q, X, k=args.k, num_threads=2)
    Xd = X.astype(np.float64)
    Xd /= np.linalg.norm(Xd, axis=1, keepdims=True)
    Qd = Q.astype(np.float64)
    Qd /= np.linalg.norm(Qd, axis=1, keepdims=True)
    S = Qd @ Xd.T
    want = np.argsort(-S, axis=1, kind="stable")[:, :args.k]
    same = (want == got).all(axis=1)
    for q in np.flatnonzero(~same):  # only swaps of scores equal within float32 rounding
        assert np.allclose(np.sort(S[q, want[q]]), np.sort(S[q, got[q]]), atol=1e-6), f"real query {q}"
    print(f"# real vectors (word2vec on the shared corpora, {X.shape[0]} x {X.shape[1]}): top-{args.k} of "
          f"{len(Q)} queries identical to NumPy's float64 brute force on {same.sum()}/{len(Q)} (the rest: swaps of "
          f"scores equal within 1e-6)", flush=True)


if __name__ == "__main__":
    main()
