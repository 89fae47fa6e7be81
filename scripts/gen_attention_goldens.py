#!/usr/bin/python3
"""Writes the PyTorch reference outputs ("goldens") that tests/embeddings and tests/attention compare against.

Run with Debian's python3-torch (1.13), not a pyenv python:

    /usr/bin/python3 scripts/gen_attention_goldens.py                 # rewrite tests/data/attention/*.json
    /usr/bin/python3 scripts/gen_attention_goldens.py --check         # regenerate into a temp dir and compare
    /usr/bin/python3 scripts/gen_attention_goldens.py --out DIR       # write somewhere else

--check exits 0 when every regenerated tensor matches the committed one (same names, shapes, and values within
--tolerance, default 1e-6, as |a - b| / max(1, |a|)), 1 with a list of differences otherwise, and 0 with a note when torch is missing
(pass --require-torch to make that an error).

File format (one JSON object per file, floats printed with 9 significant digits, which round-trips float32):

    {
      "description": "what torch computed",
      "config": {"d_model": 8, "n_heads": 2, ...},          # integers, floats, strings, booleans
      "tensors": {"name": {"shape": [2, 3], "data": [row-major values]}, ...}
    }

Masks are stored as tensors of 0/1 values (1 = not allowed / padding, as in torch's boolean masks). Every module
is built from torch itself (nn.MultiheadAttention, nn.TransformerEncoderLayer) or plain torch ops, with a fixed
seed per file, in float32 and eval mode with dropout 0.
"""

import argparse
import json
import math
import os
import sys
import tempfile

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # Reported by main(); --check without torch is a no-op.
    torch = None

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "attention")


def tensor_entry(t):
    t = t.detach().to(torch.float32).contiguous()
    return {"shape": list(t.shape), "data": [float("%.9g" % v) for v in t.reshape(-1).tolist()]}


def write_golden(out_dir, name, description, config, tensors):
    doc = {
        "description": description,
        "config": config,
        "tensors": {key: tensor_entry(value) for key, value in tensors.items()},
    }
    path = os.path.join(out_dir, name + ".json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, path)


def randomize_layer_norm(norm, generator):
    with torch.no_grad():
        norm.weight.copy_(1.0 + 0.2 * torch.randn(norm.weight.shape, generator=generator))
        norm.bias.copy_(0.2 * torch.randn(norm.bias.shape, generator=generator))


def gen_ops(out_dir):
    """Per-op references: linear both layouts, layer_norm, activations, softmax with a fully masked row."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(5, 8, generator=g)
    w_out_in = torch.randn(6, 8, generator=g) * 0.5  # nn.Linear [out, in]
    b = torch.randn(6, generator=g) * 0.1
    w_in_out = torch.randn(8, 6, generator=g) * 0.5  # Conv1D [in, out]
    gamma = 1.0 + 0.2 * torch.randn(8, generator=g)
    beta = 0.2 * torch.randn(8, generator=g)
    act_in = torch.linspace(-6.0, 6.0, 49)
    scores = torch.randn(4, 6, generator=g) * 3.0
    softmax_mask = torch.zeros(4, 6, dtype=torch.bool)
    softmax_mask[1, 2:] = True
    softmax_mask[3, 0:5] = True  # (a fully masked row is NaN in torch, zeros in tokvec: a property test)
    masked = scores.masked_fill(softmax_mask, float("-inf"))
    write_golden(out_dir, "ops", "F.linear, x @ W + b, F.layer_norm (eps 1e-5), gelu exact/tanh, relu, softmax",
                 {"eps": 1e-5}, {
                     "x": x, "w_out_in": w_out_in, "w_in_out": w_in_out, "bias": b,
                     "linear_out_in": F.linear(x, w_out_in, b),
                     "linear_in_out": torch.addmm(b, x, w_in_out),
                     "gamma": gamma, "beta": beta,
                     "layer_norm": F.layer_norm(x, (8,), gamma, beta, 1e-5),
                     "act_in": act_in,
                     "gelu": F.gelu(act_in),
                     "gelu_tanh": F.gelu(act_in, approximate="tanh"),
                     "relu": F.relu(act_in),
                     "scores": scores, "softmax_mask": softmax_mask.float(),
                     "softmax": torch.softmax(masked, dim=-1),
                 })


def gen_scaled_dot_product(out_dir):
    """softmax(QK^T/sqrt(dk) + mask) V with a causal, a boolean and an additive mask (torch 1.13 ops)."""
    g = torch.Generator().manual_seed(2)
    q = torch.randn(5, 4, generator=g)
    k = torch.randn(6, 4, generator=g)
    v = torch.randn(6, 3, generator=g)
    scores = q @ k.T / math.sqrt(4)
    causal = torch.ones(5, 6, dtype=torch.bool).triu(1 + 6 - 5)  # query i sees keys j <= i + (Tk - Tq)
    blocked = torch.rand(5, 6, generator=g) < 0.3
    blocked[:, 0] = False  # keep one key per row
    additive = torch.randn(5, 6, generator=g)
    tensors = {"q": q, "k": k, "v": v, "blocked": blocked.float(), "additive": additive}
    for name, s in [("none", scores), ("causal", scores.masked_fill(causal, float("-inf"))),
                    ("blocked", scores.masked_fill(blocked, float("-inf"))), ("additive", scores + additive)]:
        weights = torch.softmax(s, dim=-1)
        tensors[name + "_weights"] = weights
        tensors[name + "_context"] = weights @ v
    write_golden(out_dir, "scaled_dot_product", "torch.softmax(q @ k.T / sqrt(d_k) + mask, -1) @ v", {}, tensors)


def mha_tensors(mha, prefix=""):
    t = {}
    if mha.in_proj_weight is not None:
        t["in_proj_weight"] = mha.in_proj_weight
    else:
        t["q_proj_weight"] = mha.q_proj_weight
        t["k_proj_weight"] = mha.k_proj_weight
        t["v_proj_weight"] = mha.v_proj_weight
    t["in_proj_bias"] = mha.in_proj_bias
    t["out_proj_weight"] = mha.out_proj.weight
    t["out_proj_bias"] = mha.out_proj.bias
    return {prefix + k: v for k, v in t.items()}


def gen_multi_head_attention(out_dir):
    """nn.MultiheadAttention (batch_first) self-attention with causal and key-padding masks, and cross-attention."""
    d_model, n_heads = 8, 2
    # 1. Self-attention, causal mask, batch of 2 (each sequence is one tokvec call).
    torch.manual_seed(3)
    mha = torch.nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True).eval()
    with torch.no_grad():
        mha.in_proj_bias.normal_(0, 0.2)
        mha.out_proj.bias.normal_(0, 0.2)
    x = torch.randn(2, 5, d_model)
    causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
    with torch.no_grad():
        out, weights = mha(x, x, x, attn_mask=causal, need_weights=True, average_attn_weights=False)
    write_golden(out_dir, "mha_self_causal", "nn.MultiheadAttention(8, 2, batch_first=True) self, causal attn_mask",
                 {"d_model": d_model, "n_heads": n_heads, "causal": True},
                 dict(mha_tensors(mha), x=x, output=out, weights=weights))
    # 2. Self-attention with a key padding mask (sequence 1 has two padding tokens at the end).
    key_padding = torch.tensor([[0, 0, 0, 0, 0], [0, 0, 0, 1, 1]], dtype=torch.bool)
    with torch.no_grad():
        out, weights = mha(x, x, x, key_padding_mask=key_padding, need_weights=True, average_attn_weights=False)
    write_golden(out_dir, "mha_self_key_padding", "nn.MultiheadAttention self-attention with key_padding_mask",
                 {"d_model": d_model, "n_heads": n_heads, "causal": False},
                 dict(mha_tensors(mha), x=x, key_padding=key_padding.float(), output=out, weights=weights))
    # 3. Cross-attention: queries [2, 4, D] attend to memory [2, 6, D] (fused in_proj) with key padding.
    torch.manual_seed(4)
    cross = torch.nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True).eval()
    with torch.no_grad():
        cross.in_proj_bias.normal_(0, 0.2)
    queries = torch.randn(2, 4, d_model)
    memory = torch.randn(2, 6, d_model)
    memory_padding = torch.tensor([[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]], dtype=torch.bool)
    with torch.no_grad():
        out, weights = cross(queries, memory, memory, key_padding_mask=memory_padding, need_weights=True,
                             average_attn_weights=False)
    write_golden(out_dir, "mha_cross", "nn.MultiheadAttention cross-attention, memory key_padding_mask",
                 {"d_model": d_model, "n_heads": n_heads},
                 dict(mha_tensors(cross), x=queries, memory=memory, key_padding=memory_padding.float(),
                      output=out, weights=weights))
    # 4. Cross-attention with kdim = vdim = 6 != d_model: separate q/k/v projection weights.
    torch.manual_seed(5)
    cross_kdim = torch.nn.MultiheadAttention(d_model, n_heads, dropout=0.0, batch_first=True, kdim=6,
                                             vdim=6).eval()
    with torch.no_grad():
        cross_kdim.in_proj_bias.normal_(0, 0.2)
    memory6 = torch.randn(1, 7, 6)
    queries1 = torch.randn(1, 3, d_model)
    with torch.no_grad():
        out, weights = cross_kdim(queries1, memory6, memory6, need_weights=True, average_attn_weights=False)
    write_golden(out_dir, "mha_cross_kdim", "nn.MultiheadAttention(8, 2, kdim=6, vdim=6) cross-attention",
                 {"d_model": d_model, "n_heads": n_heads},
                 dict(mha_tensors(cross_kdim), x=queries1, memory=memory6, output=out, weights=weights))


def gen_encoder_layers(out_dir):
    """nn.TransformerEncoderLayer, post-LN and pre-LN, relu and gelu, dropout 0, eval."""
    d_model, n_heads, d_ff = 8, 2, 16
    for seed, norm_first, activation in [(10, False, "relu"), (11, False, "gelu"), (12, True, "relu"),
                                         (13, True, "gelu")]:
        torch.manual_seed(seed)
        layer = torch.nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=d_ff, dropout=0.0,
                                                 activation=activation, batch_first=True,
                                                 norm_first=norm_first).eval()
        g = torch.Generator().manual_seed(seed)
        randomize_layer_norm(layer.norm1, g)
        randomize_layer_norm(layer.norm2, g)
        with torch.no_grad():
            layer.self_attn.in_proj_bias.normal_(0, 0.2)
        x = torch.randn(1, 6, d_model)
        with torch.no_grad():
            out = layer(x)
        name = "encoder_layer_%s_%s" % ("pre_ln" if norm_first else "post_ln", activation)
        tensors = dict(mha_tensors(layer.self_attn, "self_attn."), x=x, output=out)
        for key in ["linear1", "linear2", "norm1", "norm2"]:
            module = getattr(layer, key)
            tensors[key + ".weight"] = module.weight
            tensors[key + ".bias"] = module.bias
        write_golden(out_dir, name, "nn.TransformerEncoderLayer(8, 2, 16, dropout=0, activation=%s, norm_first=%s)"
                     % (activation, norm_first),
                     {"d_model": d_model, "n_heads": n_heads, "d_ff": d_ff, "norm_first": norm_first,
                      "activation": activation, "eps": layer.norm1.eps}, tensors)


def gen_sinusoidal(out_dir):
    """The sinusoidal table of Vaswani et al. 2017 (PyTorch tutorial formula), computed in float64."""
    tensors = {}
    for max_len, d_model in [(64, 16), (10, 7)]:
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
        tensors["pe_%d_%d" % (max_len, d_model)] = pe
    write_golden(out_dir, "sinusoidal", "PE[pos,2i]=sin(pos/10000^(2i/D)), PE[pos,2i+1]=cos(...), float64 -> float32",
                 {}, tensors)


def gen_rotary(out_dir):
    """RoPE (Su et al. 2021) in its complex form, eq. 12: (x_2i + i x_2i+1) * exp(i m theta_i), theta_i =
    base^(-2i/d); and the rotate_half form (pairs (i, i + d/2)) of GPT-NeoX. Per head of [T, H * Dh]."""
    g = torch.Generator().manual_seed(40)
    seq_len, n_heads, head_dim, first_position, base = 6, 2, 8, 3, 10000.0
    x = torch.randn(seq_len, n_heads * head_dim, generator=g)
    positions = torch.arange(first_position, first_position + seq_len, dtype=torch.float64)
    theta = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)  # [Dh/2]
    angles = positions[:, None] * theta[None, :]                                      # [T, Dh/2]
    heads = x.double().view(seq_len, n_heads, head_dim // 2, 2)
    rotation = torch.polar(torch.ones_like(angles), angles)[:, None, :]                # e^(i m theta)
    interleaved = torch.view_as_real(torch.view_as_complex(heads.contiguous()) * rotation).reshape(seq_len, -1)
    h = x.double().view(seq_len, n_heads, head_dim)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1)[:, None, :]
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1)[:, None, :]
    rotate_half = torch.cat([-h[..., head_dim // 2:], h[..., : head_dim // 2]], dim=-1)
    halves = (h * cos + rotate_half * sin).reshape(seq_len, -1)
    write_golden(out_dir, "rotary", "RoPE: complex form (interleaved pairs) and rotate_half form, float64",
                 {"n_heads": n_heads, "head_dim": head_dim, "first_position": first_position, "base": base},
                 {"x": x, "interleaved": interleaved, "halves": halves})


def gen_alignment(out_dir):
    """Bahdanau additive and Luong dot/general scorers written with torch ops."""
    g = torch.Generator().manual_seed(20)
    s = torch.randn(3, 5, generator=g)          # decoder states [Tq, Ds]
    h = torch.randn(6, 4, generator=g)          # encoder states [Tk, Dh]
    w = torch.randn(7, 9, generator=g) * 0.5    # W [A, Ds + Dh] (nn.Linear layout)
    b = torch.randn(7, generator=g) * 0.1
    v = torch.randn(7, generator=g)
    pairs = torch.cat([s.unsqueeze(1).expand(3, 6, 5), h.unsqueeze(0).expand(3, 6, 4)], dim=-1)  # [Tq, Tk, 9]
    additive_scores = torch.tanh(F.linear(pairs, w, b)) @ v
    additive_weights = torch.softmax(additive_scores, dim=-1)
    s4 = torch.randn(3, 4, generator=g)
    dot_weights = torch.softmax(s4 @ h.T, dim=-1)
    w_general = torch.randn(5, 4, generator=g) * 0.5  # [Ds, Dh]
    general_weights = torch.softmax(s @ w_general @ h.T, dim=-1)
    write_golden(out_dir, "alignment", "Bahdanau v^T tanh(W[s;h]+b); Luong dot s^T h and general s^T W h", {}, {
        "s": s, "h": h, "w": w, "b": b, "v": v,
        "additive_weights": additive_weights, "additive_context": additive_weights @ h,
        "s4": s4, "dot_weights": dot_weights, "dot_context": dot_weights @ h,
        "w_general": w_general, "general_weights": general_weights, "general_context": general_weights @ h,
    })


def gen_gpt2_tiny(out_dir):
    """A 2-layer GPT-2-architecture model from torch ops: learned positions, pre-LN, causal, gelu tanh, ln_f.

    Tensor names and shapes follow Hugging Face's GPT2Model (Conv1D weights are [in, out]).
    """
    vocab_size, n_positions, d_model, n_heads, n_layers = 40, 12, 16, 4, 2
    head_dim = d_model // n_heads
    eps = 1e-5
    g = torch.Generator().manual_seed(30)

    def randn(*shape, std):
        return torch.randn(*shape, generator=g) * std

    t = {"wte.weight": randn(vocab_size, d_model, std=0.5), "wpe.weight": randn(n_positions, d_model, std=0.2)}
    for layer in range(n_layers):
        p = "h.%d." % layer
        t[p + "ln_1.weight"] = 1.0 + randn(d_model, std=0.2)
        t[p + "ln_1.bias"] = randn(d_model, std=0.2)
        t[p + "attn.c_attn.weight"] = randn(d_model, 3 * d_model, std=0.3)
        t[p + "attn.c_attn.bias"] = randn(3 * d_model, std=0.1)
        t[p + "attn.c_proj.weight"] = randn(d_model, d_model, std=0.3)
        t[p + "attn.c_proj.bias"] = randn(d_model, std=0.1)
        t[p + "ln_2.weight"] = 1.0 + randn(d_model, std=0.2)
        t[p + "ln_2.bias"] = randn(d_model, std=0.2)
        t[p + "mlp.c_fc.weight"] = randn(d_model, 4 * d_model, std=0.3)
        t[p + "mlp.c_fc.bias"] = randn(4 * d_model, std=0.1)
        t[p + "mlp.c_proj.weight"] = randn(4 * d_model, d_model, std=0.2)
        t[p + "mlp.c_proj.bias"] = randn(d_model, std=0.1)
    t["ln_f.weight"] = 1.0 + randn(d_model, std=0.2)
    t["ln_f.bias"] = randn(d_model, std=0.2)

    ids = torch.tensor([3, 17, 5, 39, 0, 22, 8, 17, 11])
    seq_len = ids.shape[0]
    x = t["wte.weight"][ids] + t["wpe.weight"][torch.arange(seq_len)]
    causal = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)
    weights_per_layer = []
    for layer in range(n_layers):
        p = "h.%d." % layer
        a = F.layer_norm(x, (d_model,), t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = torch.addmm(t[p + "attn.c_attn.bias"], a, t[p + "attn.c_attn.weight"])  # Conv1D: x @ W + b
        q, k, v = qkv.split(d_model, dim=-1)
        q, k, v = [m.view(seq_len, n_heads, head_dim).transpose(0, 1) for m in (q, k, v)]  # [H, T, Dh]
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(head_dim)
        weights = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)  # [H, T, T]
        weights_per_layer.append(weights)
        y = (weights @ v).transpose(0, 1).reshape(seq_len, d_model)
        x = x + torch.addmm(t[p + "attn.c_proj.bias"], y, t[p + "attn.c_proj.weight"])
        m = F.layer_norm(x, (d_model,), t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        hidden = F.gelu(torch.addmm(t[p + "mlp.c_fc.bias"], m, t[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(t[p + "mlp.c_proj.bias"], hidden, t[p + "mlp.c_proj.weight"])
    out = F.layer_norm(x, (d_model,), t["ln_f.weight"], t["ln_f.bias"], eps)
    t.update({"ids": ids.float(), "output": out, "weights_layer0": weights_per_layer[0],
              "weights_layer1": weights_per_layer[1]})
    write_golden(out_dir, "gpt2_tiny", "2-layer GPT-2 architecture from torch ops (HF names; Conv1D [in, out])",
                 {"vocab_size": vocab_size, "n_positions": n_positions, "n_embd": d_model, "n_head": n_heads,
                  "n_layer": n_layers, "layer_norm_epsilon": eps, "activation": "gelu_new"}, t)


# --- Kinds of attention (docs/attention_kinds.md) -------------------------------------------------------------

SPLITMIX_GAMMA = 0x9E3779B97F4A7C15
MASK64 = 0xFFFFFFFFFFFFFFFF


def parse_kind(kind):
    """Splits a kind string: "bigbird:4,2,1" -> ("bigbird", [4, 2, 1]); "linear" -> ("linear", [])."""
    name, _, params = kind.partition(":")
    return name, [int(p) for p in params.split(",")] if params else []


def splitmix64_stream(state):
    """The spec's splitmix64: next() adds the gamma to the state, then mixes (all mod 2^64)."""
    while True:
        state = (state + SPLITMIX_GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def bigbird_random_blocks(a, n_blocks, n_random, n_global, causal, seed):
    """rand(a) of a non-global query block a: a partial Fisher-Yates shuffle of the candidate key blocks (neither
    neighbours a-1, a, a+1 nor global, not after a if causal, increasing) by a splitmix64 stream seeded with
    seed + (a + 1) * gamma; the first min(R, n) candidates after the shuffle."""
    c = [b for b in range(n_blocks) if abs(b - a) > 1 and b >= n_global and not (causal and b > a)]
    n, stream = len(c), splitmix64_stream((seed + (a + 1) * SPLITMIX_GAMMA) & MASK64)
    for i in range(min(n_random, n)):
        j = i + next(stream) % (n - i)
        c[i], c[j] = c[j], c[i]
    return c[: min(n_random, n)]


def sparse_allowed(kind, seq_len, causal, seed=0):
    """allowed(i, j) [T, T] (bool) of a sparse kind (window, longformer, bigbird) before key padding."""
    name, params = parse_kind(kind)
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]

    def window(w):
        return (j <= i) & (j > i - w) if causal else (i - j).abs() <= w // 2

    if name == "window":
        allowed = window(params[0])
    elif name == "longformer":
        w, n_global = params
        allowed = window(w) | (i < n_global) | (j < n_global)
    elif name == "bigbird":
        block, n_random, n_global = params
        n_blocks = -(-seq_len // block)
        seen = torch.zeros(n_blocks, n_blocks, dtype=torch.bool)  # [query block, key block]
        for a in range(n_blocks):
            if a < n_global:
                seen[a, :] = True
                continue
            seen[a, max(0, a - 1): a + 2] = True
            seen[a, :n_global] = True
            for b in bigbird_random_blocks(a, n_blocks, n_random, n_global, causal, seed):
                seen[a, b] = True
        blocks = torch.arange(seq_len) // block
        allowed = seen[blocks[:, None], blocks[None, :]]
    else:
        raise ValueError("not a sparse kind: " + kind)
    return allowed & (j <= i) if causal else allowed


def split_heads(x, n_heads):
    """[T, H * Dh] -> [H, T, Dh] in float64 (head h = columns [h * Dh, (h + 1) * Dh))."""
    return x.double().view(x.shape[0], n_heads, -1).transpose(0, 1)


def merge_heads(x):
    return x.transpose(0, 1).reshape(x.shape[1], -1)


def masked_softmax(scores, blocked):
    """Softmax over the allowed keys; a row with no allowed key is all 0 (torch would give NaN)."""
    weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
    return torch.where(blocked.all(dim=-1, keepdim=True), torch.zeros_like(weights), weights)


def kernel_attention(phi_q, phi_k, v, allowed_keys, causal):
    """out_i = phi(q_i)^T sum_j phi(k_j) v_j^T / phi(q_i)^T sum_j phi(k_j) over allowed j (causal: running sums),
    [H, T, *]; and the implied weights w_ij = phi(q_i).phi(k_j) / sum_j' phi(q_i).phi(k_j') of each head."""
    phi_k = phi_k * allowed_keys[None, :, None].double()  # a padded key drops out of both sums
    kv = phi_k[:, :, :, None] * v[:, :, None, :]          # [H, T, features, Dh]
    if causal:
        numerator = (phi_q[:, :, :, None] * kv.cumsum(dim=1)).sum(dim=2)
        denominator = (phi_q * phi_k.cumsum(dim=1)).sum(dim=2, keepdim=True)
    else:
        numerator = phi_q @ kv.sum(dim=1)
        denominator = phi_q @ phi_k.sum(dim=1)[:, :, None]
    products = phi_q @ phi_k.transpose(1, 2)              # [H, T, T]
    if causal:
        products = products.tril()
    return numerator / denominator, products / products.sum(dim=-1, keepdim=True)


def performer_features(n_features, head_dim, generator):
    """FAVOR+ orthogonal random features W [M, Dh]: ceil(M / Dh) blocks of Dh orthonormal rows (QR of a Gaussian
    matrix), each row rescaled to the norm of an independent Gaussian vector of length Dh (chi(Dh)); first M rows.

    Q's columns are flipped to make diag(R) positive: LAPACK's Householder Q is not uniformly distributed (its
    first row always has a negative first entry), which would bias E[phi(q) . phi(k)] away from exp(s q . k)."""
    blocks = []
    for _ in range(-(-n_features // head_dim)):
        q, r = torch.linalg.qr(torch.randn(head_dim, head_dim, generator=generator).double())
        q = q * torch.where(torch.diagonal(r) < 0, -1.0, 1.0).double()[None, :]
        norms = torch.randn(head_dim, head_dim, generator=generator).double().norm(dim=1)
        blocks.append(q * norms[:, None])
    return torch.cat(blocks)[:n_features].float()


def attend_kind(kind, causal, q, k, v, n_heads, scale, key_padding=None, seed=0, e=None, f=None, w=None):
    """One attention call of the kind, in float64 from the spec's defining formula. q, k, v [T, H * Dh];
    key_padding [T] bool (True = padding) or None. Returns {"blocked" (sparse kinds), "output" [T, H * Dh],
    "weights" [H, T, T]}."""
    seq_len = q.shape[0]
    name, params = parse_kind(kind)
    padding = key_padding if key_padding is not None else torch.zeros(seq_len, dtype=torch.bool)
    qh, kh, vh = split_heads(q, n_heads), split_heads(k, n_heads), split_heads(v, n_heads)
    result = {}
    if name in ("full", "window", "longformer", "bigbird"):
        if name == "full":
            allowed = torch.ones(seq_len, seq_len, dtype=torch.bool)
            allowed = allowed.tril() if causal else allowed
        else:
            allowed = sparse_allowed(kind, seq_len, causal, seed)
        blocked = ~allowed | padding[None, :]
        weights = masked_softmax(scale * qh @ kh.transpose(1, 2), blocked)
        output = weights @ vh
        if name != "full":
            result["blocked"] = blocked
    elif name == "linformer":
        if causal:
            raise ValueError("linformer is bidirectional only (the projection mixes future tokens)")
        keep = (~padding).double()[None, :]
        e_t, f_t = e[:, :seq_len].double() * keep, f[:, :seq_len].double() * keep  # padded columns zeroed
        p = torch.softmax(scale * qh @ (e_t @ kh).transpose(1, 2), dim=-1)          # [H, T, K]
        output = p @ (f_t @ vh)
        weights = p @ f_t                                                           # w_ij = sum_r p_ir F_rj
    elif name == "performer":
        w64 = w.double()

        def phi(x):
            x = math.sqrt(scale) * x  # x~ = s^(1/2) x, applied once
            return torch.exp(x @ w64.T - (x * x).sum(dim=-1, keepdim=True) / 2) / math.sqrt(w64.shape[0])

        output, weights = kernel_attention(phi(qh), phi(kh), vh, ~padding, causal)
    elif name == "linear":
        output, weights = kernel_attention(F.elu(qh) + 1, F.elu(kh) + 1, vh, ~padding, causal)
    else:
        raise ValueError("unknown kind: " + kind)
    result["output"] = merge_heads(output)
    result["weights"] = weights
    return result


KIND_DESCRIPTIONS = {
    "full": "full attention: softmax(s q k^T) v (causal: j <= i)",
    "window": "sliding window (causal: i - W < j <= i; bidirectional: |i - j| <= W // 2)",
    "longformer": "Longformer: window:W or one of the first G positions global (query or key)",
    "bigbird": "BigBird: key blocks a-1, a, a+1, G global blocks and R splitmix64-seeded random blocks",
    "linformer": "Linformer: softmax(s q (E[:, :T] k)^T) F[:, :T] v, padded columns of E and F zeroed",
    "performer": "Performer FAVOR+: phi(x) = exp(W x~ - |x~|^2 / 2) / sqrt(M), x~ = s^(1/2) x, kernel attention",
    "linear": "linear attention: phi = elu + 1, phi(q)^T sum phi(k) v^T / phi(q)^T sum phi(k) (s unused)",
}


def check_kind_case(name, kind, causal, q, k, v, n_heads, scale, out, kwargs, full_output=None, prefix=20):
    """Self-checks of one case, on the float32 values the file holds (AssertionError: a broken regeneration must fail
    loudly). out is attend_kind's result for q, k, v with kwargs; full_output the plain causal attention or None."""
    out32 = out["output"].float().double()
    w32 = out["weights"][0].float().double()
    v32 = v.double()
    head_dim = v32.shape[1] // n_heads
    # Output of head 0 = weights_head0 @ v (validates the implied weights of the kernel kinds and linformer).
    diff = (out32[:, :head_dim] - w32 @ v32[:, :head_dim]).abs().max().item()
    assert diff <= 1e-5, "%s: output != weights_head0 @ v for head 0 (max diff %.3g)" % (name, diff)
    if not kind.startswith("linformer"):
        # Rows sum to 1, or to 0 for a row with no allowed key.
        sums = out["weights"].sum(dim=-1)
        bad = ((sums - 1).abs() > 1e-9) & (sums.abs() > 1e-12)
        assert not bad.any(), "%s: weight rows do not sum to 1 or 0" % name
    if "blocked" in out:
        assert (out["weights"][:, out["blocked"]] == 0).all(), "%s: weight on a blocked key" % name
    if "w" in kwargs:
        # Performer's W: blocks of Dh mutually orthogonal rows (cosines of distinct rows ~ 0 after float32 rounding).
        w = kwargs["w"].double()
        for start in range(0, w.shape[0], head_dim):
            unit = w[start:start + head_dim] / w[start:start + head_dim].norm(dim=1, keepdim=True)
            off = (unit @ unit.T - torch.eye(unit.shape[0], dtype=torch.float64)).abs().max().item()
            assert off <= 1e-6, "%s: rows of W block %d are not orthogonal (%.3g)" % (name, start // head_dim, off)
    if full_output is not None:
        diff = (out32 - full_output.float().double()).abs().max().item()
        assert diff <= 1e-6, "%s: output != full causal attention (max diff %.3g)" % (name, diff)
    if causal:
        # Prefix invariance: the first rows do not depend on later tokens.
        short_kwargs = dict(kwargs)
        if "key_padding" in kwargs:
            short_kwargs["key_padding"] = kwargs["key_padding"][:prefix]
        short = attend_kind(kind, causal, q[:prefix], k[:prefix], v[:prefix], n_heads, scale, **short_kwargs)
        diff = (short["output"] - out["output"][:prefix]).abs().max().item()
        assert diff <= 1e-9, "%s: first %d rows change with the later tokens (max diff %.3g)" % (name, prefix, diff)


def gen_attention_kinds(out_dir):
    """The kinds of docs/attention_kinds.md (window, longformer, bigbird, linformer, performer, linear), one call of
    T = 37 tokens, H = 2 heads of Dh = 16, s = 1/sqrt(16), computed in float64 from each kind's defining formula
    (sparse kinds as a dense masked softmax), stored as float32. Padded cases pad the last 4 positions."""
    seq_len, n_heads, head_dim = 37, 2, 16
    scale = 1.0 / math.sqrt(head_dim)
    # name, kind, causal, padding, generator seed, extra config (bigbird "seed", linformer "max_len")
    cases = [
        ("window_causal", "window:5", True, False, 50, {}),
        ("window_bidir", "window:6", False, True, 51, {}),
        ("window_wide", "window:64", True, False, 52, {}),
        ("longformer_causal", "longformer:4,3", True, False, 53, {}),
        ("longformer_bidir", "longformer:4,3", False, True, 54, {}),
        ("bigbird_bidir", "bigbird:4,2,1", False, False, 55, {"seed": 7}),
        ("bigbird_causal", "bigbird:4,1,1", True, False, 56, {"seed": 3}),
        ("linformer", "linformer:8", False, True, 57, {"max_len": 48}),
        ("performer_bidir", "performer:32", False, False, 58, {}),
        ("performer_causal", "performer:32", True, False, 59, {}),
        ("linear_bidir", "linear", False, True, 60, {}),
        ("linear_causal", "linear", True, False, 61, {}),
    ]
    descriptions = KIND_DESCRIPTIONS
    for name, kind, causal, padded, gen_seed, extra in cases:
        g = torch.Generator().manual_seed(gen_seed)
        q, k, v = [torch.randn(seq_len, n_heads * head_dim, generator=g) for _ in range(3)]
        kind_name, params = parse_kind(kind)
        config = {"kind": kind, "causal": causal, "seq_len": seq_len, "n_heads": n_heads, "head_dim": head_dim,
                  "scale": scale}
        config.update(extra)
        tensors = {"q": q, "k": k, "v": v}
        kwargs = {}
        if padded:
            key_padding = torch.zeros(seq_len, dtype=torch.bool)
            key_padding[-4:] = True
            kwargs["key_padding"] = key_padding
            tensors["key_padding"] = key_padding.float()
        if kind_name == "bigbird":
            kwargs["seed"] = extra["seed"]
        elif kind_name == "linformer":
            kwargs["e"] = torch.randn(params[0], extra["max_len"], generator=g) * 0.3
            kwargs["f"] = torch.randn(params[0], extra["max_len"], generator=g) * 0.3
        elif kind_name == "performer":
            kwargs["w"] = performer_features(params[0], head_dim, g)
        out = attend_kind(kind, causal, q, k, v, n_heads, scale, **kwargs)
        if "blocked" in out:
            tensors["blocked"] = out["blocked"].float()
        for key, tensor_name in [("e", "E"), ("f", "F"), ("w", "W")]:
            if key in kwargs:
                tensors[tensor_name] = kwargs[key]
        tensors["output"] = out["output"]
        tensors["weights_head0"] = out["weights"][0]
        full_output = None
        if name == "window_wide":
            # Plain causal attention, with its own mask (not through the window), for comparison.
            causal_mask = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)
            qh, kh, vh = split_heads(q, n_heads), split_heads(k, n_heads), split_heads(v, n_heads)
            scores = (scale * qh @ kh.transpose(1, 2)).masked_fill(causal_mask, float("-inf"))
            full_output = merge_heads(torch.softmax(scores, dim=-1) @ vh)
            tensors["full_output"] = full_output
        check_kind_case(name, kind, causal, q, k, v, n_heads, scale, out, kwargs, full_output)
        write_golden(out_dir, "kind_" + name, "%s, %s%s, float64 -> float32" % (
            descriptions[kind_name], "causal" if causal else "bidirectional",
            ", last 4 keys padded" if padded else ""), config, tensors)


# Max finite-difference error |fd - autograd| / max(1, |autograd|) of each kind_grad_* case of the last run
# (filled by gen_attention_kind_grads, for a look from a Python prompt; nothing prints it).
KIND_GRAD_FD_ERRORS = {}


def check_kind_grads(name, kind, causal, padded, n_heads, scale, leaves, kwargs, d_output, output, grads, g,
                     n_entries=4, step=1e-6, first_row=77):
    """Self-checks of one gradient case in float64 (AssertionError: a broken regeneration must fail loudly). leaves
    {"q", "k", "v"[, "e", "f"]: float64 inputs}, grads their autograd gradients for d_output; g picks the entries.
    Returns the max finite-difference error."""
    seq_len = output.shape[0]
    for key, grad in grads.items():
        assert grad is not None and torch.isfinite(grad).all(), "%s: d_%s has NaN or inf" % (name, key)
    assert torch.isfinite(output).all(), "%s: output has NaN or inf" % name
    d64 = d_output.double()

    def loss(replaced):
        inputs = dict(leaves, **replaced)
        with torch.no_grad():
            out = attend_kind(kind, causal, inputs["q"], inputs["k"], inputs["v"], n_heads, scale,
                              e=inputs.get("e"), f=inputs.get("f"), **kwargs)["output"]
        return (out * d64).sum().item()

    # 1. Central differences of L = sum(output * d_output) on random entries (for E, F: columns < T), plus an entry
    #    of a padded key row of k and v (gradient 0).
    worst = 0.0
    for key, x in leaves.items():
        columns = seq_len if key in ("e", "f") else x.shape[1]
        rows = torch.randint(0, x.shape[0], (n_entries,), generator=g).tolist()
        cols = torch.randint(0, columns, (n_entries,), generator=g).tolist()
        entries = list(zip(rows, cols))
        if padded and key in ("k", "v"):
            entries.append((seq_len - 1, cols[0]))
        for r, c in entries:
            plus, minus = x.detach().clone(), x.detach().clone()
            plus[r, c] += step
            minus[r, c] -= step
            fd = (loss({key: plus}) - loss({key: minus})) / (2 * step)
            exact = grads[key][r, c].item()
            err = abs(fd - exact) / max(1.0, abs(exact))
            assert err <= 1e-6, "%s: d_%s[%d, %d] autograd %.9g vs finite difference %.9g" % (name, key, r, c, exact,
                                                                                            fd)
            worst = max(worst, err)
    # 2. A padded key gets no gradient, nor do its columns of E, F (and E, F's columns >= T).
    padding = kwargs.get("key_padding")
    if padding is not None:
        for key in ("k", "v"):
            assert (grads[key][padding] == 0).all(), "%s: d_%s is not 0 at a padded key" % (name, key)
        for key in ("e", "f"):
            if key in grads:
                dead = torch.ones(grads[key].shape[1], dtype=torch.bool)
                dead[:seq_len] = padding
                assert (grads[key][:, dead] == 0).all(), "%s: d_%s is not 0 at a padded column" % (name, key)
    # 3. Causal: the gradients at positions >= t depend on d_output rows >= t only.
    if causal:
        late = d64.clone()
        late[:first_row] = 0
        for x in leaves.values():
            x.grad = None
        out = attend_kind(kind, causal, leaves["q"], leaves["k"], leaves["v"], n_heads, scale, **kwargs)["output"]
        out.backward(late)
        for key, x in leaves.items():
            diff = (x.grad[first_row:] - grads[key][first_row:]).abs().max().item()
            assert diff <= 1e-12, "%s: d_%s rows >= %d depend on earlier d_output rows (%.3g)" % (name, key,
                                                                                                  first_row, diff)
    return worst


def gen_attention_kind_grads(out_dir):
    """Gradients for the training kernels: one call of each kind, T = 150 tokens (several 64-row query blocks and
    kernel chunks), H = 2 heads of Dh = 16, s = 1/sqrt(16); output and d_q, d_k, d_v (and linformer's d_E, d_F)
    of L = sum(output * d_output) by torch autograd through attend_kind in float64, stored as float32. Padded cases
    pad the last 23 keys (bidirectional window: the last query rows see no key at all, output and gradient 0)."""
    seq_len, n_heads, head_dim, n_padded = 150, 2, 16, 23
    scale = 1.0 / math.sqrt(head_dim)
    # name, kind, causal, padding, generator seed, extra config (bigbird "seed", linformer "max_len")
    cases = [
        ("full_causal", "full", True, False, 70, {}),
        ("full_bidir", "full", False, True, 71, {}),
        ("window_causal", "window:20", True, False, 72, {}),
        ("window_bidir", "window:24", False, True, 73, {}),
        ("longformer_causal", "longformer:16,3", True, False, 74, {}),
        ("longformer_bidir", "longformer:16,3", False, True, 75, {}),
        ("bigbird_bidir", "bigbird:16,2,1", False, True, 76, {"seed": 7}),
        ("bigbird_causal", "bigbird:16,1,1", True, False, 77, {"seed": 3}),
        ("linformer", "linformer:12", False, True, 78, {"max_len": 160}),
        ("performer_bidir", "performer:24", False, True, 79, {}),
        ("performer_causal", "performer:24", True, False, 80, {}),
        ("linear_bidir", "linear", False, True, 81, {}),
        ("linear_causal", "linear", True, False, 82, {}),
    ]
    for name, kind, causal, padded, gen_seed, extra in cases:
        g = torch.Generator().manual_seed(gen_seed)
        kind_name, params = parse_kind(kind)
        std = 0.5 if kind_name == "performer" else 0.7  # performer: keep exp(W x~ - |x~|^2 / 2) tame
        q, k, v = [torch.randn(seq_len, n_heads * head_dim, generator=g) * std for _ in range(3)]
        d_output = torch.randn(seq_len, n_heads * head_dim, generator=g)
        config = {"kind": kind, "causal": causal, "seq_len": seq_len, "n_heads": n_heads, "head_dim": head_dim,
                  "scale": scale}
        config.update(extra)
        tensors = {"q": q, "k": k, "v": v}
        kwargs = {}
        leaves = {"q": q.double().requires_grad_(), "k": k.double().requires_grad_(),
                  "v": v.double().requires_grad_()}
        if padded:
            key_padding = torch.zeros(seq_len, dtype=torch.bool)
            key_padding[-n_padded:] = True
            kwargs["key_padding"] = key_padding
            tensors["key_padding"] = key_padding.float()
        if kind_name == "bigbird":
            kwargs["seed"] = extra["seed"]
        elif kind_name == "linformer":
            tensors["E"] = torch.randn(params[0], extra["max_len"], generator=g) * 0.3
            tensors["F"] = torch.randn(params[0], extra["max_len"], generator=g) * 0.3
            leaves["e"] = tensors["E"].double().requires_grad_()
            leaves["f"] = tensors["F"].double().requires_grad_()
        elif kind_name == "performer":
            kwargs["w"] = tensors["W"] = performer_features(params[0], head_dim, g)
        result = attend_kind(kind, causal, leaves["q"], leaves["k"], leaves["v"], n_heads, scale,
                             e=leaves.get("e"), f=leaves.get("f"), **kwargs)
        output = result["output"]
        output.backward(d_output.double())
        grads = {key: x.grad.clone() for key, x in leaves.items()}
        if "blocked" in result:
            # A query row with no allowed key (bidirectional window with padding: rows >= T - 23 + W // 2) has output 0
            # and gets no gradient (masked_softmax's torch.where; masked_fill's backward drops softmax's NaN).
            empty = result["blocked"].all(dim=-1)
            assert name != "window_bidir" or empty.any(), "%s: no query row without keys any more" % name
            assert (output[empty] == 0).all() and (grads["q"][empty] == 0).all(), "%s: empty rows not 0" % name
        KIND_GRAD_FD_ERRORS[name] = check_kind_grads(name, kind, causal, padded, n_heads, scale, leaves, kwargs,
                                                     d_output, output.detach(), grads,
                                                     torch.Generator().manual_seed(gen_seed + 1000))
        tensors["d_output"] = d_output
        tensors["output"] = output
        for key, tensor_name in [("q", "d_q"), ("k", "d_k"), ("v", "d_v"), ("e", "d_E"), ("f", "d_F")]:
            if key in grads:
                tensors[tensor_name] = grads[key]
        write_golden(out_dir, "kind_grad_" + name, "%s, %s%s; output and gradients by torch autograd in float64 for "
                     "d_output (L = sum(output * d_output)), float64 -> float32" % (
                         KIND_DESCRIPTIONS[kind_name], "causal" if causal else "bidirectional",
                         ", last %d keys padded" % n_padded if padded else ""), config, tensors)


GENERATORS = [gen_ops, gen_scaled_dot_product, gen_multi_head_attention, gen_encoder_layers, gen_sinusoidal,
              gen_rotary, gen_alignment, gen_gpt2_tiny, gen_attention_kinds, gen_attention_kind_grads]


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for gen in GENERATORS:
        gen(out_dir)


def compare(committed_dir, fresh_dir, tolerance):
    """Returns a list of human-readable differences between two golden directories."""
    problems = []
    fresh_files = sorted(f for f in os.listdir(fresh_dir) if f.endswith(".json"))
    committed_files = sorted(f for f in os.listdir(committed_dir) if f.endswith(".json"))
    for name in sorted(set(fresh_files) ^ set(committed_files)):
        problems.append("%s: present in only one of the directories" % name)
    for name in sorted(set(fresh_files) & set(committed_files)):
        with open(os.path.join(committed_dir, name)) as f:
            old = json.load(f)
        with open(os.path.join(fresh_dir, name)) as f:
            new = json.load(f)
        if old.get("config") != new.get("config"):
            problems.append("%s: config differs: %s vs %s" % (name, old.get("config"), new.get("config")))
        old_t, new_t = old["tensors"], new["tensors"]
        for key in sorted(set(old_t) ^ set(new_t)):
            problems.append("%s: tensor %s present in only one version" % (name, key))
        for key in sorted(set(old_t) & set(new_t)):
            if old_t[key]["shape"] != new_t[key]["shape"]:
                problems.append("%s: %s shape %s vs %s" % (name, key, old_t[key]["shape"], new_t[key]["shape"]))
                continue
            # Relative above 1 so that a few float32 ulps of a large value (another BLAS) still pass.
            diff = max((abs(a - b) / max(1.0, abs(a)) for a, b in zip(old_t[key]["data"], new_t[key]["data"])),
                       default=0.0)
            if not diff <= tolerance:
                problems.append("%s: %s max diff %.3g > %.3g" % (name, key, diff, tolerance))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory (default tests/data/attention)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and compare with --out instead of writing")
    parser.add_argument("--tolerance", type=float, default=1e-6,
                        help="max |a - b| / max(1, |a|) allowed by --check")
    parser.add_argument("--require-torch", action="store_true", help="fail (exit 2) when torch is not importable")
    args = parser.parse_args()
    if torch is None:
        print("gen_attention_goldens: torch is not importable by %s; use /usr/bin/python3 (python3-torch)"
              % sys.executable, file=sys.stderr)
        return 2 if (args.require_torch or not args.check) else 0
    if not args.check:
        generate(args.out)
        print("wrote goldens to %s" % os.path.normpath(args.out))
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        problems = compare(args.out, fresh, args.tolerance)
    if problems:
        print("goldens differ from a fresh PyTorch %s run:" % torch.__version__)
        for p in problems:
            print("  " + p)
        return 1
    print("goldens in %s match a fresh PyTorch %s run (tolerance %g)" % (os.path.normpath(args.out),
                                                                          torch.__version__, args.tolerance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
