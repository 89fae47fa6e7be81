#!/usr/bin/python3
"""Training speed: `tokvec fit` against a nanoGPT-style PyTorch 1.13 loop training the same GPT-2 config.

    /usr/bin/python3 bench/fit.py --tokvec build/tokvec [--threads 1,2] [--steps 4]

Both sides train GPT-2 (Radford et al. 2019) with the issue's shapes by default: 6 layers, d_model 384, 6 heads,
T 256, batch 8, vocabulary 50257 (GPT-2's, /work/shared/vocab/gpt2.tiktoken), tied LM head, AdamW, dropout 0,
clip 1.0, float32 on the CPU. tokvec trains on tinyshakespeare (`--no-shuffle`); torch on random ids of the same
shapes (the ids do not change the work). tokens/s is B·T over the median step time, the first step left out
(tokvec's from metrics.jsonl, measured around each step; torch's around zero_grad..step). Peak RSS of each
process from /usr/bin/time. Both sides run one after the other at each thread count; torch gets
OPENBLAS_NUM_THREADS and OMP_NUM_THREADS equal to the thread count (torch.set_num_threads alone leaves OpenBLAS's
pool at every core).

Prints human-readable lines and, for bench/run_all.sh, tab-separated lines:
  ROW <metric> <tokvec> <peer> <ratio> <target> <met>
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

TORCH_LOOP = r'''
import math, sys, time, torch, torch.nn.functional as F
L, C, H, T, B, V, steps, threads = map(int, sys.argv[1:9])
torch.set_num_threads(threads)
torch.manual_seed(0)
def p(*shape, std=0.02):
    return (torch.randn(*shape) * std).requires_grad_(True)
w = {"wte": p(V, C), "wpe": p(T, C), "lnf_w": torch.ones(C, requires_grad=True),
     "lnf_b": torch.zeros(C, requires_grad=True)}
for i in range(L):
    w.update({f"{i}.ln1_w": torch.ones(C, requires_grad=True), f"{i}.ln1_b": torch.zeros(C, requires_grad=True),
              f"{i}.attn_w": p(C, 3 * C), f"{i}.attn_b": torch.zeros(3 * C, requires_grad=True),
              f"{i}.proj_w": p(C, C), f"{i}.proj_b": torch.zeros(C, requires_grad=True),
              f"{i}.ln2_w": torch.ones(C, requires_grad=True), f"{i}.ln2_b": torch.zeros(C, requires_grad=True),
              f"{i}.fc_w": p(C, 4 * C), f"{i}.fc_b": torch.zeros(4 * C, requires_grad=True),
              f"{i}.fcp_w": p(4 * C, C), f"{i}.fcp_b": torch.zeros(C, requires_grad=True)})
mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
def loss_of(ids, targets):
    x = w["wte"][ids] + w["wpe"][:T]
    for i in range(L):
        a = F.layer_norm(x, (C,), w[f"{i}.ln1_w"], w[f"{i}.ln1_b"])
        q, k, v = (a @ w[f"{i}.attn_w"] + w[f"{i}.attn_b"]).split(C, dim=2)
        q, k, v = (z.view(B, T, H, C // H).transpose(1, 2) for z in (q, k, v))
        att = ((q @ k.transpose(-2, -1)) / math.sqrt(C // H)).masked_fill(~mask, float("-inf")).softmax(-1)
        x = x + ((att @ v).transpose(1, 2).reshape(B, T, C) @ w[f"{i}.proj_w"] + w[f"{i}.proj_b"])
        m = F.layer_norm(x, (C,), w[f"{i}.ln2_w"], w[f"{i}.ln2_b"])
        x = x + (F.gelu(m @ w[f"{i}.fc_w"] + w[f"{i}.fc_b"], approximate="tanh") @ w[f"{i}.fcp_w"] + w[f"{i}.fcp_b"])
    x = F.layer_norm(x, (C,), w["lnf_w"], w["lnf_b"])
    return F.cross_entropy((x @ w["wte"].t()).view(-1, V), targets.reshape(-1))
decay = [t for t in w.values() if t.dim() >= 2]
rest = [t for t in w.values() if t.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}], lr=3e-4)
g = torch.Generator().manual_seed(1)
times = []
for s in range(steps):
    ids = torch.randint(0, V, (B, T + 1), generator=g)
    start = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss_of(ids[:, :-1], ids[:, 1:]).backward()
    torch.nn.utils.clip_grad_norm_(list(w.values()), 1.0)
    opt.step()
    times.append(time.perf_counter() - start)
import json; print(json.dumps({"step_seconds": times}))
'''


# The OpenBLAS sgemm rate of this machine at a thread count: a 2048^3 product, median of 5, in its own process
# (same library, same OPENBLAS_CORETYPE as both sides). The ceiling of any f32 trainer here.
SGEMM_PEAK = r'''
import numpy as np, statistics, time
n = 2048
a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)
a @ b
times = []
for _ in range(5):
    start = time.perf_counter(); a @ b; times.append(time.perf_counter() - start)
print(2 * n ** 3 / statistics.median(times) / 1e9)
'''


def step_gflop(L, C, T, B, V):
    """Multiply-adds x 2 of one training step (forward + backward = 3x forward): the linears (12 C^2 weights a
    layer), the attention products QK^T and PV over whole T x T matrices (as torch computes them; the causal half
    is skipped by neither count), and the tied LM head [B T, C] x [C, V]."""
    N = B * T
    linears = 2 * N * 12 * C * C * L
    attention = 2 * 2 * B * T * T * C * L
    head = 2 * N * C * V
    return 3 * (linears + attention + head) / 1e9


def run_timed(cmd, env=None):
    """Runs cmd under /usr/bin/time -f %M; returns (stdout, peak RSS in MB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd, check=True, capture_output=True,
                             text=True, env=env)
        return out.stdout, int(rss.read().strip().splitlines()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokvec", default="build/tokvec")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--d-model", type=int, default=384)
    ap.add_argument("--heads", type=int, default=6)
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()
    default_shared = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    shared = os.path.realpath(os.environ.get("TOKVEC_SHARED_DIR", default_shared))
    vocab = os.path.join(shared, "vocab", "gpt2.tiktoken")
    corpus = os.path.join(shared, "corpora", "tinyshakespeare.txt")
    if not os.path.exists(vocab) or not os.path.exists(corpus):
        print("SKIP fit bench: %s or %s not found (set TOKVEC_SHARED_DIR)" % (vocab, corpus))
        return 0
    L, C, H, T, B = args.layers, args.d_model, args.heads, args.seq_len, args.batch
    shape = "%dL d%d %dh T%d B%d" % (L, C, H, T, B)
    # Both sides run the same OpenBLAS; the environment can force its kernels (this workplace sets Haswell's).
    print("OpenBLAS kernels: OPENBLAS_CORETYPE=%s" % os.environ.get("OPENBLAS_CORETYPE", "(unset: chosen by CPU)"))
    with tempfile.TemporaryDirectory() as work:
        model = os.path.join(work, "m")
        subprocess.run([args.tokvec, "init", "--tokenizer", vocab, "--arch", "gpt2", "--d-model", str(C), "--heads",
                        str(H), "--layers", str(L), "--max-len", str(T), "--seed", "1", "-o", model], check=True,
                       capture_output=True)
        with open(os.path.join(model, "config.json")) as f:
            V = json.load(f)["vocab_size"]
        for threads in [int(t) for t in args.threads.split(",")]:
            out = os.path.join(work, "fit%d" % threads)
            _, tok_rss = run_timed([args.tokvec, "fit", "-m", model, "--data", corpus, "--seq-len", str(T), "--batch",
                                    str(B), "--steps", str(args.steps), "--no-shuffle", "--log-every", "1",
                                    "--threads", str(threads), "-o", out])
            with open(os.path.join(out, "metrics.jsonl")) as f:
                rates = [json.loads(line)["tokens_per_s"] for line in f][1:]
            tok_rate = statistics.median(rates)
            # torch.set_num_threads does not reach OpenBLAS's own pool (Debian's torch does its matmuls there):
            # without OPENBLAS_NUM_THREADS its "1 thread" ran its GEMMs on both cores.
            torch_env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
            stdout, torch_rss = run_timed(["/usr/bin/python3", "-c", TORCH_LOOP, str(L), str(C), str(H), str(T), str(B),
                                           str(V), str(args.steps), str(threads)], env=torch_env)
            seconds = json.loads(stdout.strip().splitlines()[-1])["step_seconds"][1:]
            torch_rate = B * T / statistics.median(seconds)
            ratio = tok_rate / torch_rate
            print("fit %s, V %d, %d thread(s): tokvec %.0f tokens/s (peak RSS %.0f MB), torch %s %.0f tokens/s "
                  "(peak RSS %.0f MB): %.2fx" % (shape, V, threads, tok_rate, tok_rss, "1.13", torch_rate, torch_rss,
                                                  ratio))
            # What stands between the figures and the limit: the step's work at the machine's sgemm rate.
            peak = float(subprocess.run(["/usr/bin/python3", "-c", SGEMM_PEAK], check=True, capture_output=True,
                                        text=True, env=torch_env).stdout)
            gflop = step_gflop(L, C, T, B, V)
            ceiling = B * T * peak / gflop
            print("  ceiling: %.0f GFLOP a step at OpenBLAS's sgemm peak %.0f GFLOP/s (%d thread(s)) = %.0f tokens/s; "
                  "tokvec at %.0f%% of it, torch at %.0f%%; no f32 trainer can be more than %.2fx torch here"
                  % (gflop, peak, threads, ceiling, 100 * tok_rate / ceiling, 100 * torch_rate / ceiling,
                     ceiling / torch_rate))
            print("ROW\tfit tokens/s at the sgemm ceiling, %s, %d thread(s)\t%.0f\t%.0f\t%.2fx\t(limit: peak %.0f "
                  "GFLOP/s)\t-" % (shape, threads, ceiling, torch_rate, ceiling / torch_rate, peak))
            target = ">= 3x at 2 threads" if threads == 2 else "(reported)"
            met = ("yes" if ratio >= 3 else "no") if threads == 2 else "-"
            print("ROW\tfit tokens/s, %s, %d thread(s)\t%.0f\t%.0f\t%.2fx\t%s\t%s" % (shape, threads, tok_rate,
                                                                                      torch_rate, ratio, target, met))
            rss_met = "yes" if tok_rss <= torch_rss else "no"
            print("ROW\tfit peak RSS MB, %s, %d thread(s)\t%.0f\t%.0f\t%.2fx\t<= torch\t%s" % (
                shape, threads, tok_rss, torch_rss, tok_rss / torch_rss, rss_met))
    return 0


if __name__ == "__main__":
    sys.exit(main())
