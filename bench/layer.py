#!/usr/bin/python3
"""Encoder layer: `tokvec bench layer` against PyTorch's nn.TransformerEncoderLayer, same run.

    /usr/bin/python3 bench/layer.py --tokvec build/tokvec      # 768 wide, 12 heads, FF 3072, batch 8 x 128

The peer: nn.TransformerEncoderLayer(768, 12, 3072, dropout=0, batch_first=True) (post-LN, ReLU, PyTorch's
defaults) in eval mode under no_grad, which takes PyTorch's fused inference path, torch.set_num_threads(2).
tokvec runs the same block (random weights, post-LN, ReLU) through RunTransformerBlockBatched. Rounds alternate
tokvec and the peer; each side's figure is the median over rounds of its median run. Target: tokens/s >= 1.5x.

Prints human-readable lines and, for bench/run_all.sh, tab-separated lines:
    ROW <metric> <tokvec> <peer> <ratio> <target> <met>
"""
import argparse
import json
import statistics
import subprocess
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", default="build/tokvec")
    parser.add_argument("--d-model", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--ff", type=int, default=3072)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20, help="timed runs per round, each side")
    args = parser.parse_args()

    torch.manual_seed(42)
    torch.set_num_threads(args.threads)
    layer = torch.nn.TransformerEncoderLayer(args.d_model, args.heads, args.ff, dropout=0.0,
                                             batch_first=True).eval()
    x = torch.randn(args.batch, args.seq_len, args.d_model)
    tokens = args.batch * args.seq_len
    command = [args.tokvec, "bench", "layer", "--d-model", str(args.d_model), "--heads", str(args.heads), "--ff",
               str(args.ff), "--batch", str(args.batch), "--seq-len", str(args.seq_len), "--threads",
               str(args.threads), "--repeats", str(args.repeats)]
    ours, peer = [], []
    with torch.no_grad():
        layer(x)  # warm-up
        for round_index in range(args.rounds):
            run = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            ours.append(run["tokens_per_s"])
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                layer(x)
                times.append(time.perf_counter() - start)
            peer.append(tokens / statistics.median(times))
            print(f"round {round_index}: tokvec {ours[-1]:.0f} tokens/s, torch {peer[-1]:.0f} tokens/s, "
                  f"x{ours[-1] / peer[-1]:.2f}", flush=True)
    a, b = statistics.median(ours), statistics.median(peer)
    shape = (f"{args.d_model}/{args.heads}/{args.ff}, batch {args.batch} x {args.seq_len}, "
             f"{args.threads} thread(s)")
    print(f"encoder layer {shape}: tokvec {a:.0f} tokens/s, torch {b:.0f} tokens/s, x{a / b:.2f}")
    print(f"ROW\tencoder layer tokens/s ({shape})\t{a:.0f}\t{b:.0f}\t{a / b:.2f}\t>= 1.5x\t"
          f"{'yes' if a / b >= 1.5 else 'NO'}")


if __name__ == "__main__":
    main()
