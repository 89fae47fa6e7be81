#!/usr/bin/python3
"""Times one forward pass of a Qwen3-Embedding-0.6B-shaped decoder (hidden 1024, 16 query / 8 key-value heads of
head_dim 128, feed-forward 3072; --layers of its 28) in tokvec and in PyTorch, and checks tokvec's hidden states
against the float64 reference of scripts/gen_decoder_checkpoints.py.

    /usr/bin/python3 scripts/bench_decoder.py build/tokvec --tokens 256 --layers 4 --threads 2

tokvec: CPU seconds (user + sys) of `tokvec embed` on a T-token text minus those of a 1-token text (loading,
tokenizing), the best of --repeat runs. PyTorch: CPU seconds (time.process_time) of the reference forward in float32
(explicit q·kᵀ scores, softmax, repeat_interleave for GQA: eager PyTorch, no SDPA), torch.set_num_threads(--threads),
best of --repeat. CPU time rather than wall time so that a shared machine's load counts less.
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_decoder_checkpoints as dec  # noqa: E402
import gen_hf_checkpoints as hf  # noqa: E402


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tokvec_cpu(binary, model, text_path, threads):
    before = children_cpu()
    subprocess.run([binary, "embed", "-m", model, "--threads", str(threads), "--format", "json", "-o",
                    text_path + ".json", text_path], check=True)
    return children_cpu() - before


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tokvec")
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # The generator's module-level sizes, set to Qwen3-Embedding-0.6B's.
    dec.D_MODEL, dec.D_FF, dec.N_LAYERS, dec.POSITIONS = 1024, 3072, args.layers, 32768
    a = dict(dec.ARCHS["qwen3"], heads=16, kv_heads=8, head_dim=128)
    merges = hf.learn_merges(hf.TRAINING_TEXT, hf.NUM_MERGES)
    tokens = list(hf.BYTE_TO_CHAR.values()) + [x + y for x, y in merges] + ["<|endoftext|>"]
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = dec.random_weights(dec.shapes(a, len(vocab)), torch.Generator().manual_seed(1))
    # Projections scaled to ~1/sqrt(fan-in) so 1024-wide activations stay O(1), as in a trained model.
    weights = {k: v * 0.05 if v.dim() == 2 and not k.startswith("embed") else v for k, v in weights.items()}
    rng = random.Random(0)
    text = "".join(rng.choice("xqzjkv") for _ in range(args.tokens))  # one token per letter with these merges
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model")
        os.makedirs(model)
        dec.write_tokenizer_json(model, vocab, merges)
        with open(os.path.join(model, "config.json"), "w") as f:
            json.dump(dec.config_json(a, len(vocab)), f)
        hf.write_safetensors(os.path.join(model, "model.safetensors"), [(k, v, "F32") for k, v in weights.items()])
        paths = {}
        for name, body in (("one", "x"), ("text", text)):
            paths[name] = os.path.join(tmp, name + ".txt")
            with open(paths[name], "w") as f:
                f.write(body)
        base = min(tokvec_cpu(args.tokvec, model, paths["one"], args.threads) for _ in range(args.repeat))
        full = min(tokvec_cpu(args.tokvec, model, paths["text"], args.threads) for _ in range(args.repeat))
        with open(paths["text"] + ".json") as f:
            out = json.load(f)
    ids = out["ids"]
    reference, _ = dec.decoder_forward(weights, a, ids)
    diff = (torch.tensor(out["vectors"], dtype=torch.float64) - reference).abs().max().item()
    torch.set_num_threads(args.threads)
    torch_cpu = []
    with torch.inference_mode():
        for _ in range(args.repeat):
            start = time.process_time()
            dec.decoder_forward(weights, a, ids, dtype=torch.float32)
            torch_cpu.append(time.process_time() - start)
    print(json.dumps({"tokens": len(ids), "layers": args.layers, "threads": args.threads,
                      "tokvec_forward_cpu_s": round(full - base, 3), "torch_float32_cpu_s": round(min(torch_cpu), 3),
                      "max_abs_diff_vs_float64": diff}))


if __name__ == "__main__":
    main()
