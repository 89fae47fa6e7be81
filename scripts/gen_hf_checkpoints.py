#!/usr/bin/python3
"""Builds tiny random GPT-2, RoBERTa and GPT-Neo checkpoints in Hugging Face's layout, and their reference hidden
states.

Run with Debian's python3 (it has torch; the pyenv python3 on PATH does not):

    /usr/bin/python3 scripts/gen_hf_checkpoints.py tests/attention/testdata
    /usr/bin/python3 scripts/gen_hf_checkpoints.py --check [--tolerance 1e-5]   # CI: regenerate and compare

Writes, under the output folder:
  hf_gpt2_{f32,f16,bf16}/     config.json (Hugging Face GPT2Config keys), vocab.json, merges.txt, model.safetensors
  hf_roberta_{f32,f16,bf16}/  config.json (RobertaConfig keys), vocab.json, merges.txt, model.safetensors,
                              sentence-transformers modules.json + 1_Pooling/config.json (mean pooling + Normalize)
  hf_gpt_neo_{f32,bf16}/      config.json (GPTNeoConfig keys: attention_types [[["global", "local"], 1]], window_size,
                              intermediate_size null), vocab.json, merges.txt (GPT-2's), model.safetensors
  hf_bert_{f32,f16,bf16,sharded}/  config.json (BertConfig keys), a WordPiece vocabulary of its own (BERT_VOCAB)
                              as tokenizer.json and/or vocab.txt + tokenizer_config.json, and the safetensors:
        f32      BertModel names, tokenizer.json + vocab.txt, sentence-transformers mean pooling + Normalize
                 (all-MiniLM-L6-v2's modules)
        f16      "bert." names plus cls.* heads and a position_ids buffer (BertForMaskedLM), tokenizer.json only,
                 cls pooling + Normalize (BGE's modules)
        bf16     vocab.txt + tokenizer_config.json only (no tokenizer.json), no sentence-transformers files
        sharded  F32 in model-0000{1,2}-of-00002.safetensors + model.safetensors.index.json, last-token pooling
  hf_distilbert_{f32,sinusoidal,bf16}/  config.json (DistilBertConfig keys), BERT's vocabulary and texts:
        f32         DistilBertModel names, tokenizer.json + vocab.txt, mean pooling + Normalize
        sinusoidal  "distilbert." names plus vocab_* heads (DistilBertForMaskedLM), sinusoidal_pos_embds true and
                    no position tensor (the model makes the table), vocab.txt only, cls pooling
        bf16        tokenizer.json only, no sentence-transformers files
  hf_bert_cross/, hf_distilbert_nli/, hf_cross_reference.json  sequence classification heads (write_cross_encoders)
  hf_roberta_cross/, hf_roberta_cross_reference.json  RobertaForSequenceClassification with a tokenizer.json
  hf_mpnet_{f32,bf16}/, hf_mpnet_reference.json  MPNet (MPNetConfig keys, relative position buckets): BERT's
                              vocabulary under <s> <pad> </s> <unk> ... <mask>, tokenizer.json with RobertaProcessing;
        f32   MPNetModel names, mean pooling + Normalize (all-mpnet-base-v2's modules)
        bf16  "mpnet." names plus lm_head.* (MPNetForMaskedLM), no sentence-transformers files
  hf_mpnet_cross/, hf_mpnet_cross_reference.json  MPNetForSequenceClassification (RoBERTa's head) on MPNet
  hf_gpt2_reference.json, hf_roberta_reference.json, hf_gpt_neo_reference.json, hf_bert_reference.json,
  hf_distilbert_reference.json:
      {"texts": [...], "ids": [[...]], "f32": {"hidden": [[[...]]], "attentions": [L][H][T][T] of text 0,
       "pooled": [[...]] (RoBERTa: mean pooling + L2 normalize)}, "f16": ..., "bf16": ...}
      (GPT-Neo has only "f32" and "bf16". BERT has "f32", "f16", "bf16", "sharded", each with "pooled": the
      vectors its sentence-transformers modules give, as "pooling" and "normalize" say; bf16: mean, not normalized.)

BERT differs from RoBERTa in positions (0, 1, ... instead of from pad_token_id + 1) and in its inputs: [CLS] text
[SEP], whose ids the script looks up by name (the vocabulary puts them at 4 and 5, not BERT's 101 and 102). Ids
come from the reference WordPiece encoder below (BERT's BasicTokenizer and WordpieceTokenizer written out: lowercase,
accents dropped after NFD, CJK ideographs and punctuation split off, greedy longest match with "##").

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


def roberta_forward(w, ids, eps, first_position=ROBERTA_PAD + 1, type_ids=None):
    """transformers RobertaModel: word + position (from pad+1) + token-type embeddings, LayerNorm, post-LN blocks
    with nn.Linear [out, in] weights and exact GELU; output = last_hidden_state. BertModel is the same network with
    positions from 0 (first_position=0). type_ids: [T] token types (default all 0)."""
    w = {k: v.double() for k, v in w.items()}
    t = len(ids)
    positions = torch.arange(t) + first_position
    types = torch.tensor(type_ids) if type_ids is not None else torch.zeros(t, dtype=torch.long)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions] + \
        w["embeddings.token_type_embeddings.weight"][types]
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


# BERT (Devlin et al. 2018) as sentence-transformers models built on it ship it (all-MiniLM-L6-v2, BGE, GTE).
BERT_TEXTS = TEXTS + ["Ünïcode CAFÉ, naïve résumé — 東京 tokvec!"]
BERT_POSITIONS = 40
BERT_TYPES = 2
# Not [PAD] [UNK] [CLS] [SEP] [MASK] = 0..4: tokvec must look [CLS] and [SEP] up by name.
BERT_SPECIALS = ["[PAD]", "[unused0]", "[unused1]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_WORDS = ["the", "quick", "brown", "fox", "over", "lazy", "dog", "your", "cat", "is", "love", "jump",
              "tok", "head", "layer", "un", "cafe", "naive", "re", "東"]
BERT_SUFFIXES = ["ly", "vec", "ic", "ode", "sum"]  # single letters are continuations already
BERT_PUNCTUATION = set(chr(c) for c in list(range(33, 48)) + list(range(58, 65)) + list(range(91, 97)) +
                       list(range(123, 127)))


def bert_vocab():
    """Specials, then every printable ASCII character but A-Z (alone and as "##" continuation), some words and
    word endings (so that "lovely" is love ##ly and "résumé" re ##sum ##e), no "京" (so 東京 gives [UNK])."""
    chars = [chr(c) for c in range(33, 127) if not "A" <= chr(c) <= "Z"]
    tokens = BERT_SPECIALS + chars + ["##" + c for c in chars if c.isalnum()] + BERT_WORDS + \
        ["##" + s for s in BERT_SUFFIXES]
    assert len(tokens) == len(set(tokens))
    return tokens


def bert_basic_tokens(text):
    """BERT's BasicTokenizer (tokenization.py of Devlin et al., do_lower_case): drop control characters and NUL /
    U+FFFD, white space to " ", spaces around CJK ideographs, lowercase, NFD and drop combining marks (Mn), split
    on white space and around punctuation (Unicode P* and ASCII symbols)."""
    import unicodedata
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
            continue
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF:
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    words = []
    for word in "".join(out).split():
        word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        current = ""
        for ch in word:
            if ch in BERT_PUNCTUATION or unicodedata.category(ch).startswith("P"):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


def wordpiece_encode(text, vocab, unk="[UNK]"):
    """WordPiece as BERT's WordpieceTokenizer runs it: greedy longest match from the start of each word, "##" on
    pieces after the first; a word that cannot be cut (or of more than 100 characters) is one [UNK] (`unk`)."""
    ids = []
    for word in bert_basic_tokens(text):
        pieces, start = [], 0
        while start < len(word) and len(word) <= 100:
            end = len(word)
            while end > start:
                piece = ("##" if start > 0 else "") + word[start:end]
                if piece in vocab:
                    break
                end -= 1
            if end == start:
                pieces = None
                break
            pieces.append(vocab[("##" if start > 0 else "") + word[start:end]])
            start = end
        ids.extend(pieces if pieces else [vocab[unk]])
    return ids


def bert_shapes(vocab_size):
    """BertModel: RoBERTa's tensors (with BERT's position and type table sizes) and the pooler."""
    shapes = roberta_shapes(vocab_size)
    resized = {"embeddings.position_embeddings.weight": (BERT_POSITIONS, D_MODEL),
               "embeddings.token_type_embeddings.weight": (BERT_TYPES, D_MODEL)}
    return [(name, resized.get(name, shape)) for name, shape in shapes]


def write_bert_tokenizer_files(folder, tokens, tokenizer_json, vocab_txt):
    vocab = {tok: i for i, tok in enumerate(tokens)}
    if vocab_txt:
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(tok + "\n" for tok in tokens))
        with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
            json.dump({"do_lower_case": True, "tokenize_chinese_chars": True, "strip_accents": None,
                       "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                       "mask_token": "[MASK]", "model_max_length": BERT_POSITIONS,
                       "tokenizer_class": "BertTokenizer"}, f, indent=2)
    if tokenizer_json:
        def special(name):
            return {"SpecialToken": {"id": name, "type_id": 0}}
        added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True} for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]
        data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
                "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                               "strip_accents": None, "lowercase": True},
                "pre_tokenizer": {"type": "BertPreTokenizer"},
                "post_processor": {"type": "TemplateProcessing",
                                   "single": [special("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}},
                                              special("[SEP]")],
                                   "pair": [special("[CLS]"), {"Sequence": {"id": "A", "type_id": 0}},
                                            special("[SEP]"), {"Sequence": {"id": "B", "type_id": 1}},
                                            {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                                   "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]}
                                                      for t in ("[CLS]", "[SEP]")}},
                "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
                "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                          "max_input_chars_per_word": 100, "vocab": vocab}}
        with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))


def write_sentence_modules(folder, pooling, normalize):
    """sentence-transformers: modules.json (Transformer, Pooling[, Normalize]) and 1_Pooling/config.json."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    with open(os.path.join(folder, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": D_MODEL, "pooling_mode_cls_token": pooling == "cls",
                   "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
                   "pooling_mode_lasttoken": pooling == "last"}, f, indent=2)


def pool(h, pooling, normalize):
    """sentence-transformers' Pooling (no padding: every token counts) and Normalize."""
    v = {"mean": lambda: h.mean(dim=0), "cls": lambda: h[0], "last": lambda: h[-1]}[pooling]()
    return F.normalize(v, dim=0) if normalize else v


# name: (dtype, tensor prefix, extra tensors, tokenizer.json, vocab.txt, sentence-transformers pooling, Normalize,
#        shards)
BERT_COPIES = {
    "f32": ("F32", "", False, True, True, "mean", True, 1),        # all-MiniLM-L6-v2's layout
    "f16": ("F16", "bert.", True, True, False, "cls", True, 1),    # BGE's pooling; a BertForMaskedLM checkpoint
    "bf16": ("BF16", "", False, False, True, None, False, 1),      # only vocab.txt; no sentence-transformers files
    "sharded": ("F32", "", False, True, False, "last", False, 2),  # model.safetensors.index.json + 2 shards
}


def write_bert(out_dir):
    """hf_bert_{f32,f16,bf16,sharded}/ and hf_bert_reference.json (see BERT_COPIES)."""
    gen = torch.Generator().manual_seed(SEED + 11)
    tokens = bert_vocab()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = random_weights(bert_shapes(len(tokens)), gen)
    eps = 1e-12
    ids = [[vocab["[CLS]"]] + wordpiece_encode(text, vocab) + [vocab["[SEP]"]] for text in BERT_TEXTS]
    assert vocab["[UNK]"] in ids[3], "text 3 must meet [UNK]"
    reference = {"texts": BERT_TEXTS, "ids": ids}
    for copy, (dtype, prefix, extra, tokenizer_json, vocab_txt, pooling, normalize, shards) in BERT_COPIES.items():
        folder = os.path.join(out_dir, f"hf_bert_{copy}")
        os.makedirs(folder, exist_ok=True)
        write_bert_tokenizer_files(folder, tokens, tokenizer_json, vocab_txt)
        if pooling:
            write_sentence_modules(folder, pooling, normalize)
        config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
                  "hidden_size": D_MODEL, "num_attention_heads": N_HEADS, "num_hidden_layers": N_LAYERS,
                  "intermediate_size": D_FF, "max_position_embeddings": BERT_POSITIONS, "vocab_size": len(tokens),
                  "type_vocab_size": BERT_TYPES, "pad_token_id": 0, "layer_norm_eps": eps,
                  "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1,
                  "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02, "gradient_checkpointing": False,
                  "use_cache": True, "classifier_dropout": None}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        tensors = [(prefix + k, v, dtype) for k, v in weights.items()]
        if extra:  # what a BertForMaskedLM checkpoint also holds
            tensors += [(prefix + "embeddings.position_ids", torch.arange(BERT_POSITIONS).view(1, -1), "I64"),
                        ("cls.predictions.bias", torch.zeros(len(tokens)), dtype),
                        ("cls.predictions.transform.dense.weight", weights["pooler.dense.weight"], dtype)]
        if shards == 1:
            write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        else:  # embeddings and layer 0 in the first shard, the rest in the second, as save_pretrained cuts
            parts = [[t for t in tensors if not t[0].startswith("encoder.layer.1.") and "pooler" not in t[0]],
                     [t for t in tensors if t[0].startswith("encoder.layer.1.") or "pooler" in t[0]]]
            names = [f"model-{i + 1:05d}-of-{len(parts):05d}.safetensors" for i in range(len(parts))]
            for name, part in zip(names, parts):
                write_safetensors(os.path.join(folder, name), part)
            index = {"metadata": {"total_size": sum(len(tensor_bytes(t, d)) for _, t, d in tensors)},
                     "weight_map": {t[0]: name for name, part in zip(names, parts) for t in sorted(part)}}
            with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
                json.dump(index, f, indent=2, sort_keys=True)
        hidden_and_weights = [roberta_forward(rounded(weights, dtype), seq, eps, first_position=0) for seq in ids]
        entry = {"hidden": [nested(h) for h, _ in hidden_and_weights],
                 "attentions": [nested(a) for a in hidden_and_weights[0][1]],
                 "pooling": pooling or "mean", "normalize": normalize,
                 "pooled": [floats(pool(h, pooling or "mean", normalize)) for h, _ in hidden_and_weights]}
        reference[copy] = entry
    with open(os.path.join(out_dir, "hf_bert_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))
    return weights, ids, eps


# sentence-transformers Dense modules after the pooling (LaBSE's shape: cls pooling, Dense with Tanh, Normalize),
# chained: (folder, in, out, bias, activation class, its torch function, dtype of the weights).
DENSE_LAYERS = [("2_Dense", D_MODEL, 24, True, "torch.nn.modules.activation.Tanh", torch.tanh, "F32"),
                ("3_Dense", 24, 16, False, "torch.nn.modules.linear.Identity", lambda v: v, "F16")]


def write_bert_dense(out_dir, bert_weights, ids, eps):
    """hf_bert_dense/ (hf_bert_f32's network with modules Transformer, Pooling (cls), the DENSE_LAYERS,
    Normalize) and hf_dense_reference.json: the pooled vectors as sentence-transformers computes them,
    act(linear(v)) per Dense module, then F.normalize."""
    gen = torch.Generator().manual_seed(SEED + 29)
    folder = os.path.join(out_dir, "hf_bert_dense")
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(out_dir, "hf_bert_f32")
    for name in ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt"):
        with open(os.path.join(source, name), "rb") as f_in, open(os.path.join(folder, name), "wb") as f_out:
            f_out.write(f_in.read())
    write_sentence_modules(folder, "cls", normalize=False)
    with open(os.path.join(folder, "modules.json")) as f:
        modules = json.load(f)
    for path, _, _, _, _, _, _ in DENSE_LAYERS:
        modules.append({"idx": len(modules), "name": str(len(modules)), "path": path,
                        "type": "sentence_transformers.models.Dense"})
    modules.append({"idx": len(modules), "name": str(len(modules)), "path": f"{len(modules)}_Normalize",
                    "type": "sentence_transformers.models.Normalize"})
    with open(os.path.join(folder, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
    layers = []
    for path, n_in, n_out, bias, activation, fn, dtype in DENSE_LAYERS:
        os.makedirs(os.path.join(folder, path), exist_ok=True)
        with open(os.path.join(folder, path, "config.json"), "w") as f:
            json.dump({"in_features": n_in, "out_features": n_out, "bias": bias,
                       "activation_function": activation}, f, indent=2)
        tensors = {"linear.weight": torch.randn(n_out, n_in, generator=gen) * 0.3}
        if bias:
            tensors["linear.bias"] = torch.randn(n_out, generator=gen) * 0.1
        write_safetensors(os.path.join(folder, path, "model.safetensors"),
                          [(k, v, dtype) for k, v in tensors.items()])
        w = rounded(tensors, dtype)
        layers.append((w["linear.weight"].double(), w["linear.bias"].double() if bias else None, fn))
    pooled = []
    for seq in ids:
        h, _ = roberta_forward(rounded(bert_weights, "F32"), seq, eps, first_position=0)
        v = h[0]
        for weight, bias, fn in layers:
            v = fn(F.linear(v, weight, bias))
        pooled.append(floats(F.normalize(v, dim=0)))
    with open(os.path.join(out_dir, "hf_dense_reference.json"), "w") as f:
        json.dump({"texts": BERT_TEXTS, "ids": ids, "pooled": pooled}, f, separators=(",", ":"))


DISTILBERT_COPIES = {
    # copy: (dtype, prefix, sinusoidal_pos_embds with no position tensor, tokenizer.json, vocab.txt, pooling,
    #        normalize)
    "f32": ("F32", "", False, True, True, "mean", True),           # msmarco-distilbert's modules
    "sinusoidal": ("F32", "distilbert.", True, False, True, "cls", False),  # a DistilBertForMaskedLM checkpoint
    "bf16": ("BF16", "", False, True, False, None, False),
}


def distilbert_shapes(vocab_size):
    """DistilBertModel: word and position embeddings (no token types), LayerNorm, transformer.layer.{i}."""
    d, f = D_MODEL, D_FF
    shapes = [("embeddings.word_embeddings.weight", (vocab_size, d)),
              ("embeddings.position_embeddings.weight", (BERT_POSITIONS, d)),
              ("embeddings.LayerNorm.weight", (d,)), ("embeddings.LayerNorm.bias", (d,))]
    for i in range(N_LAYERS):
        p = f"transformer.layer.{i}."
        for name in ("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin"):
            shapes += [(p + name + ".weight", (d, d)), (p + name + ".bias", (d,))]
        shapes += [(p + "sa_layer_norm.weight", (d,)), (p + "sa_layer_norm.bias", (d,)),
                   (p + "ffn.lin1.weight", (f, d)), (p + "ffn.lin1.bias", (f,)),
                   (p + "ffn.lin2.weight", (d, f)), (p + "ffn.lin2.bias", (d,)),
                   (p + "output_layer_norm.weight", (d,)), (p + "output_layer_norm.bias", (d,))]
    return shapes


def sinusoidal_table(n_pos, dim):
    """transformers' create_sinusoidal_embeddings: pos / 10000^(2 (j // 2) / dim), sin at even j, cos at odd j,
    computed in float64 and stored as float32."""
    import numpy as np
    angles = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    table = torch.zeros(n_pos, dim)
    table[:, 0::2] = torch.FloatTensor(np.sin(angles[:, 0::2]))
    table[:, 1::2] = torch.FloatTensor(np.cos(angles[:, 1::2]))
    return table


def distilbert_forward(w, ids):
    """transformers DistilBertModel, dropout off: Embeddings (word + position, LayerNorm eps 1e-12, no token
    types); each TransformerBlock: MultiHeadSelfAttention (q scaled by 1/sqrt(dim_per_head) before q k^T, softmax,
    out_lin), sa_layer_norm(attention + x), FFN lin2(gelu(lin1)), output_layer_norm(ffn + sa_output)."""
    w = {k: v.double() for k, v in w.items()}
    eps = 1e-12
    t = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][torch.arange(t)]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    attentions = []
    dh = D_MODEL // N_HEADS
    for i in range(N_LAYERS):
        p = f"transformer.layer.{i}."

        def linear(name, h):
            return F.linear(h, w[p + name + ".weight"], w[p + name + ".bias"])

        def heads(h):
            return h.view(t, N_HEADS, dh).transpose(0, 1)

        q = heads(linear("attention.q_lin", x)) / math.sqrt(dh)
        scores = q @ heads(linear("attention.k_lin", x)).transpose(1, 2)
        weights = torch.softmax(scores, dim=-1)
        attentions.append(weights)
        context = (weights @ heads(linear("attention.v_lin", x))).transpose(0, 1).reshape(t, D_MODEL)
        sa = layer_norm(linear("attention.out_lin", context) + x, w[p + "sa_layer_norm.weight"],
                        w[p + "sa_layer_norm.bias"], eps)
        ffn = linear("ffn.lin2", F.gelu(linear("ffn.lin1", sa)))
        x = layer_norm(ffn + sa, w[p + "output_layer_norm.weight"], w[p + "output_layer_norm.bias"], eps)
    return x, attentions


def write_distilbert(out_dir):
    """hf_distilbert_{f32,sinusoidal,bf16}/ and hf_distilbert_reference.json (see DISTILBERT_COPIES): BERT's
    WordPiece vocabulary and texts."""
    gen = torch.Generator().manual_seed(SEED + 13)
    tokens = bert_vocab()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = random_weights(distilbert_shapes(len(tokens)), gen)
    ids = [[vocab["[CLS]"]] + wordpiece_encode(text, vocab) + [vocab["[SEP]"]] for text in BERT_TEXTS]
    reference = {"texts": BERT_TEXTS, "ids": ids}
    for copy, (dtype, prefix, sinusoidal, tokenizer_json, vocab_txt, pooling, normalize) in DISTILBERT_COPIES.items():
        folder = os.path.join(out_dir, f"hf_distilbert_{copy}")
        os.makedirs(folder, exist_ok=True)
        write_bert_tokenizer_files(folder, tokens, tokenizer_json, vocab_txt)
        if pooling:
            write_sentence_modules(folder, pooling, normalize)
        config = {"architectures": ["DistilBertForMaskedLM" if prefix else "DistilBertModel"],
                  "model_type": "distilbert", "activation": "gelu", "dim": D_MODEL, "n_heads": N_HEADS,
                  "n_layers": N_LAYERS, "hidden_dim": D_FF, "max_position_embeddings": BERT_POSITIONS,
                  "vocab_size": len(tokens), "pad_token_id": 0, "sinusoidal_pos_embds": sinusoidal,
                  "dropout": 0.1, "attention_dropout": 0.1, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
                  "initializer_range": 0.02, "tie_weights_": True}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        w = dict(weights)
        if sinusoidal:  # the table the model makes itself; the checkpoint leaves it out
            w["embeddings.position_embeddings.weight"] = sinusoidal_table(BERT_POSITIONS, D_MODEL)
        tensors = [(prefix + k, v, dtype) for k, v in w.items()
                   if not (sinusoidal and k == "embeddings.position_embeddings.weight")]
        if prefix:  # what a DistilBertForMaskedLM checkpoint also holds
            tensors += [("vocab_transform.weight", weights["transformer.layer.0.attention.q_lin.weight"], dtype),
                        ("vocab_projector.bias", torch.zeros(len(tokens)), dtype)]
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        hidden_and_weights = [distilbert_forward(rounded(w, dtype), seq) for seq in ids]
        entry = {"hidden": [nested(h) for h, _ in hidden_and_weights],
                 "attentions": [nested(a) for a in hidden_and_weights[0][1]],
                 "pooling": pooling or "mean", "normalize": normalize,
                 "pooled": [floats(pool(h, pooling or "mean", normalize)) for h, _ in hidden_and_weights]}
        reference[copy] = entry
    with open(os.path.join(out_dir, "hf_distilbert_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


# MPNet (Song et al. 2020) as all-mpnet-base-v2 ships it: BERT's WordPiece under <s> <pad> </s> <unk> ... <mask>, a
# RobertaProcessing template, RoBERTa's positions (from pad_token_id + 1) and T5-style relative position buckets.
MPNET_PAD = 1
MPNET_POSITIONS = 80  # max_position_embeddings: 80 - pad - 1 = 78 tokens
MPNET_BUCKETS, MPNET_MAX_DISTANCE = 32, 128
# Text 4 is 60+ tokens: its query-key distances reach the logarithmic buckets (8 and more apart).
MPNET_TEXTS = BERT_TEXTS + ["The quick brown fox jumps over the lazy dog; your cat is a lovely cat. " * 3]
MPNET_COPIES = {
    # copy: (dtype, prefix, sentence-transformers pooling, Normalize)
    "f32": ("F32", "", "mean", True),     # all-mpnet-base-v2's modules
    "bf16": ("BF16", "mpnet.", None, False),  # an MPNetForMaskedLM checkpoint (mpnet. names, lm_head.*)
}


def mpnet_tokens():
    return ["<s>", "<pad>", "</s>", "<unk>"] + bert_vocab()[len(BERT_SPECIALS):] + ["<mask>"]


def mpnet_shapes(vocab_size):
    """MPNetModel: word and position embeddings (no token types), LayerNorm, encoder.layer.{i} with
    attention.attn.{q,k,v,o}, and encoder.relative_attention_bias [buckets, heads]."""
    d, f = D_MODEL, D_FF
    shapes = [("embeddings.word_embeddings.weight", (vocab_size, d)),
              ("embeddings.position_embeddings.weight", (MPNET_POSITIONS, d)),
              ("embeddings.LayerNorm.weight", (d,)), ("embeddings.LayerNorm.bias", (d,)),
              ("encoder.relative_attention_bias.weight", (MPNET_BUCKETS, N_HEADS))]
    for i in range(N_LAYERS):
        p = f"encoder.layer.{i}."
        for name in ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o"):
            shapes += [(p + name + ".weight", (d, d)), (p + name + ".bias", (d,))]
        shapes += [(p + "attention.LayerNorm.weight", (d,)), (p + "attention.LayerNorm.bias", (d,)),
                   (p + "intermediate.dense.weight", (f, d)), (p + "intermediate.dense.bias", (f,)),
                   (p + "output.dense.weight", (d, f)), (p + "output.dense.bias", (d,)),
                   (p + "output.LayerNorm.weight", (d,)), (p + "output.LayerNorm.bias", (d,))]
    return shapes + [("pooler.dense.weight", (d, d)), ("pooler.dense.bias", (d,))]


def mpnet_bucket(relative):
    """MPNetEncoder.relative_position_bucket (num_buckets 32, max_distance 128) for relative = key position -
    query position: half the buckets for keys before the query, half (offset 16) for keys after it; within a
    half, distances 0..7 exactly, then log-spaced up to 128 (computed in float32, truncated, as torch does)."""
    n = -relative
    half = MPNET_BUCKETS // 2
    ret = (n < 0).to(torch.long) * half
    n = n.abs()
    exact = half // 2
    large = exact + (torch.log(n.float() / exact) / math.log(MPNET_MAX_DISTANCE / exact) *
                     (half - exact)).to(torch.long)
    large = torch.clamp(large, max=half - 1)
    return ret + torch.where(n < exact, n, large)


def mpnet_forward(w, ids, eps):
    """transformers MPNetModel, dropout off: word + position (from pad + 1) embeddings, LayerNorm; a relative
    position bias [H, T, T] from encoder.relative_attention_bias, added to every layer's scaled scores; post-LN
    layers as BERT's with attention.attn.{q,k,v,o} and attention.LayerNorm; exact GELU."""
    w = {k: v.double() for k, v in w.items()}
    t = len(ids)
    dh = D_MODEL // N_HEADS
    x = w["embeddings.word_embeddings.weight"][ids] + \
        w["embeddings.position_embeddings.weight"][torch.arange(t) + MPNET_PAD + 1]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    positions = torch.arange(t)
    buckets = mpnet_bucket(positions[None, :] - positions[:, None])  # [T, T]: query i, key j
    bias = w["encoder.relative_attention_bias.weight"][buckets].permute(2, 0, 1)  # [H, T, T]
    attentions = []
    for i in range(N_LAYERS):
        p = f"encoder.layer.{i}."

        def linear(name, h):
            return F.linear(h, w[p + name + ".weight"], w[p + name + ".bias"])

        def heads(h):
            return h.view(t, N_HEADS, dh).transpose(0, 1)

        scores = heads(linear("attention.attn.q", x)) @ heads(linear("attention.attn.k", x)).transpose(1, 2)
        weights = torch.softmax(scores / math.sqrt(dh) + bias, dim=-1)
        attentions.append(weights)
        context = (weights @ heads(linear("attention.attn.v", x))).transpose(0, 1).reshape(t, D_MODEL)
        x = layer_norm(linear("attention.attn.o", context) + x, w[p + "attention.LayerNorm.weight"],
                       w[p + "attention.LayerNorm.bias"], eps)
        h = F.gelu(linear("intermediate.dense", x))
        x = layer_norm(linear("output.dense", h) + x, w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"], eps)
    return x, attentions


def write_mpnet_tokenizer(folder, tokens):
    """tokenizer.json as all-mpnet-base-v2's: BERT's normalizer and pre-tokenizer, WordPiece with <unk>,
    RobertaProcessing (<s> A </s>, pairs <s> A </s></s> B </s>)."""
    vocab = {tok: i for i, tok in enumerate(tokens)}
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
              "normalized": False, "special": True} for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")]
    data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                           "strip_accents": None, "lowercase": True},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", vocab["</s>"]],
                               "cls": ["<s>", vocab["<s>"]], "trim_offsets": True, "add_prefix_space": False},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": "<unk>", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))


def write_mpnet(out_dir):
    """hf_mpnet_{f32,bf16}/ and hf_mpnet_reference.json (see MPNET_COPIES), plus "buckets": the bucket of every
    relative position -300..300 ("relative_positions")."""
    gen = torch.Generator().manual_seed(SEED + 23)
    tokens = mpnet_tokens()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = random_weights(mpnet_shapes(len(tokens)), gen)
    eps = 1e-5
    ids = [[vocab["<s>"]] + wordpiece_encode(text, vocab, unk="<unk>") + [vocab["</s>"]] for text in MPNET_TEXTS]
    assert len(ids[-1]) >= 40, len(ids[-1])
    relative = torch.arange(-300, 301)
    reference = {"texts": MPNET_TEXTS, "ids": ids, "relative_positions": relative.tolist(),
                 "buckets": mpnet_bucket(relative).tolist()}
    for copy, (dtype, prefix, pooling, normalize) in MPNET_COPIES.items():
        folder = os.path.join(out_dir, f"hf_mpnet_{copy}")
        os.makedirs(folder, exist_ok=True)
        write_mpnet_tokenizer(folder, tokens)
        if pooling:
            write_sentence_modules(folder, pooling, normalize)
        config = {"architectures": ["MPNetForMaskedLM" if prefix else "MPNetModel"], "model_type": "mpnet",
                  "hidden_act": "gelu", "hidden_size": D_MODEL, "num_attention_heads": N_HEADS,
                  "num_hidden_layers": N_LAYERS, "intermediate_size": D_FF,
                  "max_position_embeddings": MPNET_POSITIONS, "vocab_size": len(tokens),
                  "relative_attention_num_buckets": MPNET_BUCKETS, "pad_token_id": MPNET_PAD, "bos_token_id": 0,
                  "eos_token_id": 2, "layer_norm_eps": eps, "hidden_dropout_prob": 0.1,
                  "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        tensors = [(prefix + k, v, dtype) for k, v in weights.items()]
        if prefix:  # what an MPNetForMaskedLM checkpoint also holds
            tensors += [(prefix + "embeddings.position_ids", torch.arange(MPNET_POSITIONS).view(1, -1), "I64"),
                        ("lm_head.dense.weight", weights["pooler.dense.weight"], dtype),
                        ("lm_head.bias", torch.zeros(len(tokens)), dtype)]
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        hidden_and_weights = [mpnet_forward(rounded(weights, dtype), seq, eps) for seq in ids]
        reference[copy] = {"hidden": [nested(h) for h, _ in hidden_and_weights],
                           "attentions": [nested(a) for a in hidden_and_weights[0][1]],
                           "pooling": pooling or "mean", "normalize": normalize,
                           "pooled": [floats(pool(h, pooling or "mean", normalize)) for h, _ in hidden_and_weights]}
    with open(os.path.join(out_dir, "hf_mpnet_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


def write_mpnet_cross_encoder(out_dir):
    """hf_mpnet_cross/ (MPNetForSequenceClassification, one label: "mpnet." base names, MPNetClassificationHead's
    classifier.dense + tanh on <s>'s vector, then classifier.out_proj, as RoBERTa's) with MPNet's tokenizer.json
    (pairs <s> A </s></s> B </s>), and hf_mpnet_cross_reference.json {"pairs", "ids", "logits"}."""
    gen = torch.Generator().manual_seed(SEED + 29)
    tokens = mpnet_tokens()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = random_weights(mpnet_shapes(len(tokens)), gen)
    head = {"classifier.dense.weight": 0.2 * torch.randn((D_MODEL, D_MODEL), generator=gen),
            "classifier.dense.bias": 0.1 * torch.randn((D_MODEL,), generator=gen),
            "classifier.out_proj.weight": 0.2 * torch.randn((1, D_MODEL), generator=gen),
            "classifier.out_proj.bias": 0.1 * torch.randn((1,), generator=gen)}
    eps = 1e-5
    folder = os.path.join(out_dir, "hf_mpnet_cross")
    os.makedirs(folder, exist_ok=True)
    write_mpnet_tokenizer(folder, tokens)
    config = {"architectures": ["MPNetForSequenceClassification"], "model_type": "mpnet", "hidden_act": "gelu",
              "hidden_size": D_MODEL, "num_attention_heads": N_HEADS, "num_hidden_layers": N_LAYERS,
              "intermediate_size": D_FF, "max_position_embeddings": MPNET_POSITIONS, "vocab_size": len(tokens),
              "relative_attention_num_buckets": MPNET_BUCKETS, "pad_token_id": MPNET_PAD, "bos_token_id": 0,
              "eos_token_id": 2, "layer_norm_eps": eps, "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = [("mpnet." + k, v, "F32") for k, v in weights.items() if not k.startswith("pooler")]
    tensors += [(k, v, "F32") for k, v in head.items()]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    pairs = [(MPNET_TEXTS[0], text) for text in MPNET_TEXTS] + [(MPNET_TEXTS[1], MPNET_TEXTS[2])]
    ids, logits = [], []
    w = {k: v.double() for k, v in head.items()}
    for a, b in pairs:
        seq = [vocab["<s>"]] + wordpiece_encode(a, vocab, unk="<unk>") + [vocab["</s>"], vocab["</s>"]] + \
            wordpiece_encode(b, vocab, unk="<unk>") + [vocab["</s>"]]
        assert len(seq) <= MPNET_POSITIONS - MPNET_PAD - 1
        ids.append(seq)
        h, _ = mpnet_forward(weights, seq, eps)
        x = torch.tanh(F.linear(h[0], w["classifier.dense.weight"], w["classifier.dense.bias"]))
        logits.append(floats(F.linear(x, w["classifier.out_proj.weight"], w["classifier.out_proj.bias"])))
    with open(os.path.join(out_dir, "hf_mpnet_cross_reference.json"), "w") as f:
        json.dump({"pairs": [list(p) for p in pairs], "ids": ids, "logits": logits}, f, separators=(",", ":"))


# ModernBERT (Warner et al. 2024): 4 layers so that global (0, 3) and local (1, 2) layers both occur with
# global_attn_every_n_layers 3; a window of 8 (4 tokens either side) shorter than the test texts; a text longer than
# max_position_embeddings' share of windows (the last) so the band matters over many positions.
MB_LAYERS, MB_D_FF, MB_WINDOW, MB_EVERY, MB_POSITIONS = 4, 48, 8, 3, 96
MB_GLOBAL_THETA, MB_LOCAL_THETA, MB_EPS = 160000.0, 10000.0, 1e-5
MB_TEXTS = BERT_TEXTS + [" ".join(["the quick brown fox is your lovely cat, the lazy dog jumps over it."] * 4)]
# name: (dtype, tensor prefix (ModernBertForMaskedLM saves "model."), sentence-transformers pooling)
MODERNBERT_COPIES = {"f32": ("F32", "", "mean"), "bf16": ("BF16", "model.", None)}


def modernbert_weights(vocab_size, gen, classifier_labels=0):
    """ModernBertModel's tensors with the defaults norm_bias, attention_bias, mlp_bias false: LayerNorm weights
    1 + N(0, 0.1), linears N(0, 0.2), embeddings N(0, 0.5); a classification head when classifier_labels."""
    d, f = D_MODEL, MB_D_FF
    w = {"embeddings.tok_embeddings.weight": 0.5 * torch.randn((vocab_size, d), generator=gen),
         "embeddings.norm.weight": 1 + 0.1 * torch.randn((d,), generator=gen)}
    for i in range(MB_LAYERS):
        p = f"layers.{i}."
        if i > 0:
            w[p + "attn_norm.weight"] = 1 + 0.1 * torch.randn((d,), generator=gen)
        w[p + "attn.Wqkv.weight"] = 0.2 * torch.randn((3 * d, d), generator=gen)
        w[p + "attn.Wo.weight"] = 0.2 * torch.randn((d, d), generator=gen)
        w[p + "mlp_norm.weight"] = 1 + 0.1 * torch.randn((d,), generator=gen)
        w[p + "mlp.Wi.weight"] = 0.2 * torch.randn((2 * f, d), generator=gen)
        w[p + "mlp.Wo.weight"] = 0.2 * torch.randn((d, f), generator=gen)
    w["final_norm.weight"] = 1 + 0.1 * torch.randn((d,), generator=gen)
    if classifier_labels:
        w["head.dense.weight"] = 0.2 * torch.randn((d, d), generator=gen)
        w["head.norm.weight"] = 1 + 0.1 * torch.randn((d,), generator=gen)
        w["classifier.weight"] = 0.2 * torch.randn((classifier_labels, d), generator=gen)
        w["classifier.bias"] = 0.1 * torch.randn((classifier_labels,), generator=gen)
    return w


def rotate_half_rope(x, theta):
    """x: [H, T, Dh]; RoPE as ModernBertRotaryEmbedding / apply_rotary_pos_emb: frequencies theta^(-2i/Dh) for
    i < Dh/2, cos / sin repeated over both halves, x * cos + rotate_half(x) * sin."""
    dh, t = x.shape[-1], x.shape[-2]
    inv_freq = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    freqs = torch.arange(t, dtype=torch.float64)[:, None] * inv_freq[None, :]  # [T, Dh/2]
    emb = torch.cat([freqs, freqs], dim=-1)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return x * emb.cos() + torch.cat([-x2, x1], dim=-1) * emb.sin()


def modernbert_forward(w, ids):
    """ModernBertModel: tok_embeddings, LayerNorm (no bias); per layer x += Wo(attn(attn_norm(x))) (layer 0: no
    attn_norm), x += mlp.Wo(gelu(input) * gate) with [input | gate] = mlp.Wi(mlp_norm(x)); final_norm. Layer l is
    global when l % global_attn_every_n_layers == 0 (RoPE base global_rope_theta), else local: RoPE base
    local_rope_theta and query i sees keys j with |i - j| <= local_attention // 2."""
    w = {k: v.double() for k, v in w.items()}
    d, n_heads = D_MODEL, N_HEADS
    dh = d // n_heads
    t = len(ids)

    def ln(x, name):
        return F.layer_norm(x, (d,), w[name + ".weight"], None, MB_EPS)

    x = ln(w["embeddings.tok_embeddings.weight"][ids], "embeddings.norm")
    for i in range(MB_LAYERS):
        p = f"layers.{i}."
        is_global = i % MB_EVERY == 0
        h = x if i == 0 else ln(x, p + "attn_norm")
        qkv = h @ w[p + "attn.Wqkv.weight"].T  # [T, 3D]
        q, k, v = (qkv[:, j * d:(j + 1) * d].view(t, n_heads, dh).transpose(0, 1) for j in range(3))
        theta = MB_GLOBAL_THETA if is_global else MB_LOCAL_THETA
        q, k = rotate_half_rope(q, theta), rotate_half_rope(k, theta)
        scores = q @ k.transpose(1, 2) / math.sqrt(dh)
        if not is_global:
            pos = torch.arange(t)
            outside = (pos[:, None] - pos[None, :]).abs() > MB_WINDOW // 2
            scores = scores.masked_fill(outside, float("-inf"))
        context = (torch.softmax(scores, dim=-1) @ v).transpose(0, 1).reshape(t, d)
        x = x + context @ w[p + "attn.Wo.weight"].T
        m = ln(x, p + "mlp_norm") @ w[p + "mlp.Wi.weight"].T
        x = x + (F.gelu(m[:, :MB_D_FF]) * m[:, MB_D_FF:]) @ w[p + "mlp.Wo.weight"].T
    return ln(x, "final_norm")


def modernbert_config(vocab, architecture, **extra):
    config = {"architectures": [architecture], "model_type": "modernbert", "hidden_size": D_MODEL,
              "num_attention_heads": N_HEADS, "num_hidden_layers": MB_LAYERS, "intermediate_size": MB_D_FF,
              "hidden_activation": "gelu", "max_position_embeddings": MB_POSITIONS, "vocab_size": len(vocab),
              "norm_eps": MB_EPS, "norm_bias": False, "attention_bias": False, "mlp_bias": False,
              "global_rope_theta": MB_GLOBAL_THETA, "local_rope_theta": MB_LOCAL_THETA,
              "local_attention": MB_WINDOW, "global_attn_every_n_layers": MB_EVERY,
              "pad_token_id": vocab["[PAD]"], "cls_token_id": vocab["[CLS]"], "sep_token_id": vocab["[SEP]"],
              "bos_token_id": vocab["[CLS]"], "eos_token_id": vocab["[SEP]"], "attention_dropout": 0.0,
              "embedding_dropout": 0.0, "mlp_dropout": 0.0, "classifier_dropout": 0.0, "initializer_range": 0.02}
    config.update(extra)
    return config


def write_modernbert(out_dir):
    """hf_modernbert_{f32,bf16}/ and hf_modernbert_reference.json: BERT's WordPiece vocabulary and tokenizer.json
    ([CLS] A [SEP] as ModernBERT's TemplateProcessing), ModernBertModel (f32, sentence-transformers mean pooling)
    and ModernBertForMaskedLM names (bf16: "model." plus the MLM head's tensors, which tokvec ignores)."""
    gen = torch.Generator().manual_seed(SEED + 23)
    tokens = bert_vocab()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    weights = modernbert_weights(len(tokens), gen)
    ids = [[vocab["[CLS]"]] + wordpiece_encode(text, vocab) + [vocab["[SEP]"]] for text in MB_TEXTS]
    assert len(ids[-1]) > 4 * MB_WINDOW and len(ids[-1]) <= MB_POSITIONS, len(ids[-1])
    reference = {"texts": MB_TEXTS, "ids": ids}
    for copy, (dtype, prefix, pooling) in MODERNBERT_COPIES.items():
        folder = os.path.join(out_dir, f"hf_modernbert_{copy}")
        os.makedirs(folder, exist_ok=True)
        write_bert_tokenizer_files(folder, tokens, True, False)
        if pooling:
            write_sentence_modules(folder, pooling, False)
        config = modernbert_config(vocab, "ModernBertForMaskedLM" if prefix else "ModernBertModel")
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        tensors = [(prefix + k, v, dtype) for k, v in weights.items()]
        if prefix:  # what a ModernBertForMaskedLM checkpoint also holds
            tensors += [("head.dense.weight", weights["layers.0.attn.Wo.weight"], dtype),
                        ("head.norm.weight", weights["final_norm.weight"], dtype),
                        ("decoder.bias", torch.zeros(len(tokens)), dtype)]
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        hidden = [modernbert_forward(rounded(weights, dtype), seq) for seq in ids]
        reference[copy] = {"hidden": [nested(h) for h in hidden], "pooling": pooling or "mean", "normalize": False,
                           "pooled": [floats(pool(h, pooling or "mean", False)) for h in hidden]}
    with open(os.path.join(out_dir, "hf_modernbert_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


CROSS_PAIRS = [(BERT_TEXTS[0], text) for text in BERT_TEXTS] + [(BERT_TEXTS[1], BERT_TEXTS[2])]
NLI_LABELS = {"0": "contradiction", "1": "entailment", "2": "neutral"}


def write_cross_encoders(out_dir):
    """hf_bert_cross/ (BertForSequenceClassification, one label: a cross-encoder like ms-marco-MiniLM-L6-v2) and
    hf_distilbert_nli/ (DistilBertForSequenceClassification, three labels by id2label), BERT's vocabulary, and
    hf_cross_reference.json: {"pairs": [[a, b]], "ids", "type_ids", "bert_cross": {"logits": [[...]]},
    "distilbert_nli": {"logits": [[...]], "labels": [...]}}. The heads as transformers writes them: BERT's pooler
    (tanh) then classifier; DistilBERT's pre_classifier (ReLU) then classifier."""
    gen = torch.Generator().manual_seed(SEED + 17)
    tokens = bert_vocab()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    ids, type_ids = [], []
    for a, b in CROSS_PAIRS:
        first = [vocab["[CLS]"]] + wordpiece_encode(a, vocab) + [vocab["[SEP]"]]
        second = wordpiece_encode(b, vocab) + [vocab["[SEP]"]]
        ids.append(first + second)
        type_ids.append([0] * len(first) + [1] * len(second))
    reference = {"pairs": [list(p) for p in CROSS_PAIRS], "ids": ids, "type_ids": type_ids}
    # BERT cross-encoder.
    weights = random_weights(bert_shapes(len(tokens)), gen)
    weights["classifier.weight"] = 0.2 * torch.randn((1, D_MODEL), generator=gen)
    weights["classifier.bias"] = 0.1 * torch.randn((1,), generator=gen)
    folder = os.path.join(out_dir, "hf_bert_cross")
    os.makedirs(folder, exist_ok=True)
    write_bert_tokenizer_files(folder, tokens, True, False)
    config = {"architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_act": "gelu",
              "hidden_size": D_MODEL, "num_attention_heads": N_HEADS, "num_hidden_layers": N_LAYERS,
              "intermediate_size": D_FF, "max_position_embeddings": BERT_POSITIONS, "vocab_size": len(tokens),
              "type_vocab_size": BERT_TYPES, "pad_token_id": 0, "layer_norm_eps": 1e-12,
              "position_embedding_type": "absolute", "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0},
              "sbert_ce_default_activation_function": "torch.nn.modules.activation.Sigmoid"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = [(("" if k.startswith("classifier") else "bert.") + k, v, "F32") for k, v in weights.items()]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    logits = []
    for seq, types in zip(ids, type_ids):
        h, _ = roberta_forward(weights, seq, 1e-12, first_position=0, type_ids=types)
        w = {k: v.double() for k, v in weights.items()}
        pooled = torch.tanh(F.linear(h[0], w["pooler.dense.weight"], w["pooler.dense.bias"]))
        logits.append(floats(F.linear(pooled, w["classifier.weight"], w["classifier.bias"])))
    reference["bert_cross"] = {"logits": logits}
    # DistilBERT classifier (token types ignored, as DistilBertModel takes none).
    weights = random_weights(distilbert_shapes(len(tokens)), gen)
    weights["pre_classifier.weight"] = 0.2 * torch.randn((D_MODEL, D_MODEL), generator=gen)
    weights["pre_classifier.bias"] = 0.1 * torch.randn((D_MODEL,), generator=gen)
    weights["classifier.weight"] = 0.2 * torch.randn((len(NLI_LABELS), D_MODEL), generator=gen)
    weights["classifier.bias"] = 0.1 * torch.randn((len(NLI_LABELS),), generator=gen)
    folder = os.path.join(out_dir, "hf_distilbert_nli")
    os.makedirs(folder, exist_ok=True)
    write_bert_tokenizer_files(folder, tokens, True, False)
    config = {"architectures": ["DistilBertForSequenceClassification"], "model_type": "distilbert",
              "activation": "gelu", "dim": D_MODEL, "n_heads": N_HEADS, "n_layers": N_LAYERS, "hidden_dim": D_FF,
              "max_position_embeddings": BERT_POSITIONS, "vocab_size": len(tokens), "pad_token_id": 0,
              "sinusoidal_pos_embds": False, "id2label": NLI_LABELS,
              "label2id": {v: int(k) for k, v in NLI_LABELS.items()}}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = [((k if k.startswith(("pre_classifier", "classifier")) else "distilbert." + k), v, "F32")
               for k, v in weights.items()]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    logits = []
    for seq in ids:
        h, _ = distilbert_forward(weights, seq)
        w = {k: v.double() for k, v in weights.items()}
        pooled = torch.relu(F.linear(h[0], w["pre_classifier.weight"], w["pre_classifier.bias"]))
        logits.append(floats(F.linear(pooled, w["classifier.weight"], w["classifier.bias"])))
    reference["distilbert_nli"] = {"logits": logits, "labels": [NLI_LABELS[str(i)] for i in range(len(NLI_LABELS))]}
    with open(os.path.join(out_dir, "hf_cross_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


# ModernBertForSequenceClassification copies: name: (classifier_pooling, labels).
MODERNBERT_CROSS = {"hf_modernbert_cross": ("mean", 1), "hf_modernbert_cross_cls": ("cls", 2)}


def write_modernbert_cross(out_dir):
    """hf_modernbert_cross/ (classifier_pooling mean, one label: a reranker such as gte-reranker-modernbert-base) and
    hf_modernbert_cross_cls/ (cls, two labels), and hf_modernbert_cross_reference.json: {"pairs", "ids",
    "hf_modernbert_cross": {"logits"}, ...}. The pair template is ModernBERT's TemplateProcessing:
    [CLS] A [SEP] B [SEP], every type id 0. The head: pooled = h[0] or the mean over the tokens, then
    head.norm(gelu(head.dense(pooled))) (no biases: classifier_bias, norm_bias false), then classifier."""
    gen = torch.Generator().manual_seed(SEED + 29)
    tokens = bert_vocab()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    ids = [[vocab["[CLS]"]] + wordpiece_encode(a, vocab) + [vocab["[SEP]"]] + wordpiece_encode(b, vocab) +
           [vocab["[SEP]"]] for a, b in CROSS_PAIRS]
    reference = {"pairs": [list(p) for p in CROSS_PAIRS], "ids": ids}
    for name, (pooling, labels) in MODERNBERT_CROSS.items():
        weights = modernbert_weights(len(tokens), gen, classifier_labels=labels)
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        write_bert_tokenizer_files(folder, tokens, True, False)
        path = os.path.join(folder, "tokenizer.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for piece in data["post_processor"]["pair"]:
            next(iter(piece.values()))["type_id"] = 0
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
        id2label = {str(i): f"LABEL_{i}" for i in range(labels)}
        config = modernbert_config(vocab, "ModernBertForSequenceClassification", classifier_pooling=pooling,
                                   classifier_activation="gelu", classifier_bias=False, id2label=id2label,
                                   label2id={v: int(k) for k, v in id2label.items()})
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        tensors = [(k if k.startswith(("head.", "classifier.")) else "model." + k, v, "F32")
                   for k, v in weights.items()]
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        w = {k: v.double() for k, v in weights.items()}
        logits = []
        for seq in ids:
            h = modernbert_forward(weights, seq)
            pooled = h.mean(dim=0) if pooling == "mean" else h[0]
            x = F.layer_norm(F.gelu(pooled @ w["head.dense.weight"].T), (D_MODEL,), w["head.norm.weight"], None,
                             MB_EPS)
            logits.append(floats(F.linear(x, w["classifier.weight"], w["classifier.bias"])))
        reference[name] = {"logits": logits, "pooling": pooling}
    with open(os.path.join(out_dir, "hf_modernbert_cross_reference.json"), "w") as f:
        json.dump(reference, f, separators=(",", ":"))


def write_roberta_cross_encoder(out_dir, vocab, merges):
    """hf_roberta_cross/ (RobertaForSequenceClassification, one label, as bge-reranker-base's head) with a
    tokenizer.json (ByteLevel, RobertaProcessing: <s> A </s></s> B </s>, every type id 0), and
    hf_roberta_cross_reference.json {"pairs", "ids", "logits"}. Head: classifier.dense + tanh on <s>'s vector,
    then classifier.out_proj."""
    gen = torch.Generator().manual_seed(SEED + 19)
    weights = random_weights(roberta_shapes(len(vocab)), gen)
    head = {"classifier.dense.weight": 0.2 * torch.randn((D_MODEL, D_MODEL), generator=gen),
            "classifier.dense.bias": 0.1 * torch.randn((D_MODEL,), generator=gen),
            "classifier.out_proj.weight": 0.2 * torch.randn((1, D_MODEL), generator=gen),
            "classifier.out_proj.bias": 0.1 * torch.randn((1,), generator=gen)}
    eps = 1e-5
    folder = os.path.join(out_dir, "hf_roberta_cross")
    os.makedirs(folder, exist_ok=True)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
              "normalized": False, "special": True} for t in specials]
    tokenizer = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                                   "use_regex": True},
                 "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", vocab["</s>"]],
                                    "cls": ["<s>", vocab["<s>"]], "trim_offsets": True, "add_prefix_space": False},
                 "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
                 "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                           "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                           "ignore_merges": False, "vocab": vocab, "merges": [[a, b] for a, b in merges]}}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, separators=(",", ":"))
    config = {"architectures": ["RobertaForSequenceClassification"], "model_type": "roberta", "hidden_act": "gelu",
              "hidden_size": D_MODEL, "num_attention_heads": N_HEADS, "num_hidden_layers": N_LAYERS,
              "intermediate_size": D_FF, "max_position_embeddings": ROBERTA_POSITIONS, "vocab_size": len(vocab),
              "type_vocab_size": 1, "pad_token_id": ROBERTA_PAD, "bos_token_id": 0, "eos_token_id": 2,
              "layer_norm_eps": eps, "position_embedding_type": "absolute", "id2label": {"0": "LABEL_0"},
              "label2id": {"LABEL_0": 0}}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = [("roberta." + k, v, "F32") for k, v in weights.items() if not k.startswith("pooler")]
    tensors += [(k, v, "F32") for k, v in head.items()]
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    candidates = [(TEXTS[0], text) for text in TEXTS] + [(TEXTS[1], TEXTS[2]), (TEXTS[2], TEXTS[0])]
    pairs, ids, logits = [], [], []
    w = {k: v.double() for k, v in head.items()}
    for a, b in candidates:
        seq = [vocab["<s>"]] + bpe_encode(a, vocab, merges) + [vocab["</s>"], vocab["</s>"]] + \
            bpe_encode(b, vocab, merges) + [vocab["</s>"]]
        if len(seq) > ROBERTA_POSITIONS - ROBERTA_PAD - 1:
            continue  # the pairs that fit the model without truncation
        pairs.append((a, b))
        ids.append(seq)
        h, _ = roberta_forward(weights, seq, eps)
        x = torch.tanh(F.linear(h[0], w["classifier.dense.weight"], w["classifier.dense.bias"]))
        logits.append(floats(F.linear(x, w["classifier.out_proj.weight"], w["classifier.out_proj.bias"])))
    with open(os.path.join(out_dir, "hf_roberta_cross_reference.json"), "w") as f:
        json.dump({"pairs": [list(p) for p in pairs], "ids": ids, "logits": logits}, f, separators=(",", ":"))


def floats(t):
    return [float(f"{x:.9g}") for x in t.flatten().tolist()]


def nested(t):
    if t.dim() == 1:
        return floats(t)
    return [nested(row) for row in t]


def check(committed, tolerance):
    """Regenerates into a temporary folder and compares with `committed`: every file byte for byte, except the
    *_reference.json goldens, whose numbers may move by `tolerance` (another CPU or BLAS kernel)."""
    import tempfile

    def close(a, b):
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
        if isinstance(a, float) or isinstance(b, float):
            return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= tolerance
        return a == b

    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        bad = 0
        for root, _, files in os.walk(fresh):
            for name in files:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, fresh)
                mine = os.path.join(committed, rel)
                if not os.path.exists(mine):
                    print(f"missing: {rel}")
                    bad += 1
                    continue
                new, old = open(path, "rb").read(), open(mine, "rb").read()
                same = new == old or (name.endswith("_reference.json") and close(json.loads(new), json.loads(old)))
                if not same:
                    print(f"differs: {rel}")
                    bad += 1
        if bad:
            print(f"{bad} files differ from {committed}; regenerate with /usr/bin/python3 "
                  f"scripts/gen_hf_checkpoints.py {committed}")
            return 1
    print(f"every file under {committed} is what the script makes (goldens within {tolerance})")
    return 0


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="tests/attention/testdata")
    parser.add_argument("--check", action="store_true", help="compare with out_dir instead of writing it")
    parser.add_argument("--tolerance", type=float, default=1e-6, help="--check: for the reference numbers")
    args = parser.parse_args()
    if args.check:
        sys.exit(check(args.out_dir, args.tolerance))
    generate(args.out_dir)
    print(f"wrote checkpoints and references under {args.out_dir}")


def generate(out_dir):
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
    # BERT: its own WordPiece vocabulary and generator, after the others, so their files stay as they were.
    bert_weights, bert_ids, bert_eps = write_bert(out_dir)
    write_bert_dense(out_dir, bert_weights, bert_ids, bert_eps)
    # DistilBERT: BERT's vocabulary and texts, its own generator.
    write_distilbert(out_dir)
    # Cross-encoders and classifiers (sequence classification heads), their own generators.
    write_cross_encoders(out_dir)
    write_roberta_cross_encoder(out_dir, roberta_vocab, merges)
    # MPNet: BERT's WordPiece under MPNet's special tokens, its own generator.
    write_mpnet(out_dir)
    write_mpnet_cross_encoder(out_dir)
    # ModernBERT: BERT's vocabulary, its own generator.
    write_modernbert(out_dir)
    write_modernbert_cross(out_dir)


if __name__ == "__main__":
    main()
