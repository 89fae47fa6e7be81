#!/usr/bin/python3
"""Builds tiny random GPT-2, RoBERTa and GPT-Neo checkpoints in Hugging Face's layout, and their reference hidden
states.

Run with Debian's python3 (it has torch; the pyenv python3 on PATH does not):

    /usr/bin/python3 scripts/gen_hf_checkpoints.py tests/attention/testdata

Writes, under the output folder:
  hf_gpt2_{f32,f16,bf16}/     config.json (Hugging Face GPT2Config keys), vocab.json, merges.txt, model.safetensors
  hf_roberta_{f32,f16,bf16}/  config.json (RobertaConfig keys), vocab.json, merges.txt, model.safetensors,
                              sentence-transformers modules.json + 1_Pooling/config.json (mean pooling + Normalize)
  hf_gpt_neo_{f32,bf16}/      config.json (GPTNeoConfig keys: attention_types [[["global", "local"], 1]], window_size,
                              intermediate_size null), vocab.json, merges.txt (GPT-2's), model.safetensors
  hf_gpt2_reference.json, hf_roberta_reference.json, hf_gpt_neo_reference.json:
      {"texts": [...], "ids": [[...]], "f32": {"hidden": [[[...]]], "attentions": [L][H][T][T] of text 0,
       "pooled": [[...]] (RoBERTa: mean pooling + L2 normalize)}, "f16": ..., "bf16": ...}
      (GPT-Neo has only "f32" and "bf16".)

Tensor names follow transformers' GPT2Model / RobertaModel state dicts. The F16 copies use the prefixes a
*LMHeadModel / *ForMaskedLM checkpoint has ("transformer.", "roberta.") plus tensors tokvec must ignore (lm_head,
attn.bias masks, an I64 position_ids buffer), so the loader's name handling is exercised too. Both GPT-Neo copies
are laid out as a GPTNeoForCausalLM checkpoint: "transformer." names, plus lm_head.weight (tied to wte) and the U8
attn.attention.bias mask buffers (the local layer's is the windowed band), which tokvec must ignore.

Each reference is computed in float64 by the plain-torch implementation below (transformers' modeling_gpt2.py /
modeling_roberta.py / modeling_gpt_neo.py written out with torch ops, dropout off) on the weights *after* rounding
to that copy's dtype, so the comparison measures tokvec's arithmetic, not the rounding. GPT-Neo differs from GPT-2 in
nn.Linear [out, in] weights, bias-free q/k/v projections, *unscaled* q.k scores, and local layers where query i sees
only keys j with i - window_size < j <= i. Its weights come from their own generator, seeded after the others, so
adding it left every GPT-2 / RoBERTa file unchanged.

The tokenizer is GPT-2's byte-level BPE (Radford et al. 2019) with a few merges learned here from a small text;
ids of the test texts come from the reference encoder below (GPT-2's encoder.py algorithm; the texts are ASCII, for
which the character class [A-Za-z] is the same as GPT-2's \\p{L}).
"""
import json
import math
import os
import re
import struct
import sys

import torch
import torch.nn.functional as F

SEED = 20240611
TEXTS = [
    "Your cat is a lovely cat",
    "The quick brown fox jumps over the lazy dog.",
    "tokvec: 3 heads, 2 layers!",
]
TRAINING_TEXT = (
    "Your cat is a lovely cat. The cat sat on the mat; the dog is lazy and the fox is quick. "
    "Heads and layers attend to tokens, and tokens attend to the cat. "
) * 3
NUM_MERGES = 40
D_MODEL, N_HEADS, N_LAYERS, D_FF = 32, 4, 2, 64
GPT2_POSITIONS = 48
ROBERTA_PAD = 1
ROBERTA_POSITIONS = 50  # max_position_embeddings: 50 - pad - 1 = 48 tokens
NEO_POSITIONS = 48
NEO_WINDOW = 4  # shorter than the test texts, so the local layer's band shows in text 0's attentions
NEO_ATTENTION_TYPES = [[["global", "local"], 1]]  # GPTNeoConfig: expands to attention_layers ["global", "local"]
NEO_D_FF = 4 * D_MODEL  # intermediate_size null

# GPT-2's pre-tokenizer, ASCII version.
SPLIT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable character map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_TO_CHAR = bytes_to_unicode()


def words(text):
    return ["".join(BYTE_TO_CHAR[b] for b in piece.encode("utf-8")) for piece in SPLIT.findall(text)]


def learn_merges(text, count):
    """Plain BPE training (Sennrich et al. 2016): merge the most frequent pair, first-seen on a tie."""
    seqs = [list(w) for w in words(text)]
    merges = []
    for _ in range(count):
        counts = {}
        for seq in seqs:
            for pair in zip(seq, seq[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts.items(), key=lambda kv: kv[1])[0]
        merges.append(best)
        for seq in seqs:
            i = 0
            while i < len(seq) - 1:
                if (seq[i], seq[i + 1]) == best:
                    seq[i:i + 2] = [seq[i] + seq[i + 1]]
                i += 1
    return merges


def bpe_encode(text, vocab, merges):
    """GPT-2's encoder.py: merge the lowest-ranked adjacent pair until none is in the merge list."""
    ranks = {pair: i for i, pair in enumerate(merges)}
    ids = []
    for word in words(text):
        seq = list(word)
        while len(seq) > 1:
            pairs = [(ranks.get(p, math.inf), i) for i, p in enumerate(zip(seq, seq[1:]))]
            rank, i = min(pairs)
            if rank == math.inf:
                break
            seq[i:i + 2] = [seq[i] + seq[i + 1]]
        ids.extend(vocab[s] for s in seq)
    return ids


def write_tokenizer(folder, vocab, merges):
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")


def tensor_bytes(t, dtype):
    t = t.detach().contiguous()
    if dtype == "F32":
        return t.float().numpy().tobytes()
    if dtype == "F16":
        return t.half().numpy().tobytes()
    if dtype == "BF16":
        return t.bfloat16().view(torch.int16).numpy().tobytes()
    if dtype == "I64":
        return t.long().numpy().tobytes()
    if dtype == "U8":
        return t.to(torch.uint8).numpy().tobytes()
    raise ValueError(dtype)


def write_safetensors(path, tensors):
    """tensors: list of (name, torch tensor, dtype string). Header padded with spaces to 8 bytes, as the
    safetensors library does."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t, dtype in sorted(tensors, key=lambda x: x[0]):
        data = tensor_bytes(t, dtype)
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def rounded(weights, dtype):
    if dtype == "F32":
        return {k: v.clone() for k, v in weights.items()}
    target = torch.float16 if dtype == "F16" else torch.bfloat16
    return {k: v.to(target).float() for k, v in weights.items()}


def layer_norm(x, w, b, eps):
    return F.layer_norm(x, (x.shape[-1],), w.double(), b.double(), eps)


def attention(q, k, v, n_heads, causal, scale=True, window=None):
    """q, k, v: [T, D] -> context [T, D], weights [H, T, T]. scale: divide scores by sqrt(head_dim) (GPT-Neo
    does not); window: query i sees only keys i - window < j <= i (GPT-Neo's local layers)."""
    t, d = q.shape
    dh = d // n_heads
    q = q.view(t, n_heads, dh).transpose(0, 1)  # [H, T, Dh]
    k = k.view(t, n_heads, dh).transpose(0, 1)
    v = v.view(t, n_heads, dh).transpose(0, 1)
    scores = q @ k.transpose(1, 2)  # [H, T, T]
    if scale:
        scores = scores / math.sqrt(dh)
    if causal:
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        if window is not None:
            mask = mask & ~torch.ones(t, t, dtype=torch.bool).tril(-window)
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    context = (weights @ v).transpose(0, 1).reshape(t, d)
    return context, weights


def gpt2_forward(w, ids, eps):
    """transformers GPT2Model: wte + wpe, pre-LN blocks with Conv1D [in, out] weights, gelu_new, ln_f."""
    w = {k: v.double() for k, v in w.items()}
    t = len(ids)
    x = w["wte.weight"][ids] + w["wpe.weight"][:t]  # [T, D]
    attentions = []
    for i in range(N_LAYERS):
        p = f"h.{i}."
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # [T, 3D]
        q, k, v = qkv.split(D_MODEL, dim=1)
        context, weights = attention(q, k, v, N_HEADS, causal=True)
        attentions.append(weights)
        x = x + context @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = F.gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"], approximate="tanh")
        x = x + h @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps), attentions


def neo_attention_layers():
    """GPTNeoConfig.expand_attention_types_params: [[types, repeat], ...] -> one type per layer."""
    return [kind for types, repeat in NEO_ATTENTION_TYPES for _ in range(repeat) for kind in types]


def gpt_neo_forward(w, ids, eps):
    """transformers GPTNeoModel: wte + wpe, pre-LN blocks with nn.Linear [out, in] weights, q/k/v without bias,
    unscaled scores, local layers masked to the last window_size keys, gelu_new, ln_f."""
    w = {k: v.double() for k, v in w.items()}
    t = len(ids)
    x = w["wte.weight"][ids] + w["wpe.weight"][:t]  # [T, D]
    attentions = []
    for i, kind in enumerate(neo_attention_layers()):
        p = f"h.{i}."
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q = F.linear(h, w[p + "attn.attention.q_proj.weight"])
        k = F.linear(h, w[p + "attn.attention.k_proj.weight"])
        v = F.linear(h, w[p + "attn.attention.v_proj.weight"])
        context, weights = attention(q, k, v, N_HEADS, causal=True, scale=False,
                                     window=NEO_WINDOW if kind == "local" else None)
        attentions.append(weights)
        x = x + F.linear(context, w[p + "attn.attention.out_proj.weight"], w[p + "attn.attention.out_proj.bias"])
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = F.gelu(F.linear(h, w[p + "mlp.c_fc.weight"], w[p + "mlp.c_fc.bias"]), approximate="tanh")
        x = x + F.linear(h, w[p + "mlp.c_proj.weight"], w[p + "mlp.c_proj.bias"])
    return layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps), attentions


def roberta_forward(w, ids, eps):
    """transformers RobertaModel: word + position (from pad+1) + token-type embeddings, LayerNorm, post-LN blocks
    with nn.Linear [out, in] weights and exact GELU; output = last_hidden_state."""
    w = {k: v.double() for k, v in w.items()}
    t = len(ids)
    positions = torch.arange(t) + ROBERTA_PAD + 1
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions] + \
        w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    attentions = []
    for i in range(N_LAYERS):
        p = f"encoder.layer.{i}."

        def linear(name, h):
            return F.linear(h, w[p + name + ".weight"], w[p + name + ".bias"])

        q = linear("attention.self.query", x)
        k = linear("attention.self.key", x)
        v = linear("attention.self.value", x)
        context, weights = attention(q, k, v, N_HEADS, causal=False)
        attentions.append(weights)
        x = layer_norm(linear("attention.output.dense", context) + x, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        h = F.gelu(linear("intermediate.dense", x))
        x = layer_norm(linear("output.dense", h) + x, w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"], eps)
    return x, attentions


def random_weights(shapes, gen):
    """Linear weights N(0, 0.2); biases N(0, 0.1); LayerNorm weight 1 + N(0, 0.1), bias N(0, 0.1);
    embeddings N(0, 0.5)."""
    out = {}
    for name, shape in shapes:
        if "LayerNorm.weight" in name or re.search(r"ln_\w+\.weight$", name):
            out[name] = 1 + 0.1 * torch.randn(shape, generator=gen)
        elif name.endswith("bias"):
            out[name] = 0.1 * torch.randn(shape, generator=gen)
        elif "embeddings" in name or name.startswith("wte") or name.startswith("wpe"):
            out[name] = 0.5 * torch.randn(shape, generator=gen)
        else:
            out[name] = 0.2 * torch.randn(shape, generator=gen)
    return out


def gpt2_shapes(vocab_size):
    d, f = D_MODEL, D_FF
    shapes = [("wte.weight", (vocab_size, d)), ("wpe.weight", (GPT2_POSITIONS, d))]
    for i in range(N_LAYERS):
        p = f"h.{i}."
        shapes += [(p + "ln_1.weight", (d,)), (p + "ln_1.bias", (d,)),
                   (p + "attn.c_attn.weight", (d, 3 * d)), (p + "attn.c_attn.bias", (3 * d,)),
                   (p + "attn.c_proj.weight", (d, d)), (p + "attn.c_proj.bias", (d,)),
                   (p + "ln_2.weight", (d,)), (p + "ln_2.bias", (d,)),
                   (p + "mlp.c_fc.weight", (d, f)), (p + "mlp.c_fc.bias", (f,)),
                   (p + "mlp.c_proj.weight", (f, d)), (p + "mlp.c_proj.bias", (d,))]
    return shapes + [("ln_f.weight", (d,)), ("ln_f.bias", (d,))]


def roberta_shapes(vocab_size):
    d, f = D_MODEL, D_FF
    shapes = [("embeddings.word_embeddings.weight", (vocab_size, d)),
              ("embeddings.position_embeddings.weight", (ROBERTA_POSITIONS, d)),
              ("embeddings.token_type_embeddings.weight", (1, d)),
              ("embeddings.LayerNorm.weight", (d,)), ("embeddings.LayerNorm.bias", (d,))]
    for i in range(N_LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            shapes += [(p + name + ".weight", (d, d)), (p + name + ".bias", (d,))]
        shapes += [(p + "attention.output.LayerNorm.weight", (d,)), (p + "attention.output.LayerNorm.bias", (d,)),
                   (p + "intermediate.dense.weight", (f, d)), (p + "intermediate.dense.bias", (f,)),
                   (p + "output.dense.weight", (d, f)), (p + "output.dense.bias", (d,)),
                   (p + "output.LayerNorm.weight", (d,)), (p + "output.LayerNorm.bias", (d,))]
    return shapes + [("pooler.dense.weight", (d, d)), ("pooler.dense.bias", (d,))]


def gpt_neo_shapes(vocab_size):
    d, f = D_MODEL, NEO_D_FF
    shapes = [("wte.weight", (vocab_size, d)), ("wpe.weight", (NEO_POSITIONS, d))]
    for i in range(N_LAYERS):
        p = f"h.{i}."
        shapes += [(p + "ln_1.weight", (d,)), (p + "ln_1.bias", (d,)),
                   (p + "attn.attention.q_proj.weight", (d, d)), (p + "attn.attention.k_proj.weight", (d, d)),
                   (p + "attn.attention.v_proj.weight", (d, d)),
                   (p + "attn.attention.out_proj.weight", (d, d)), (p + "attn.attention.out_proj.bias", (d,)),
                   (p + "ln_2.weight", (d,)), (p + "ln_2.bias", (d,)),
                   (p + "mlp.c_fc.weight", (f, d)), (p + "mlp.c_fc.bias", (f,)),
                   (p + "mlp.c_proj.weight", (d, f)), (p + "mlp.c_proj.bias", (d,))]
    return shapes + [("ln_f.weight", (d,)), ("ln_f.bias", (d,))]


def check_gpt_neo_attentions(attentions):
    """Rows sum to 1; causal zeros everywhere; zeros at j <= i - window_size on local layers."""
    for kind, a in zip(neo_attention_layers(), attentions):
        t = a.shape[-1]
        assert torch.allclose(a.sum(dim=-1), torch.ones(a.shape[:-1], dtype=a.dtype), atol=1e-12)
        hidden = ~torch.ones(t, t, dtype=torch.bool).tril()
        if kind == "local":
            hidden |= torch.ones(t, t, dtype=torch.bool).tril(-NEO_WINDOW)
        assert bool((a[:, hidden] == 0).all()) and bool((a[:, ~hidden] > 0).all()), kind


def write_gpt_neo(out_dir, vocab, merges):
    """GPTNeoForCausalLM checkpoints (F32, BF16) with GPT-2's tokenizer, and hf_gpt_neo_reference.json."""
    gen = torch.Generator().manual_seed(SEED + 7)
    weights = random_weights(gpt_neo_shapes(len(vocab)), gen)
    eps = 4e-5
    ids = [bpe_encode(text, vocab, merges) for text in TEXTS]
    assert len(ids[0]) > NEO_WINDOW, "text 0 must be longer than window_size for the local band to show"
    # What GPTNeoSelfAttention registers as "bias": causal, and for local layers only the last window_size keys.
    causal = torch.ones(NEO_POSITIONS, NEO_POSITIONS, dtype=torch.bool).tril()
    masks = [causal ^ causal.tril(-NEO_WINDOW) if kind == "local" else causal for kind in neo_attention_layers()]
    reference = {"texts": TEXTS, "ids": ids}
    for dtype in ("F32", "BF16"):
        folder = os.path.join(out_dir, f"hf_gpt_neo_{dtype.lower()}")
        os.makedirs(folder, exist_ok=True)
        write_tokenizer(folder, vocab, merges)
        config = {"architectures": ["GPTNeoForCausalLM"], "model_type": "gpt_neo", "activation_function": "gelu_new",
                  "hidden_size": D_MODEL, "num_heads": N_HEADS, "num_layers": N_LAYERS,
                  "attention_types": NEO_ATTENTION_TYPES, "window_size": NEO_WINDOW, "intermediate_size": None,
                  "max_position_embeddings": NEO_POSITIONS, "vocab_size": len(vocab), "layer_norm_epsilon": eps,
                  "bos_token_id": len(vocab) - 1, "eos_token_id": len(vocab) - 1, "embed_dropout": 0.0,
                  "attention_dropout": 0.0, "resid_dropout": 0.0, "use_cache": True}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        tensors = [("transformer." + k, v, dtype) for k, v in weights.items()]
        tensors += [(f"transformer.h.{i}.attn.attention.bias", m.view(1, 1, NEO_POSITIONS, NEO_POSITIONS), "U8")
                    for i, m in enumerate(masks)]
        tensors += [("lm_head.weight", weights["wte.weight"], dtype)]
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        hidden_and_weights = [gpt_neo_forward(rounded(weights, dtype), seq, eps) for seq in ids]
        for _, attentions in hidden_and_weights:
            check_gpt_neo_attentions(attentions)
        reference[dtype.lower()] = {"hidden": [nested(h) for h, _ in hidden_and_weights],
                                    "attentions": [nested(a) for a in hidden_and_weights[0][1]]}
    with open(os.path.join(out_dir, "hf_gpt_neo_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


def floats(t):
    return [float(f"{x:.9g}") for x in t.flatten().tolist()]


def nested(t):
    if t.dim() == 1:
        return floats(t)
    return [nested(row) for row in t]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/attention/testdata"
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    merges = learn_merges(TRAINING_TEXT, NUM_MERGES)
    byte_tokens = list(BYTE_TO_CHAR.values())
    merged = [a + b for a, b in merges]

    # GPT-2: bytes, merges, <|endoftext|> last (as in GPT-2's own vocab.json).
    gpt2_vocab = {tok: i for i, tok in enumerate(byte_tokens + merged + ["<|endoftext|>"])}
    # RoBERTa: <s> <pad> </s> <unk> first, then GPT-2's vocabulary, <mask> last.
    roberta_tokens = ["<s>", "<pad>", "</s>", "<unk>"] + byte_tokens + merged + ["<mask>"]
    roberta_vocab = {tok: i for i, tok in enumerate(roberta_tokens)}

    for arch in ("gpt2", "roberta"):
        vocab = gpt2_vocab if arch == "gpt2" else roberta_vocab
        shapes = gpt2_shapes(len(vocab)) if arch == "gpt2" else roberta_shapes(len(vocab))
        weights = random_weights(shapes, gen)
        eps = 2e-5 if arch == "gpt2" else 3e-5
        ids = [bpe_encode(text, vocab, merges) for text in TEXTS]
        if arch == "roberta":
            ids = [[0] + seq + [2] for seq in ids]
        reference = {"texts": TEXTS, "ids": ids}
        for dtype in ("F32", "F16", "BF16"):
            folder = os.path.join(out_dir, f"hf_{arch}_{dtype.lower()}")
            os.makedirs(folder, exist_ok=True)
            write_tokenizer(folder, vocab, merges)
            w = rounded(weights, dtype)
            if arch == "gpt2":
                config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
                          "n_embd": D_MODEL, "n_head": N_HEADS, "n_layer": N_LAYERS, "n_inner": D_FF,
                          "n_positions": GPT2_POSITIONS, "n_ctx": GPT2_POSITIONS, "vocab_size": len(vocab),
                          "layer_norm_epsilon": eps, "bos_token_id": len(vocab) - 1, "eos_token_id": len(vocab) - 1,
                          "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1, "scale_attn_weights": True}
                prefix = "transformer." if dtype == "F16" else ""
                tensors = [(prefix + k, v, dtype) for k, v in weights.items()]
                if dtype == "F16":  # what a GPT2LMHeadModel checkpoint also holds
                    mask = torch.ones(GPT2_POSITIONS, GPT2_POSITIONS).tril().view(1, 1, GPT2_POSITIONS, GPT2_POSITIONS)
                    tensors += [(f"transformer.h.{i}.attn.bias", mask, "U8") for i in range(N_LAYERS)]
                    tensors += [("lm_head.weight", weights["wte.weight"], dtype)]
                hidden_and_weights = [gpt2_forward(w, seq, eps) for seq in ids]
            else:
                config = {"architectures": ["RobertaModel"], "model_type": "roberta", "hidden_act": "gelu",
                          "hidden_size": D_MODEL, "num_attention_heads": N_HEADS, "num_hidden_layers": N_LAYERS,
                          "intermediate_size": D_FF, "max_position_embeddings": ROBERTA_POSITIONS,
                          "vocab_size": len(vocab), "type_vocab_size": 1, "pad_token_id": ROBERTA_PAD,
                          "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": eps,
                          "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1,
                          "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02}
                prefix = "roberta." if dtype == "F16" else ""
                tensors = [(prefix + k, v, dtype) for k, v in weights.items()]
                if dtype == "F16":  # what a RobertaForMaskedLM checkpoint also holds
                    tensors += [("roberta.embeddings.position_ids", torch.arange(ROBERTA_POSITIONS).view(1, -1), "I64"),
                                ("lm_head.dense.weight", weights["pooler.dense.weight"], dtype)]
                hidden_and_weights = [roberta_forward(w, seq, eps) for seq in ids]
                # sentence-transformers: Transformer -> mean Pooling -> Normalize.
                with open(os.path.join(folder, "modules.json"), "w") as f:
                    json.dump([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                               {"idx": 1, "name": "1", "path": "1_Pooling",
                                "type": "sentence_transformers.models.Pooling"},
                               {"idx": 2, "name": "2", "path": "2_Normalize",
                                "type": "sentence_transformers.models.Normalize"}], f, indent=2)
                os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
                with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as f:
                    json.dump({"word_embedding_dimension": D_MODEL, "pooling_mode_cls_token": False,
                               "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                               "pooling_mode_mean_sqrt_len_tokens": False}, f, indent=2)
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(config, f, indent=2)
            write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
            entry = {"hidden": [nested(h) for h, _ in hidden_and_weights],
                     "attentions": [nested(a) for a in hidden_and_weights[0][1]]}
            if arch == "roberta":
                entry["pooled"] = [floats(F.normalize(h.mean(dim=0), dim=0)) for h, _ in hidden_and_weights]
            reference[dtype.lower()] = entry
        with open(os.path.join(out_dir, f"hf_{arch}_reference.json"), "w") as f:
            json.dump(reference, f, separators=(",", ":"))
    # GPT-Neo: GPT-2's tokenizer; its own generator, after the others, so their files stay as they were.
    write_gpt_neo(out_dir, gpt2_vocab, merges)
    print(f"wrote checkpoints and references under {out_dir}")


if __name__ == "__main__":
    main()
