#!/usr/bin/python3
"""Reranking throughput: tokvec (its library in-process, as `tokvec rerank` and the server run it) against PyTorch
eager and ONNX Runtime on a MiniLM-L6-shaped cross-encoder, one query and 100 passages, same weights and token
ids, same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/rerank.py --tokvec build/tokvec [--threads 1,2]
    (bench/rerank.sh sets this up, installs the npm peer and is what bench/run_all.sh calls)

Model: cross-encoder/ms-marco-MiniLM-L6-v2's shape (BertForSequenceClassification: 6 layers, 384 wide, 12 heads,
FF 1536, one label) with random weights in Hugging Face's layout (safetensors F32; written once into --cache) and
the WordPiece vocabulary bench/embed_model.py builds from wikitext-2 valid (20,000 commonest words).

Pairs: the query is a wikitext-2 test line of 8..24 tokens; the passages are the next 100 lines of 96..160 tokens;
each pair is [CLS] query [SEP] passage [SEP] with type ids 0 then 1 (~128 tokens on average). tokvec encodes the
pairs (its WordPiece ids are checked against Hugging Face by scripts/conformance.sh); PyTorch and ONNX Runtime
get exactly those ids and type ids (EncodeClassifierInputs, through tokvec.Tokenizer.encode of each side).

Systems, each timed scoring all 100 pairs (pairs/s):
  tokvec       tokvec.Model.predict(pairs, raw_scores=True, num_threads=N): tokenizing included
  torch        eager float32 BertForSequenceClassification written here after transformers' modeling_bert.py
               (nn.Linear GEMMs, explicit q.kᵀ, softmax, pooler tanh, classifier), torch.inference_mode,
               torch.set_num_threads(N), "single" (each pair alone, no padding) and "bucket" (pairs sorted by
               length, groups of 8 padded to their longest with a mask, as a batching user would); the faster
  onnxruntime  the same module exported by torch.onnx.export (opset 14, dynamic axes), run by onnxruntime-node
               1.30.0 (bench/embed_model_ort.mjs), graphOptimizationLevel 'all', intraOpNumThreads N, the same
               two ways; the faster is the peer
Medians over --rounds x --repeats runs; wall time and CPU time. Checks: every system's logits against PyTorch
"single" (max abs diff <= 1e-4).

Prints a table and, for bench/run_all.sh, tab-separated lines: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
"""
import argparse
import collections
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))
import gen_hf_checkpoints as hf  # noqa: E402
import embed_model as em  # noqa: E402  (weights, vocabulary, safetensors reader, timing)

D, HEADS, LAYERS, FF, POSITIONS = 384, 12, 6, 1536, 512
PASSAGES = 100
BUCKET = 8
TOLERANCE = 1e-4
FORMAT_VERSION = 1


def write_cross_encoder(folder, shared):
    folder.mkdir(parents=True, exist_ok=True)
    hf.D_MODEL, hf.N_HEADS, hf.N_LAYERS, hf.D_FF, hf.BERT_POSITIONS = D, HEADS, LAYERS, FF, POSITIONS
    tokens = em.bert_vocabulary(shared)
    hf.write_bert_tokenizer_files(str(folder), tokens, tokenizer_json=False, vocab_txt=True)
    shapes = list(hf.bert_shapes(len(tokens))) + [("classifier.weight", (1, D)), ("classifier.bias", (1,))]
    weights = em.init_weights(shapes, seed=3)
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_act": "gelu",
              "hidden_size": D, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": FF,
              "max_position_embeddings": POSITIONS, "vocab_size": len(tokens), "type_vocab_size": 2,
              "pad_token_id": 0, "layer_norm_eps": 1e-12, "position_embedding_type": "absolute",
              "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}}
    with open(folder / "config.json", "w") as f:
        json.dump(config, f, indent=2)
    names = {k: ("bert." + k if not k.startswith("classifier") else k) for k in weights}
    hf.write_safetensors(str(folder / "model.safetensors"), [(names[k], v, "F32") for k, v in weights.items()])
    (folder / "bench_version").write_text(str(FORMAT_VERSION))


class CrossEncoder(torch.nn.Module):
    """BertForSequenceClassification in float32: ids, types [B, T] int64, mask [B, T] float -> logits [B, 1]."""

    def __init__(self, w):
        super().__init__()
        w = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in w.items()}

        def linear(name):
            weight = w[name + ".weight"]
            layer = torch.nn.Linear(weight.shape[1], weight.shape[0])
            layer.weight.data, layer.bias.data = weight.contiguous(), w[name + ".bias"].clone()
            return layer

        def norm(name):
            layer = torch.nn.LayerNorm(D, eps=1e-12)
            layer.weight.data, layer.bias.data = w[name + ".weight"].clone(), w[name + ".bias"].clone()
            return layer

        blocks = []
        for i in range(LAYERS):
            p = f"encoder.layer.{i}."
            qkv = torch.nn.Linear(D, 3 * D)
            qkv.weight.data = torch.cat([w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")])
            qkv.bias.data = torch.cat([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
            blocks.append(torch.nn.ModuleDict({
                "qkv": qkv, "out": linear(p + "attention.output.dense"), "ln1": norm(p + "attention.output.LayerNorm"),
                "fc": linear(p + "intermediate.dense"), "proj": linear(p + "output.dense"),
                "ln2": norm(p + "output.LayerNorm")}))
        self.blocks = torch.nn.ModuleList(blocks)
        self.tokens = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.types = w["embeddings.token_type_embeddings.weight"]
        self.embedding_norm = norm("embeddings.LayerNorm")
        self.pooler = linear("pooler.dense")
        self.classifier = linear("classifier")

    def forward(self, ids, types, mask):
        b, t = ids.shape
        x = self.embedding_norm(self.tokens[ids] + self.positions[:t] + self.types[types])
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        dh = D // HEADS
        for block in self.blocks:
            q, k, v = block["qkv"](x).view(b, t, 3, HEADS, dh).permute(2, 0, 3, 1, 4).unbind(0)
            scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(dh)) + bias
            context = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, t, D)
            x = block["ln1"](x + block["out"](context))
            x = block["ln2"](x + block["proj"](F.gelu(block["fc"](x))))
        return self.classifier(torch.tanh(self.pooler(x[:, 0])))


def batches(ids, types, mode):
    if mode == "single":
        groups = [[i] for i in range(len(ids))]
    else:
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        groups = [order[i:i + BUCKET] for i in range(0, len(order), BUCKET)]
    out = []
    for group in groups:
        t = max(len(ids[i]) for i in group)
        a = np.zeros((len(group), t), dtype=np.int64)
        y = np.zeros((len(group), t), dtype=np.int64)
        m = np.zeros((len(group), t), dtype=np.float32)
        for row, i in enumerate(group):
            a[row, :len(ids[i])], y[row, :len(ids[i])], m[row, :len(ids[i])] = ids[i], types[i], 1
        out.append((group, a, y, m))
    return out


def run_torch(model, calls, n):
    logits = np.zeros((n, 1), dtype=np.float32)
    with torch.inference_mode():
        for group, a, y, m in calls:
            logits[group] = model(torch.from_numpy(a), torch.from_numpy(y), torch.from_numpy(m)).numpy()
    return logits


def corpus_lines(shared):
    with open(shared / "corpora" / "wikitext2-test.txt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.strip().startswith("=")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", default="build/tokvec")
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "bench_rerank"))
    parser.add_argument("--npm", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "npm"), help="folder whose node_modules holds onnxruntime-node")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    import tokvec  # PYTHONPATH=build/python

    shared = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    folder = pathlib.Path(args.cache) / "minilm_l6_cross"
    if not (folder / "bench_version").exists() or (folder / "bench_version").read_text() != str(FORMAT_VERSION):
        print(f"writing {folder}", flush=True)
        write_cross_encoder(folder, shared)
    threads = [int(t) for t in args.threads.split(",")]
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    model_lib = tokvec.Model.load(str(folder))
    tokenizer = tokvec.Tokenizer.load(str(folder))  # the directory's vocab.txt, as the model reads it

    def count(text):
        return len(tokenizer.encode(text))

    lines = corpus_lines(shared)
    query = next(l for l in lines if 8 <= count(l) <= 24)
    passages = [l for l in lines if l != query and 96 <= count(l) <= 160][:PASSAGES]
    if len(passages) < PASSAGES:
        raise SystemExit(f"error: wikitext2-test.txt has fewer than {PASSAGES} lines of 96..160 tokens")
    pairs = [(query, p) for p in passages]
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    q_ids = tokenizer.encode(query)
    ids, types = [], []
    for p in passages:
        p_ids = tokenizer.encode(p)
        ids.append([cls_id] + q_ids + [sep_id] + p_ids + [sep_id])
        types.append([0] * (len(q_ids) + 2) + [1] * (len(p_ids) + 1))
    n_tokens = sum(len(i) for i in ids)
    print(f"1 query ({len(q_ids)} tokens) x {PASSAGES} passages: {n_tokens} tokens in all, "
          f"{n_tokens / PASSAGES:.0f} per pair", flush=True)
    weights = em.read_safetensors(folder / "model.safetensors")
    model = CrossEncoder(weights).eval()
    calls = {mode: batches(ids, types, mode) for mode in ("single", "bucket")}
    times, cpu, outputs = collections.defaultdict(list), collections.defaultdict(list), {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        onnx_path = tmp / "model.onnx"
        _, a, y, m = calls["single"][0]
        with torch.inference_mode():
            torch.onnx.export(model, (torch.from_numpy(a), torch.from_numpy(y), torch.from_numpy(m)), str(onnx_path),
                              input_names=["ids", "types", "mask"], output_names=["pooled"], opset_version=14,
                              dynamic_axes={"ids": {0: "batch", 1: "length"}, "types": {0: "batch", 1: "length"},
                                            "mask": {0: "batch", 1: "length"}, "pooled": {0: "batch"}})
        ort_input = tmp / "calls.json"
        with open(ort_input, "w") as f:
            json.dump({mode: [{"texts": g, "ids": a.ravel().tolist(), "types": y.ravel().tolist(),
                               "mask": m.ravel().tolist(), "shape": list(a.shape)} for g, a, y, m in c]
                       for mode, c in calls.items()}, f)
        for round_index in range(args.rounds):
            for n in threads:
                torch.set_num_threads(n)
                for _ in range(args.repeats):
                    t, used, out = em.timed(lambda: model_lib.predict(pairs, raw_scores=True, num_threads=n))
                    times[("tokvec", n)].append(t)
                    cpu[("tokvec", n)].append(used)
                    outputs[("tokvec", n)] = np.asarray(out, dtype=np.float32).reshape(-1, 1)
                    em.openblas_threads(n)  # torch's own thread count, not the one tokvec's load left
                    for mode, c in calls.items():
                        if round_index == 0 and n == threads[0]:
                            run_torch(model, c[:1], PASSAGES)  # warm-up
                        t, used, outputs[(f"torch {mode}", n)] = em.timed(lambda: run_torch(model, c, PASSAGES))
                        times[(f"torch {mode}", n)].append(t)
                        cpu[(f"torch {mode}", n)].append(used)
                    em.openblas_threads(1)
                node = subprocess.run(
                    ["node", str(ROOT / "bench" / "embed_model_ort.mjs"), str(onnx_path), str(ort_input), str(n),
                     str(args.repeats)], check=True, capture_output=True, text=True,
                    env=dict(os.environ, NODE_PATH=str(pathlib.Path(args.npm) / "node_modules")))
                result = json.loads(node.stdout)
                for mode in calls:
                    times[(f"ort {mode}", n)] += result["seconds"][mode]
                    cpu[(f"ort {mode}", n)] += result["cpu_seconds"][mode]
                    outputs[(f"ort {mode}", n)] = np.array(result["pooled"][mode], dtype=np.float32)
                print(f"  round {round_index} threads {n}: " + ", ".join(
                    f"{name} {PASSAGES / times[(name, n)][-1]:.0f}" for name in
                    ("tokvec", "torch single", "torch bucket", "ort single", "ort bucket")) +
                    f" pairs/s; load {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    reference = outputs[("torch single", threads[0])]
    worst = {key: float(np.abs(value - reference).max()) for key, value in outputs.items()}
    print("max abs diff of the logits vs torch single: " +
          ", ".join(f"{k[0]}@{k[1]} {v:.1e}" for k, v in sorted(worst.items())))
    tokvec_diff = max(v for k, v in worst.items() if k[0] == "tokvec")
    ort_diff = max(v for k, v in worst.items() if k[0].startswith("ort"))
    names = ("tokvec", "torch single", "torch bucket", "ort single", "ort bucket")
    rows = []
    for measure, seconds in (("pairs/s of wall time", times), ("pairs per CPU-second", cpu)):
        rate = {key: PASSAGES / statistics.median(v) for key, v in seconds.items()}
        print(f"\nMiniLM-L6-shaped cross-encoder, 1 query x {PASSAGES} passages (~{n_tokens // PASSAGES} tokens "
              f"per pair): {measure} (median)")
        print("threads | " + " | ".join(names) + " | tokvec/best torch | tokvec/best ort")
        for n in threads:
            torch_best = max(rate[("torch single", n)], rate[("torch bucket", n)])
            ort_best = max(rate[("ort single", n)], rate[("ort bucket", n)])
            ours = rate[("tokvec", n)]
            print(f"{n} | " + " | ".join(f"{rate[(name, n)]:.0f}" for name in names) +
                  f" | x{ours / torch_best:.2f} | x{ours / ort_best:.2f}")
            label = f"rerank {measure} (MiniLM-L6 cross-encoder, 100 pairs ~{n_tokens // PASSAGES} tokens, {n} " \
                    f"thread{'s' * (n > 1)})"
            for peer, best in (("PyTorch", torch_best), ("ONNX Runtime", ort_best)):
                rows.append(f"ROW\t{label} vs {peer}\t{ours:.0f}\t{best:.0f}\t{ours / best:.2f}\t-\t-")
    rows.append(f"ROW\trerank logits, max abs diff vs PyTorch (tokvec; ORT)\t{tokvec_diff:.1e}\t{ort_diff:.1e}\t-\t"
                f"<= {TOLERANCE:g}\t{'yes' if tokvec_diff <= TOLERANCE else 'NO'}")
    print(f"\nload average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("\n".join(rows))
    if tokvec_diff > TOLERANCE:
        raise SystemExit(f"error: tokvec's logits differ from PyTorch's by {tokvec_diff:.1e}")


if __name__ == "__main__":
    main()
