#!/usr/bin/python3
"""Long-input embedding throughput on a ModernBERT-base-shaped model: tokvec against PyTorch eager at 512 and 8,192
tokens, same weights and token ids, same run.

    /usr/bin/python3 bench/modernbert.py [--tokvec build/tokvec] [--threads 1,2] [--lengths 512,8192]

Model: ModernBERT-base's shape (22 layers, 768 wide, 12 heads, GeGLU intermediate 1152, RoPE bases 160,000 global /
10,000 local, local_attention 128 on all but every third layer, no biases, max_position_embeddings 8192) with
random weights (transformers' _init_weights: N(0, 0.02), LayerNorm scales 1 + N(0, 0.05)), bench/embed_model.py's
WordPiece vocabulary of wikitext-2 (20,000 words), written once into --cache.

Input: wikitext-2 test text tokenized by tokvec, cut to the length with [CLS] ... [SEP] (the model's ids); PyTorch gets
exactly those ids.

Systems, each timing one forward of the text and mean pooling:
  tokvec   tokvec.Model.embed([text], pooling="mean", num_threads=N): the single-text path (global layers through
           the flash kernel, local ones through the window kernel; no [T, T] matrix)
  torch    eager float32 ModernBertModel written here after transformers' modeling_modernbert.py ("eager"
           attention: explicit q.kᵀ with the sliding-window mask on local layers, as torch 1.13 has no fused
           attention), torch.inference_mode, torch.set_num_threads(N)
Median of --rounds; tokens/s = T / wall; the pooled vectors are compared (max abs diff).
Prints a table and ROW lines for bench/run_all.sh.
"""
import argparse
import json
import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
import gen_hf_checkpoints as hf  # noqa: E402
import embed_model as em  # noqa: E402

D, HEADS, LAYERS, FF, POSITIONS, WINDOW, EVERY = 768, 12, 22, 1152, 8192, 128, 3
GLOBAL_THETA, LOCAL_THETA, EPS = 160000.0, 10000.0, 1e-5
FORMAT_VERSION = 1


def shapes(vocab_size):
    out = [("embeddings.tok_embeddings.weight", (vocab_size, D)), ("embeddings.norm.weight", (D,))]
    for i in range(LAYERS):
        p = f"layers.{i}."
        if i > 0:
            out.append((p + "attn_norm.weight", (D,)))
        out += [(p + "attn.Wqkv.weight", (3 * D, D)), (p + "attn.Wo.weight", (D, D)), (p + "mlp_norm.weight", (D,)),
                (p + "mlp.Wi.weight", (2 * FF, D)), (p + "mlp.Wo.weight", (D, FF))]
    return out + [("final_norm.weight", (D,))]


def write_model(folder, shared):
    folder.mkdir(parents=True, exist_ok=True)
    tokens = em.bert_vocabulary(shared)
    hf.write_bert_tokenizer_files(str(folder), tokens, tokenizer_json=False, vocab_txt=True)
    weights = em.init_weights(shapes(len(tokens)), seed=5)
    vocab = {t: i for i, t in enumerate(tokens)}
    config = {"architectures": ["ModernBertModel"], "model_type": "modernbert", "hidden_size": D,
              "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": FF,
              "hidden_activation": "gelu", "max_position_embeddings": POSITIONS, "vocab_size": len(tokens),
              "norm_eps": EPS, "norm_bias": False, "attention_bias": False, "mlp_bias": False,
              "global_rope_theta": GLOBAL_THETA, "local_rope_theta": LOCAL_THETA, "local_attention": WINDOW,
              "global_attn_every_n_layers": EVERY, "pad_token_id": vocab["[PAD]"], "cls_token_id": vocab["[CLS]"],
              "sep_token_id": vocab["[SEP]"]}
    with open(folder / "config.json", "w") as f:
        json.dump(config, f, indent=2)
    hf.write_safetensors(str(folder / "model.safetensors"), [(k, v, "F32") for k, v in weights.items()])
    (folder / "bench_version").write_text(str(FORMAT_VERSION))


def rope(x, theta):
    """Rotate-half RoPE on [H, T, dh]."""
    t, dh = x.shape[1], x.shape[2]
    inv = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh))
    angles = torch.outer(torch.arange(t, dtype=torch.float32), inv)
    cos, sin = torch.cat([angles.cos()] * 2, dim=-1), torch.cat([angles.sin()] * 2, dim=-1)
    half = dh // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin


def torch_forward(w, ids):
    """ModernBertModel, eager attention, float32, one sequence: ids [T] -> mean-pooled [D]."""
    t = len(ids)
    dh = D // HEADS
    x = F.layer_norm(w["embeddings.tok_embeddings.weight"][ids], (D,), w["embeddings.norm.weight"], None, EPS)
    offsets = torch.arange(t)[None, :] - torch.arange(t)[:, None]
    window_bias = torch.zeros(t, t).masked_fill(offsets.abs() > WINDOW // 2, float("-inf"))
    for i in range(LAYERS):
        p = f"layers.{i}."
        local = i % EVERY != 0
        h = x if i == 0 else F.layer_norm(x, (D,), w[p + "attn_norm.weight"], None, EPS)
        q, k, v = F.linear(h, w[p + "attn.Wqkv.weight"]).view(t, 3, HEADS, dh).permute(1, 2, 0, 3)
        theta = LOCAL_THETA if local else GLOBAL_THETA
        q, k = rope(q, theta), rope(k, theta)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(dh))
        if local:
            scores = scores + window_bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(0, 1).reshape(t, D)
        del scores
        x = x + F.linear(context, w[p + "attn.Wo.weight"])
        h = F.layer_norm(x, (D,), w[p + "mlp_norm.weight"], None, EPS)
        inp, gate = F.linear(h, w[p + "mlp.Wi.weight"]).chunk(2, dim=-1)
        x = x + F.linear(F.gelu(inp) * gate, w[p + "mlp.Wo.weight"])
    x = F.layer_norm(x, (D,), w["final_norm.weight"], None, EPS)
    return x.mean(dim=0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "bench_modernbert"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--lengths", default="512,8192")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokvec", default=str(ROOT / "build" / "tokvec"),
                        help="the binary; its python/ folder beside it holds the module")
    args = parser.parse_args()
    sys.path.insert(0, str(pathlib.Path(args.tokvec).resolve().parent / "python"))
    import tokvec

    shared = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    folder = pathlib.Path(args.cache) / "modernbert_base"
    if not (folder / "bench_version").exists() or (folder / "bench_version").read_text() != str(FORMAT_VERSION):
        print(f"writing {folder}", flush=True)
        write_model(folder, shared)
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    model = tokvec.Model.load(str(folder))
    tokenizer = tokvec.Tokenizer.load(str(folder))
    words = (shared / "corpora" / "wikitext2-test.txt").read_text(encoding="utf-8").split()
    weights = em.read_safetensors(folder / "model.safetensors")
    rows = []
    for length in [int(x) for x in args.lengths.split(",")]:
        # Enough words for `length` tokens, cut at a word so that [CLS] text [SEP] has exactly `length` ids.
        lo, hi = 1, len(words)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(tokenizer.encode(" ".join(words[:mid]))) + 2 <= length:
                lo = mid
            else:
                hi = mid - 1
        text = " ".join(words[:lo])
        ids = model.tokenize(text)
        t = len(ids)
        print(f"{t} tokens", flush=True)
        times = {}
        outputs = {}
        for n in [int(x) for x in args.threads.split(",")]:
            torch.set_num_threads(n)
            for _ in range(args.rounds):
                start = time.perf_counter()
                outputs["tokvec"] = model.embed([text], pooling="mean", num_threads=n)[0]
                times.setdefault(("tokvec", n), []).append(time.perf_counter() - start)
                em.openblas_threads(n)  # torch's own thread count, not the one tokvec's load left (embed_model.py)
                start = time.perf_counter()
                with torch.inference_mode():
                    outputs["torch"] = torch_forward(weights, torch.tensor(ids)).numpy()
                times.setdefault(("torch", n), []).append(time.perf_counter() - start)
                em.openblas_threads(1)
                print(f"  {t} tokens, {n} thread(s): tokvec {times[('tokvec', n)][-1]:.2f} s, torch "
                      f"{times[('torch', n)][-1]:.2f} s; load {' '.join(open('/proc/loadavg').read().split()[:3])}",
                      flush=True)
            ours, theirs = t / statistics.median(times[("tokvec", n)]), t / statistics.median(times[("torch", n)])
            diff = float(np.abs(outputs["tokvec"] - outputs["torch"]).max())
            print(f"ModernBERT-base shape, {t} tokens, {n} thread(s): tokvec {ours:.0f} tokens/s, PyTorch eager "
                  f"{theirs:.0f} tokens/s, x{ours / theirs:.2f}; pooled max abs diff {diff:.1e}", flush=True)
            rows.append(f"ROW\tModernBERT-base-shaped embed tokens/s, {t} tokens, {n} thread{'s' * (n > 1)} vs "
                        f"PyTorch eager\t{ours:.0f}\t{theirs:.0f}\t{ours / theirs:.2f}\t-\t-")
            rows.append(f"ROW\tModernBERT-base-shaped pooled vector, max abs diff vs PyTorch ({t} tokens)\t{diff:.1e}"
                        f"\t-\t-\t<= 1e-3\t{'yes' if diff <= 1e-3 else 'NO'}")
    print(f"load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
