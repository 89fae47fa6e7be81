#!/usr/bin/python3
"""Attention: `tokvec bench attention` (tiled online softmax) against plain PyTorch attention, same run.

    /usr/bin/python3 bench/attention.py --tokvec build/tokvec --seq-len 8192 --heads 12 --head-dim 64 --threads 1

The peer is what PyTorch 1.13 offers (it has no F.scaled_dot_product_attention): per head,
softmax(q @ k.T * scale, -1) @ v, one [T, T] matrix per head in flight (12 at once would need 3 GB at T=8192).
Rounds alternate tokvec and the peer so a busy shared machine slows both alike; figures are medians. FLOPs are
4·T²·Dh per head for both. tokvec also reports its ratio to a single-thread OpenBLAS sgemm measured in the same
process (the target: >= 0.5 at T=8192, 12 heads, Dh 64, 1 thread).

Prints human-readable lines and, for bench/run_all.sh, tab-separated lines:
    ROW <metric> <tokvec> <peer> <ratio> <target> <met>
"""
import argparse
import json
import math
import statistics
import subprocess
import time

import torch


def torch_attention_seconds(seq_len, heads, head_dim, generator):
    q = torch.randn(heads, seq_len, head_dim, generator=generator)
    k = torch.randn(heads, seq_len, head_dim, generator=generator)
    v = torch.randn(heads, seq_len, head_dim, generator=generator)
    scale = 1.0 / math.sqrt(head_dim)
    with torch.no_grad():
        start = time.perf_counter()
        for h in range(heads):
            weights = torch.softmax(q[h] @ k[h].T * scale, dim=-1)  # [T, T]
            _ = weights @ v[h]  # [T, Dh]
        return time.perf_counter() - start


def tokvec_attention(tokvec, seq_len, heads, head_dim, threads, repeats, sgemm_size=2048):
    out = subprocess.run([tokvec, "bench", "attention", "--seq-len", str(seq_len), "--heads", str(heads),
                          "--head-dim", str(head_dim), "--threads", str(threads), "--repeats", str(repeats),
                          "--sgemm-size", str(sgemm_size)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", default="build/tokvec")
    parser.add_argument("--seq-len", type=int, default=8192)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per tokvec invocation")
    parser.add_argument("--rss-seq-len", type=int, default=16384, help="0 skips the memory check")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    generator = torch.Generator().manual_seed(42)
    flops = 4.0 * args.seq_len * args.seq_len * args.head_dim * args.heads
    torch_attention_seconds(min(args.seq_len, 1024), args.heads, args.head_dim, generator)  # warm-up
    tokvec_runs, torch_gflops = [], []
    for round_index in range(args.rounds):
        run = tokvec_attention(args.tokvec, args.seq_len, args.heads, args.head_dim, args.threads, args.repeats)
        tokvec_runs.append(run)
        seconds = torch_attention_seconds(args.seq_len, args.heads, args.head_dim, generator)
        torch_gflops.append(flops / seconds / 1e9)
        print(f"round {round_index}: tokvec {run['gflops']:.1f} GFLOP/s (sgemm {run['sgemm_gflops']:.1f}, "
              f"ratio {run['ratio_to_sgemm']:.2f}), torch {torch_gflops[-1]:.1f} GFLOP/s", flush=True)
    ours = statistics.median(r["gflops"] for r in tokvec_runs)
    sgemm = statistics.median(r["sgemm_gflops"] for r in tokvec_runs)
    to_sgemm = statistics.median(r["ratio_to_sgemm"] for r in tokvec_runs)
    peer = statistics.median(torch_gflops)
    shape = f"T={args.seq_len}, {args.heads} heads, Dh {args.head_dim}, {args.threads} thread(s)"
    print(f"attention {shape}: tokvec {ours:.1f} GFLOP/s, torch {peer:.1f} GFLOP/s, x{ours / peer:.2f}; "
          f"tokvec / sgemm {to_sgemm:.2f} (sgemm {sgemm:.1f} GFLOP/s)")
    print(f"ROW\tattention GFLOP/s vs torch ({shape})\t{ours:.1f}\t{peer:.1f}\t{ours / peer:.2f}\t-\t-")
    # The target (>= 0.5 of one-thread sgemm) is defined for one attention thread; other counts are shown only.
    target, met = (">= 0.50", "yes" if to_sgemm >= 0.5 else "NO") if args.threads == 1 else ("-", "-")
    print(f"ROW\tattention / same-run 1-thread sgemm ({shape}; sgemm {sgemm:.1f} GFLOP/s)\t{to_sgemm:.2f}\t-\t-"
          f"\t{target}\t{met}")
    if args.rss_seq_len > 0:
        run = tokvec_attention(args.tokvec, args.rss_seq_len, args.heads, args.head_dim, 2, 1, sgemm_size=0)
        rss = run["peak_rss_mb"]
        print(f"attention T={args.rss_seq_len}, {args.heads} heads: tokvec peak RSS {rss:.0f} MB "
              f"({run['gflops']:.1f} GFLOP/s on 2 threads)")
        print(f"ROW\tattention peak RSS, T={args.rss_seq_len}, {args.heads} heads, Dh {args.head_dim} (MB)"
              f"\t{rss:.0f}\t-\t-\t< 1024\t{'yes' if rss < 1024 else 'NO'}")


if __name__ == "__main__":
    main()
