#!/usr/bin/python3
"""Whole-model embedding throughput: tokvec (its library in-process and `tokvec embed --lines`) against PyTorch
eager and ONNX Runtime, same weights, same token ids, mean pooling, same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/embed_model.py --tokvec build/tokvec [--threads 1,2]
    (bench/embed_model.sh sets this up, installs the npm peer and is what bench/run_all.sh calls)

Models: random-weight checkpoints in Hugging Face's layout (safetensors, F32), written once into --cache (not the
repository): GPT-2 small (12 layers, 768 wide, 12 heads, FF 3072, GPT-2's real 50,257-token vocabulary from
../shared/vocab/gpt2) and BERT-base (the same sizes, post-LN, exact GELU, a WordPiece vocabulary of the 20,000
commonest words of wikitext-2 valid). Weights are drawn as transformers' _init_weights does (N(0, 0.02)), with
LayerNorm scales and biases perturbed so that every tensor matters.

Texts: the first 32 lines of ../shared/corpora/wikitext2-test.txt of 64..192 GPT-2 tokens (varied lengths: 3,742
tokens, 117 on average; BERT: 4,182 with [CLS] ... [SEP]). Token ids come from tokvec's tokenizer (its
conformance with Hugging Face's is tested by scripts/conformance.sh); PyTorch and ONNX Runtime get exactly those
ids.

Systems, each timed over the 32 texts (tokens/s counts real tokens only; no system pads):
  tokvec lib   tokvec.Model.embed(texts, pooling="mean", num_threads=N): EmbedTexts, texts of equal length batched
               (tokenizing included)
  tokvec cli   `tokvec embed --lines --pooling mean --format npy --threads N`, wall time minus that of a one-line
               run of the same command (loading the model), so the figure is the forward passes
  torch        eager float32 modules written here after transformers' GPT2Model / BertModel (nn.Linear GEMMs,
               explicit q.kᵀ, softmax, masked mean pooling), torch.inference_mode, torch.set_num_threads(N), in two
               ways: "single" (each text alone, batch 1, no padding) and "bucket" (texts sorted by length, groups of
               4 padded to their longest with an attention mask: ~5% padding); the faster is the peer
  onnxruntime  the same module exported by torch.onnx.export (opset 14, dynamic batch and length axes), run by
               onnxruntime-node 1.30.0 (bench/embed_model_ort.mjs) with graphOptimizationLevel 'all',
               intraOpNumThreads N, interOpNumThreads 1, the same two ways; the faster is the peer

Each round runs every system --repeats times per thread count; a system's figure is the median over all its runs.
Both wall time and CPU time (user + system of all threads: getrusage, node's process.cpuUsage) are reported; on a
shared, loaded machine tokens per CPU-second are the steadier comparison (a spinning thread pool counts against
its owner).
Checks: the pooled vectors of every system against PyTorch's "single" ones (max abs diff <= 1e-4), and the CLI's
npy against the library's (bit-equal).

Prints a table and, for bench/run_all.sh, tab-separated lines: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
"""
import argparse
import collections
import ctypes
import json
import math
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_hf_checkpoints as hf  # noqa: E402  (safetensors writer, tensor names, BERT basic tokenizer)

D, HEADS, LAYERS, FF = 768, 12, 12, 3072
GPT2_POSITIONS, BERT_POSITIONS = 1024, 512
BUCKET = 4
TOLERANCE = 1e-4
FORMAT_VERSION = 1  # bump when the generated checkpoints change, so stale caches are rebuilt


def init_weights(shapes, seed):
    """transformers' _init_weights: matrices and embeddings N(0, 0.02); here also LayerNorm scale 1 + N(0, 0.05)
    and biases N(0, 0.02) (instead of 1 and 0) so that a wrong bias or scale cannot go unnoticed."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for name, shape in shapes:
        if name.endswith("weight") and len(shape) == 1:  # LayerNorm scales
            out[name] = 1 + 0.05 * torch.randn(shape, generator=gen)
        else:
            out[name] = 0.02 * torch.randn(shape, generator=gen)
    return out


def set_generator_sizes():
    hf.D_MODEL, hf.N_HEADS, hf.N_LAYERS, hf.D_FF = D, HEADS, LAYERS, FF
    hf.GPT2_POSITIONS, hf.BERT_POSITIONS, hf.ROBERTA_POSITIONS = GPT2_POSITIONS, BERT_POSITIONS, BERT_POSITIONS


def bert_vocabulary(shared):
    """[PAD] [UNK] [CLS] [SEP] [MASK], every character seen and its ## form, then the commonest words."""
    counts, chars = collections.Counter(), set()
    with open(shared / "corpora" / "wikitext2-valid.txt", encoding="utf-8") as f:
        for line in f:
            for word in hf.bert_basic_tokens(line):
                counts[word] += 1
                chars.update(word)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokens += sorted(chars) + ["##" + c for c in sorted(chars)]
    seen = set(tokens)
    tokens += [w for w, _ in counts.most_common(20000) if w not in seen]
    return tokens


def write_model(arch, folder, shared):
    """A Hugging Face model directory; returns nothing (the weights are read back from the safetensors)."""
    folder.mkdir(parents=True, exist_ok=True)
    if arch == "gpt2":
        with open(shared / "vocab" / "gpt2" / "vocab.json", encoding="utf-8") as f:
            vocab_size = len(json.load(f))
        for name in ("vocab.json", "merges.txt"):
            (folder / name).write_bytes((shared / "vocab" / "gpt2" / name).read_bytes())
        weights = init_weights(hf.gpt2_shapes(vocab_size), seed=1)
        config = {"architectures": ["GPT2Model"], "model_type": "gpt2", "activation_function": "gelu_new",
                  "n_embd": D, "n_head": HEADS, "n_layer": LAYERS, "n_inner": FF, "n_positions": GPT2_POSITIONS,
                  "n_ctx": GPT2_POSITIONS, "vocab_size": vocab_size, "layer_norm_epsilon": 1e-5,
                  "bos_token_id": 50256, "eos_token_id": 50256}
    else:
        tokens = bert_vocabulary(shared)
        hf.write_bert_tokenizer_files(str(folder), tokens, tokenizer_json=False, vocab_txt=True)
        weights = init_weights(hf.bert_shapes(len(tokens)), seed=2)
        config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu", "hidden_size": D,
                  "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": FF,
                  "max_position_embeddings": BERT_POSITIONS, "vocab_size": len(tokens), "type_vocab_size": 2,
                  "pad_token_id": 0, "layer_norm_eps": 1e-12, "position_embedding_type": "absolute"}
    with open(folder / "config.json", "w") as f:
        json.dump(config, f, indent=2)
    hf.write_safetensors(str(folder / "model.safetensors"), [(k, v, "F32") for k, v in weights.items()])
    (folder / "bench_version").write_text(str(FORMAT_VERSION))


def read_safetensors(path):
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
        data = f.read()
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", name
        begin, end = entry["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[begin:end], dtype=np.float32).copy()).view(entry["shape"])
    return out


class Encoder(torch.nn.Module):
    """transformers' GPT2Model (pre-LN, causal, gelu_new, ln_f) or BertModel (post-LN, exact GELU) in float32,
    with masked mean pooling: ids [B, T] int64, mask [B, T] float (1 = token, 0 = padding) -> [B, D]."""

    def __init__(self, arch, w):
        super().__init__()
        self.arch = arch
        gpt2 = arch == "gpt2"

        def linear(name, transpose):  # GPT-2's Conv1D stores [in, out]; nn.Linear wants [out, in]
            weight = w[name + ".weight"]
            layer = torch.nn.Linear(weight.shape[1 - transpose], weight.shape[transpose])
            layer.weight.data = (weight.t() if transpose else weight).contiguous()
            layer.bias.data = w[name + ".bias"].clone()
            return layer

        def norm(name):
            layer = torch.nn.LayerNorm(D, eps=1e-5 if gpt2 else 1e-12)
            layer.weight.data, layer.bias.data = w[name + ".weight"].clone(), w[name + ".bias"].clone()
            return layer

        blocks = []
        for i in range(LAYERS):
            if gpt2:
                p = f"h.{i}."
                blocks.append(torch.nn.ModuleDict({
                    "ln1": norm(p + "ln_1"), "qkv": linear(p + "attn.c_attn", 1), "out": linear(p + "attn.c_proj", 1),
                    "ln2": norm(p + "ln_2"), "fc": linear(p + "mlp.c_fc", 1), "proj": linear(p + "mlp.c_proj", 1)}))
            else:
                p = f"encoder.layer.{i}."
                q, k, v = (w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value"))
                qkv = torch.nn.Linear(D, 3 * D)  # the three projections as one GEMM (same sums per output)
                qkv.weight.data = torch.cat([q, k, v]).contiguous()
                qkv.bias.data = torch.cat([w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")])
                blocks.append(torch.nn.ModuleDict({
                    "qkv": qkv, "out": linear(p + "attention.output.dense", 0),
                    "ln1": norm(p + "attention.output.LayerNorm"), "fc": linear(p + "intermediate.dense", 0),
                    "proj": linear(p + "output.dense", 0), "ln2": norm(p + "output.LayerNorm")}))
        self.blocks = torch.nn.ModuleList(blocks)
        if gpt2:
            self.tokens, self.positions = w["wte.weight"], w["wpe.weight"]
            self.final = norm("ln_f")
        else:
            self.tokens = w["embeddings.word_embeddings.weight"]
            self.positions = w["embeddings.position_embeddings.weight"]
            self.type0 = w["embeddings.token_type_embeddings.weight"][0].clone()
            self.final = norm("embeddings.LayerNorm")  # BERT's embedding LayerNorm

    def attention(self, block, h, bias):
        b, t, _ = h.shape
        q, k, v = block["qkv"](h).view(b, t, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4).unbind(0)  # [B, H, T, dh]
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(D // HEADS)) + bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v)  # [B, H, T, dh]
        return block["out"](context.transpose(1, 2).reshape(b, t, D))

    def forward(self, ids, mask):
        t = ids.shape[1]
        x = self.tokens[ids] + self.positions[:t]
        bias = (1.0 - mask)[:, None, None, :] * -1e9  # padding keys, [B, 1, 1, T]
        if self.arch == "gpt2":
            causal = torch.ones(t, t).tril()
            bias = bias + (1.0 - causal) * -1e9  # [B, 1, T, T]
            for block in self.blocks:
                x = x + self.attention(block, block["ln1"](x), bias)
                x = x + block["proj"](F.gelu(block["fc"](block["ln2"](x)), approximate="tanh"))
            x = self.final(x)
        else:
            x = self.final(x + self.type0)
            for block in self.blocks:
                x = block["ln1"](x + self.attention(block, x, bias))
                x = block["ln2"](x + block["proj"](F.gelu(block["fc"](x))))
        return (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True)


def batches(ids, mode):
    """The texts as forward calls: (order of texts, ids [B, T] int64, mask [B, T] float32) per call."""
    if mode == "single":
        groups = [[i] for i in range(len(ids))]
    else:
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        groups = [order[i:i + BUCKET] for i in range(0, len(order), BUCKET)]
    out = []
    for group in groups:
        t = max(len(ids[i]) for i in group)
        a = np.zeros((len(group), t), dtype=np.int64)
        m = np.zeros((len(group), t), dtype=np.float32)
        for row, i in enumerate(group):
            a[row, :len(ids[i])] = ids[i]
            m[row, :len(ids[i])] = 1
        out.append((group, a, m))
    return out


def openblas_threads(n):
    """Sets the process's OpenBLAS thread count. tokvec's module and torch share one OpenBLAS (Debian's
    libopenblas.so.0), and loading a tokvec model sets it to one thread for the process (kernels/ops.h): torch's
    f32 products would run on one thread whatever torch.set_num_threads says. Timed torch runs get n, tokvec's 1."""
    try:
        ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(int(n))
    except (OSError, AttributeError):
        pass  # another BLAS: nothing shared to set


def run_torch(model, calls, n):
    pooled = np.zeros((n, D), dtype=np.float32)
    with torch.inference_mode():
        for group, a, m in calls:
            pooled[group] = model(torch.from_numpy(a), torch.from_numpy(m)).numpy()
    return pooled


def cpu_seconds():
    """User + system seconds of this process (all its threads) and of its finished children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(function):
    """(wall seconds, CPU seconds, result)."""
    start, cpu = time.perf_counter(), cpu_seconds()
    result = function()
    return time.perf_counter() - start, cpu_seconds() - cpu, result


def pick_texts(shared, tokenize, count):
    texts = []
    with open(shared / "corpora" / "wikitext2-test.txt", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("=") and 64 <= len(tokenize(line)) <= 192:
                texts.append(line)
                if len(texts) == count:
                    return texts
    raise SystemExit(f"error: wikitext2-test.txt has fewer than {count} lines of 64..192 tokens")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", default="build/tokvec")
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "bench_embed_model"))
    parser.add_argument("--npm", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "npm"), help="folder whose node_modules holds onnxruntime-node")
    parser.add_argument("--archs", default="gpt2,bert")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--texts", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per system, thread count and round")
    args = parser.parse_args()
    import tokvec  # PYTHONPATH=build/python

    shared = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    cache = pathlib.Path(args.cache)
    threads = [int(t) for t in args.threads.split(",")]
    set_generator_sizes()
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    for arch in ("gpt2", "bert"):
        folder = cache / arch
        if not (folder / "bench_version").exists() or (folder / "bench_version").read_text() != str(FORMAT_VERSION):
            print(f"writing {folder}", flush=True)
            write_model(arch, folder, shared)
    # Chosen by GPT-2 token counts whichever --archs run; BERT embeds the same lines.
    texts = pick_texts(shared, tokvec.Model.load(str(cache / "gpt2")).tokenize, args.texts)
    rows = []
    for arch in args.archs.split(","):
        folder = cache / arch
        lib = tokvec.Model.load(str(folder))
        ids = [list(lib.tokenize(t)) for t in texts]
        lengths = [len(i) for i in ids]
        n_tokens = sum(lengths)
        print(f"{arch}: {len(texts)} texts, {n_tokens} tokens (min {min(lengths)}, median "
              f"{statistics.median(lengths):.0f}, max {max(lengths)})", flush=True)
        model = Encoder(arch, read_safetensors(folder / "model.safetensors")).eval()
        calls = {mode: batches(ids, mode) for mode in ("single", "bucket")}
        padded = sum(a.size for _, a, _ in calls["bucket"])
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            onnx_path = tmp / "model.onnx"
            _, a, m = calls["single"][0]
            with torch.inference_mode():
                torch.onnx.export(model, (torch.from_numpy(a), torch.from_numpy(m)), str(onnx_path),
                                  input_names=["ids", "mask"], output_names=["pooled"], opset_version=14,
                                  dynamic_axes={"ids": {0: "batch", 1: "length"}, "mask": {0: "batch", 1: "length"},
                                                "pooled": {0: "batch"}})
            ort_input = tmp / "calls.json"
            with open(ort_input, "w") as f:
                json.dump({mode: [{"texts": g, "ids": a.ravel().tolist(), "mask": m.ravel().tolist(),
                                   "shape": list(a.shape)} for g, a, m in c] for mode, c in calls.items()}, f)
            lines = tmp / "lines.txt"
            lines.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
            one_line = tmp / "one.txt"
            one_line.write_text(texts[0].split()[0] + "\n", encoding="utf-8")
            times, cpu = collections.defaultdict(list), collections.defaultdict(list)
            outputs = {}
            for round_index in range(args.rounds):
                for n in threads:
                    torch.set_num_threads(n)
                    for _ in range(args.repeats):
                        t, used, outputs[("lib", n)] = timed(lambda: lib.embed(texts, pooling="mean", num_threads=n))
                        times[("tokvec lib", n)].append(t)
                        cpu[("tokvec lib", n)].append(used)
                        command = [args.tokvec, "embed", "-m", str(folder), "--lines", "--pooling", "mean",
                                   "--format", "npy", "--threads", str(n), "-o"]
                        base, base_cpu, _ = timed(lambda: subprocess.run(
                            command + [str(tmp / "one.npy"), str(one_line)], check=True))
                        full, full_cpu, _ = timed(lambda: subprocess.run(
                            command + [str(tmp / "cli.npy"), str(lines)], check=True))
                        times[("tokvec cli", n)].append(full - base)
                        cpu[("tokvec cli", n)].append(full_cpu - base_cpu)
                        outputs[("cli", n)] = np.load(tmp / "cli.npy")
                        openblas_threads(n)  # torch's own thread count, not the one tokvec's load left
                        for mode, c in calls.items():
                            if round_index == 0 and n == threads[0]:
                                run_torch(model, c[:1], len(texts))  # warm-up
                            t, used, outputs[(mode, n)] = timed(lambda: run_torch(model, c, len(texts)))
                            times[(f"torch {mode}", n)].append(t)
                            cpu[(f"torch {mode}", n)].append(used)
                        openblas_threads(1)  # tokvec's again (it runs its own threads around one-thread BLAS)
                    node = subprocess.run(
                        ["node", str(ROOT / "bench" / "embed_model_ort.mjs"), str(onnx_path), str(ort_input),
                         str(n), str(args.repeats)], check=True, capture_output=True, text=True,
                        env=dict(os.environ, NODE_PATH=str(pathlib.Path(args.npm) / "node_modules")))
                    result = json.loads(node.stdout)
                    for mode in calls:
                        times[(f"ort {mode}", n)] += result["seconds"][mode]
                        cpu[(f"ort {mode}", n)] += result["cpu_seconds"][mode]
                        outputs[(f"ort {mode}", n)] = np.array(result["pooled"][mode], dtype=np.float32)
                    print(f"  round {round_index} threads {n}: " + ", ".join(
                        f"{name} {n_tokens / times[(name, n)][-1]:.0f}" for name in
                        ("tokvec lib", "tokvec cli", "torch single", "torch bucket", "ort single", "ort bucket")) +
                        f" tokens/s; load {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        reference = outputs[("single", threads[0])]
        worst = {}
        for key, value in outputs.items():
            worst[key] = float(np.abs(value - reference).max())
        cli_equal = all(np.array_equal(outputs[("cli", n)], outputs[("lib", n)]) for n in threads)
        print(f"{arch}: bucketed calls pad {padded - n_tokens} of {padded} positions; max abs diff vs torch single "
              f"({threads[0]} thread): " + ", ".join(f"{k[0]}@{k[1]} {v:.1e}" for k, v in sorted(worst.items())) +
              f"; cli npy == lib output: {cli_equal}")
        if not cli_equal:
            raise SystemExit("error: tokvec embed --lines and tokvec.Model.embed disagree")
        tokvec_diff = max(v for k, v in worst.items() if k[0] in ("lib", "cli"))
        ort_diff = max(v for k, v in worst.items() if k[0].startswith("ort"))
        shape = "GPT-2 small" if arch == "gpt2" else "BERT-base"
        names = ("tokvec lib", "tokvec cli", "torch single", "torch bucket", "ort single", "ort bucket")
        for measure, seconds in (("tokens/s of wall time", times), ("tokens per CPU-second", cpu)):
            rate = {key: n_tokens / statistics.median(v) for key, v in seconds.items()}
            print(f"\n{shape}, {len(texts)} texts x ~{n_tokens // len(texts)} tokens, mean pooling: {measure} "
                  "(median)")
            print("threads | " + " | ".join(names) + " | lib/best torch | lib/best ort")
            for n in threads:
                torch_best = max(rate[("torch single", n)], rate[("torch bucket", n)])
                ort_best = max(rate[("ort single", n)], rate[("ort bucket", n)])
                ours = rate[("tokvec lib", n)]
                print(f"{n} | " + " | ".join(f"{rate[(name, n)]:.0f}" for name in names) +
                      f" | x{ours / torch_best:.2f} | x{ours / ort_best:.2f}")
                label = (f"{shape} embed {measure} ({len(texts)} texts ~{n_tokens // len(texts)} tokens, mean, "
                         f"{n} thread{'s' * (n > 1)})")
                for peer, best, target in (("PyTorch", torch_best, 1.5), ("ONNX Runtime", ort_best, 1.0)):
                    ratio = ours / best
                    rows.append(f"ROW\t{label} vs {peer}\t{ours:.0f}\t{best:.0f}\t{ratio:.2f}\t>= {target}x"
                                f"{' at 2 threads' if n == 1 else ''}\t"
                                f"{('yes' if ratio >= target else 'NO') if n == 2 else '-'}")
        rows.append(f"ROW\t{shape} pooled vectors, max abs diff vs PyTorch (tokvec; ORT)\t{tokvec_diff:.1e}\t"
                    f"{ort_diff:.1e}\t-\t<= {TOLERANCE:g}\t{'yes' if tokvec_diff <= TOLERANCE else 'NO'}")
        print(flush=True)
    print(f"load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
