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


GENERATORS = [gen_ops, gen_scaled_dot_product, gen_multi_head_attention, gen_encoder_layers, gen_sinusoidal,
              gen_rotary, gen_alignment, gen_gpt2_tiny]


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
