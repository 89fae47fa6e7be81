#!/usr/bin/python3
"""Builds tiny random LLaMA, Qwen2 and Qwen3 checkpoints in Hugging Face's layout, and their reference hidden
states, from an independent float64 implementation of the published architectures written with torch ops.

Run with Debian's python3 (it has torch):

    /usr/bin/python3 scripts/gen_decoder_checkpoints.py tests/attention/testdata     # (re)write the files
    /usr/bin/python3 scripts/gen_decoder_checkpoints.py --check --tolerance 1e-5     # compare with the committed

Writes, under the output folder:
  hf_llama_{f32,bf16,f16,sharded}/  LlamaForCausalLM: config.json (LlamaConfig keys), vocab.json + merges.txt, model.safetensors
                        with "model." names and an untied lm_head.weight; 4 query heads share 2 key/value heads (GQA).
  hf_qwen2_{f32,bf16,f16}/  Qwen2ForCausalLM: q/k/v biases (no o_proj bias), tie_word_embeddings true (so no lm_head),
                        rope_theta 1e6, "model." names.
  hf_qwen3_{f32,bf16,f16,sharded}/  shaped as Qwen3-Embedding: tensor names without a prefix (embed_tokens.weight, layers.N.*,
                        norm.weight), per-head q_norm / k_norm, head_dim 16 while hidden_size / heads is 8,
                        tokenizer.json (byte-level BPE; its TemplateProcessing appends <|endoftext|>, as
                        Qwen3-Embedding's does, so the reference ids end with it), sentence-transformers modules.json
                        + 1_Pooling/config.json (pooling_mode_lasttoken) + 2_Normalize.
  hf_llama_reference.json, hf_qwen2_reference.json, hf_qwen3_reference.json:
      {"texts": [...], "ids": [[...]], "f32": {"hidden": [[[...]]], "attentions": [L][H][T][T] of text 0,
       "pooled": [[...]] (last token, L2-normalized)}, "bf16": ..., "f16": ..., "sharded": ... (F32 in two shards:
       the embeddings and layer 0 in the first, layer 1, the final norm and lm_head in the second)}

The forward pass (Touvron et al. 2023, LLaMA; Qwen2 / Qwen3 technical reports) as written below:
  x = embed_tokens[ids]
  per layer:  h = RMSNorm(x) · g_in;  q = h·Wqᵀ (+bq), k = h·Wkᵀ (+bk), v = h·Wvᵀ (+bv), split into heads of head_dim
              (Qwen3: q, k = RMSNorm over each head's head_dim · q_norm / k_norm)
              q, k rotated by RoPE "rotate half": pairs (i, i + head_dim/2), angle pos · rope_theta^(-2i/head_dim)
              query head h uses key/value head h // (heads / kv_heads); causal softmax(q·kᵀ / √head_dim)·v
              x = x + concat(heads)·Woᵀ (+bo);  h = RMSNorm(x) · g_post;  x = x + (silu(h·Wgᵀ) * (h·Wuᵀ))·Wdᵀ
  out = RMSNorm(x) · g_final,   RMSNorm(x) = x / sqrt(mean(x²) + rms_norm_eps)
computed in float64 on the weights *after* rounding to each copy's dtype, so the comparison measures tokvec's
arithmetic. The tokenizer, merges, test texts and file writers are scripts/gen_hf_checkpoints.py's.
"""
import argparse
import filecmp
import json
import math
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_hf_checkpoints as hf  # noqa: E402

SEED = 20261125
D_MODEL, N_LAYERS, D_FF, POSITIONS = 32, 2, 48, 64
ARCHS = {
    # name: (config keys beyond the common ones, tensor prefix, biases of q/k/v, bias of o, q/k norm, untied head)
    "llama": dict(model_type="llama", architectures=["LlamaForCausalLM"], heads=4, kv_heads=2, head_dim=None,
                  theta=10000.0, eps=1e-5, qkv_bias=False, o_bias=False, qk_norm=False, tied=False, prefix="model."),
    "qwen2": dict(model_type="qwen2", architectures=["Qwen2ForCausalLM"], heads=4, kv_heads=2, head_dim=None,
                  theta=1000000.0, eps=1e-6, qkv_bias=True, o_bias=False, qk_norm=False, tied=True, prefix="model."),
    "qwen3": dict(model_type="qwen3", architectures=["Qwen3ForCausalLM"], heads=4, kv_heads=2, head_dim=16,
                  theta=1000000.0, eps=1e-6, qkv_bias=False, o_bias=False, qk_norm=True, tied=True, prefix=""),
}


def head_dim(a):
    return a["head_dim"] or D_MODEL // a["heads"]


def shapes(a, vocab_size):
    d, dh, f = D_MODEL, head_dim(a), D_FF
    out = [("embed_tokens.weight", (vocab_size, d))]
    for i in range(N_LAYERS):
        p = f"layers.{i}."
        out += [(p + "input_layernorm.weight", (d,)),
                (p + "self_attn.q_proj.weight", (a["heads"] * dh, d)),
                (p + "self_attn.k_proj.weight", (a["kv_heads"] * dh, d)),
                (p + "self_attn.v_proj.weight", (a["kv_heads"] * dh, d)),
                (p + "self_attn.o_proj.weight", (d, a["heads"] * dh))]
        if a["qkv_bias"]:
            out += [(p + "self_attn.q_proj.bias", (a["heads"] * dh,)),
                    (p + "self_attn.k_proj.bias", (a["kv_heads"] * dh,)),
                    (p + "self_attn.v_proj.bias", (a["kv_heads"] * dh,))]
        if a["qk_norm"]:
            out += [(p + "self_attn.q_norm.weight", (dh,)), (p + "self_attn.k_norm.weight", (dh,))]
        out += [(p + "post_attention_layernorm.weight", (d,)),
                (p + "mlp.gate_proj.weight", (f, d)), (p + "mlp.up_proj.weight", (f, d)),
                (p + "mlp.down_proj.weight", (d, f))]
    out.append(("norm.weight", (d,)))
    return out


def random_weights(named_shapes, gen):
    """Projections N(0, 0.2), biases N(0, 0.1), norm weights 1 + N(0, 0.1), embeddings N(0, 0.5)."""
    out = {}
    for name, shape in named_shapes:
        if name.endswith("norm.weight") or name.endswith("layernorm.weight"):
            out[name] = 1 + 0.1 * torch.randn(shape, generator=gen)
        elif name.endswith("bias"):
            out[name] = 0.1 * torch.randn(shape, generator=gen)
        elif name.startswith("embed_tokens"):
            out[name] = 0.5 * torch.randn(shape, generator=gen)
        else:
            out[name] = 0.2 * torch.randn(shape, generator=gen)
    return out


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def rope(x, theta):
    """x: [heads, T, Dh] -> rotated; position t of row t."""
    dh, t = x.shape[-1], x.shape[-2]
    inv_freq = theta ** (-torch.arange(0, dh, 2, dtype=x.dtype) / dh)  # [Dh/2]
    angles = torch.arange(t, dtype=x.dtype)[:, None] * inv_freq[None, :]  # [T, Dh/2]
    emb = torch.cat([angles, angles], dim=-1)  # [T, Dh]
    return x * emb.cos() + rotate_half(x) * emb.sin()


def decoder_forward(w, a, ids, dtype=torch.float64):
    """Returns hidden [T, D] and the attention weights per layer [L][H, T, T], in `dtype` (float64 for the
    references; scripts/bench_decoder.py times it in float32). The layer count is the checkpoint's."""
    w = {k: v.to(dtype) for k, v in w.items()}
    eps, dh, heads, kv_heads = a["eps"], head_dim(a), a["heads"], a["kv_heads"]
    x = w["embed_tokens.weight"][torch.tensor(ids)]
    t = x.shape[0]
    causal = torch.ones(t, t, dtype=torch.bool).tril()
    attentions = []
    n_layers = sum(1 for k in w if k.endswith("input_layernorm.weight"))
    for i in range(n_layers):
        p = f"layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        proj = {}
        for name in ("q", "k", "v"):
            proj[name] = F.linear(h, w[p + f"self_attn.{name}_proj.weight"], w.get(p + f"self_attn.{name}_proj.bias"))
        q = proj["q"].view(t, heads, dh).transpose(0, 1)  # [H, T, Dh]
        k = proj["k"].view(t, kv_heads, dh).transpose(0, 1)  # [Hkv, T, Dh]
        v = proj["v"].view(t, kv_heads, dh).transpose(0, 1)
        if a["qk_norm"]:
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = rope(q, a["theta"]), rope(k, a["theta"])
        k = k.repeat_interleave(heads // kv_heads, dim=0)  # query head h reads kv head h // (H / Hkv)
        v = v.repeat_interleave(heads // kv_heads, dim=0)
        scores = (q @ k.transpose(1, 2)) / dh ** 0.5
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)  # [H, T, T]
        attentions.append(weights)
        context = (weights @ v).transpose(0, 1).reshape(t, heads * dh)
        x = x + F.linear(context, w[p + "self_attn.o_proj.weight"], w.get(p + "self_attn.o_proj.bias"))
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = F.linear(h, w[p + "mlp.gate_proj.weight"])
        up = F.linear(h, w[p + "mlp.up_proj.weight"])
        x = x + F.linear(gate * torch.sigmoid(gate) * up, w[p + "mlp.down_proj.weight"])
    return rms_norm(x, w["norm.weight"], eps), torch.stack(attentions)


def config_json(a, vocab_size):
    c = {"architectures": a["architectures"], "model_type": a["model_type"], "hidden_act": "silu",
         "hidden_size": D_MODEL, "intermediate_size": D_FF, "num_hidden_layers": N_LAYERS,
         "num_attention_heads": a["heads"], "num_key_value_heads": a["kv_heads"],
         "max_position_embeddings": POSITIONS, "vocab_size": vocab_size, "rms_norm_eps": a["eps"],
         "rope_theta": a["theta"], "rope_scaling": None, "tie_word_embeddings": a["tied"],
         "attention_dropout": 0.0, "initializer_range": 0.02, "use_cache": True, "torch_dtype": "float32",
         "bos_token_id": vocab_size - 1, "eos_token_id": vocab_size - 1}
    if a["model_type"] == "llama":
        c.update({"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1})
    if a["model_type"] in ("qwen2", "qwen3"):
        c.update({"use_sliding_window": False, "sliding_window": None, "max_window_layers": N_LAYERS})
    if a["model_type"] == "qwen3":
        c.update({"head_dim": a["head_dim"], "attention_bias": False})
    return c


def write_tokenizer_json(folder, vocab, merges):
    """A byte-level BPE tokenizer.json (Hugging Face tokenizers' format) with the same vocabulary and merges, and
    Qwen3-Embedding's post-processor: a TemplateProcessing that appends <|endoftext|> to every text (the token
    whose hidden state last-token pooling takes)."""
    end = max(vocab.values())
    eos = {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": end, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, eos],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, eos, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "<|endoftext|>", "type_id": 1}}],
            "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [end], "tokens": ["<|endoftext|>"]}}},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{x} {y}" for x, y in merges]},
    }
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, indent=1)


def write_sentence_transformers(folder):
    """Qwen3-Embedding's modules: Transformer -> last-token Pooling -> Normalize."""
    with open(os.path.join(folder, "modules.json"), "w") as f:
        json.dump([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                   {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}],
                  f, indent=2)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": D_MODEL, "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
                   "pooling_mode_lasttoken": True, "include_prompt": True}, f, indent=2)
    os.makedirs(os.path.join(folder, "2_Normalize"), exist_ok=True)


# The copies of each architecture: dtype of the safetensors, number of shards (model-0000N-of-00002.safetensors +
# model.safetensors.index.json). Qwen2 has no sharded copy (LLaMA's "model." names and Qwen3's bare names are
# the two layouts).
COPIES = {"f32": ("F32", 1), "bf16": ("BF16", 1), "f16": ("F16", 1), "sharded": ("F32", 2)}


def write_all(out_dir):
    merges = hf.learn_merges(hf.TRAINING_TEXT, hf.NUM_MERGES)
    tokens = list(hf.BYTE_TO_CHAR.values()) + [x + y for x, y in merges] + ["<|endoftext|>"]
    vocab = {tok: i for i, tok in enumerate(tokens)}
    ids = [hf.bpe_encode(text, vocab, merges) for text in hf.TEXTS]
    gen = torch.Generator().manual_seed(SEED)
    for name, a in ARCHS.items():
        weights = random_weights(shapes(a, len(vocab)), gen)
        head = 0.2 * torch.randn((len(vocab), D_MODEL), generator=gen)  # llama's untied lm_head (ignored)
        # Qwen3-Embedding's tokenizer.json appends <|endoftext|> (write_tokenizer_json); the others add nothing.
        arch_ids = [seq + [vocab["<|endoftext|>"]] for seq in ids] if name == "qwen3" else ids
        reference = {"texts": hf.TEXTS, "ids": arch_ids}
        for copy, (dtype, shards) in COPIES.items():
            if copy == "sharded" and name == "qwen2":
                continue
            folder = os.path.join(out_dir, f"hf_{name}_{copy}")
            os.makedirs(folder, exist_ok=True)
            if name == "qwen3":
                write_tokenizer_json(folder, vocab, merges)
                write_sentence_transformers(folder)
            else:
                hf.write_tokenizer(folder, vocab, merges)
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(config_json(a, len(vocab)), f, indent=2)
            tensors = [(a["prefix"] + k, v, dtype) for k, v in weights.items()]
            if not a["tied"]:
                tensors.append(("lm_head.weight", head, dtype))
            if shards == 1:
                hf.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
            else:  # the embeddings and layer 0 in the first shard, layer 1 and the rest in the second
                later = ("layers.1.", "lm_head.", a["prefix"] + "norm.")
                second = [t for t in tensors if any(t[0].startswith(p) or (a["prefix"] + p) in t[0] for p in later)]
                parts = [[t for t in tensors if t not in second], second]
                names = [f"model-{i + 1:05d}-of-00002.safetensors" for i in range(2)]
                for shard, part in zip(names, parts):
                    hf.write_safetensors(os.path.join(folder, shard), part)
                index = {"metadata": {"total_size": sum(len(hf.tensor_bytes(t, d)) for _, t, d in tensors)},
                         "weight_map": {t[0]: shard for shard, part in zip(names, parts) for t in sorted(part)}}
                with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
                    json.dump(index, f, indent=2, sort_keys=True)
            results = [decoder_forward(hf.rounded(weights, dtype), a, seq) for seq in arch_ids]
            reference[copy] = {
                "hidden": [hf.nested(h) for h, _ in results],
                "attentions": [hf.nested(layer) for layer in results[0][1]],
                "pooled": [hf.floats(F.normalize(h[-1], dim=0)) for h, _ in results],
            }
        with open(os.path.join(out_dir, f"hf_{name}_reference.json"), "w") as f:
            json.dump(reference, f, separators=(",", ":"))


def max_json_diff(a, b):
    """Max |a - b| over two JSON values of the same shape; inf when the shapes or non-numbers differ."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return math.inf
        return max((max_json_diff(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return math.inf
        return max((max_json_diff(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b)
    return 0.0 if a == b else math.inf


def check(committed, tolerance):
    """Regenerates into a temporary folder: checkpoints and configs must equal the committed files byte for byte,
    the references' numbers within `tolerance` (another CPU's float64 kernels may move the last digits)."""
    with tempfile.TemporaryDirectory() as tmp:
        write_all(tmp)
        bad = 0
        for root, _, files in os.walk(tmp):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), tmp)
                mine, other = os.path.join(tmp, rel), os.path.join(committed, rel)
                if not os.path.exists(other):
                    ok, what = False, "is not committed"
                elif name.endswith("_reference.json"):
                    with open(mine) as f, open(other) as g:
                        diff = max_json_diff(json.load(f), json.load(g))
                    ok, what = diff <= tolerance, f"differs by {diff:.3g} (tolerance {tolerance:g})"
                else:
                    ok, what = filecmp.cmp(mine, other, shallow=False), "differs byte for byte"
                if not ok:
                    print(f"{rel}: {what}; regenerate with /usr/bin/python3 scripts/gen_decoder_checkpoints.py "
                          f"{committed}")
                    bad += 1
        if bad:
            sys.exit(1)
        print(f"decoder checkpoints and references under {committed} match the script (tolerance {tolerance:g})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="tests/attention/testdata")
    parser.add_argument("--check", action="store_true", help="compare with the files in out_dir instead of writing")
    parser.add_argument("--tolerance", type=float, default=1e-7, help="--check: max |diff| of reference numbers")
    args = parser.parse_args()
    if args.check:
        check(args.out_dir, args.tolerance)
        return
    write_all(args.out_dir)
    print(f"wrote decoder checkpoints and references under {args.out_dir}")


if __name__ == "__main__":
    main()
