#!/usr/bin/python3
"""Writes the PyTorch autograd / torch.optim reference ("goldens") that tests/training/parity_test.cc compares
tokvec's GPT-2 training against.

Run with Debian's python3-torch (1.13), not a pyenv python:

    /usr/bin/python3 scripts/gen_training_goldens.py              # rewrite tests/data/training/
    /usr/bin/python3 scripts/gen_training_goldens.py --check      # regenerate into a temp dir and compare
    /usr/bin/python3 scripts/gen_training_goldens.py --out DIR    # write somewhere else

--check exits 0 when every regenerated tensor matches the committed one (same names, shapes, values within
--tolerance, default 1e-6, as |a - b| / max(1, |a|)), 1 with a list of differences otherwise, and 0 with a note
when torch is missing (pass --require-torch to make that an error).

What is written (everything float32, safetensors files written by this script, no safetensors package needed):

  tiny_gpt2/config.json         GPT-2 keys (vocab 50, n_embd 16, 2 heads, 2 layers, n_inner 64, n_positions 8,
                                gelu_new), the layout `tokvec init --arch gpt2` writes
  tiny_gpt2/model.safetensors   the starting weights (seeded, see init_weights), Hugging Face names
  tiny_encoder/                 the same for tokvec's encoder (n_inner 32, relu, post-LN, bidirectional)
  golden.safetensors
    encoder.inputs, .targets, .lengths, .loss, .grad.<name>   the encoder's batch with key padding (lengths
                                [8, 5]), loss and autograd gradients
    batch.inputs, batch.targets [STEPS, ACCUM, B, T] token ids as floats; targets of -1 are ignored
    loss                        [1] mean cross-entropy of micro-batch (0, 0)
    grad.<name>                 d loss / d <name> for micro-batch (0, 0), from autograd
    adamw.loss, adamw.grad_norm, adamw.lr   [STEPS] per optimizer step (loss = mean over the ACCUM micro-batches,
                                grad_norm before clipping, lr used)
    adamw.<name>                the weights after STEPS torch.optim.AdamW steps with gradient accumulation,
                                clip_grad_norm_ and linear warmup + cosine decay (nanoGPT's loop)
    sgd.<name>                  the weights after STEPS torch.optim.SGD (momentum) steps, same loop
  The hyper-parameters are in golden.safetensors' __metadata__ so the C++ test reads them from there.

The model is a plain-torch GPT-2 (Radford et al. 2019) with Conv1D weights [in, out] as in Hugging Face:
pre-LN blocks, causal attention, gelu tanh, ln_f and the LM head tied to wte; loss = F.cross_entropy(
ignore_index=-1). AdamW decays only tensors with 2+ dimensions (nanoGPT's configure_optimizers).
"""

import argparse
import json
import math
import os
import struct
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:  # Reported by main(); --check without torch is a no-op.
    torch = None

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "training")

CONFIG = {"model_type": "gpt2", "n_embd": 16, "n_head": 2, "n_layer": 2, "n_inner": 64, "n_positions": 8,
          "vocab_size": 50, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
B, T, ACCUM, STEPS = 2, 8, 2, 5
# The encoder (Vaswani et al. 2017, tokvec's `init --arch encoder`): post-LN, bidirectional, ReLU, sinusoidal
# positions, token table scaled by sqrt(d_model), no wpe / ln_f; trained through the tied head with a key-padding
# mask (rows of ENCODER_LENGTHS real tokens, the rest padding).
ENCODER = {"model_type": "encoder", "n_embd": 16, "n_head": 2, "n_layer": 2, "n_inner": 32, "n_positions": 8,
           "vocab_size": 50, "layer_norm_epsilon": 1e-5, "activation_function": "relu"}
ENCODER_LENGTHS = [8, 5]
HYPER = {"lr": 1e-2, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1, "clip": 1.0, "warmup": 2,
         "momentum": 0.9, "sgd_lr": 0.05}


def parameter_shapes(config=None):
    config = config or CONFIG
    gpt2 = config["model_type"] == "gpt2"
    c, f, v, n = config["n_embd"], config["n_inner"], config["vocab_size"], config["n_positions"]
    shapes = [("wte.weight", [v, c])] + ([("wpe.weight", [n, c])] if gpt2 else [])
    for i in range(config["n_layer"]):
        p = "h.%d." % i
        shapes += [(p + "ln_1.weight", [c]), (p + "ln_1.bias", [c]),
                   (p + "attn.c_attn.weight", [c, 3 * c]), (p + "attn.c_attn.bias", [3 * c]),
                   (p + "attn.c_proj.weight", [c, c]), (p + "attn.c_proj.bias", [c]),
                   (p + "ln_2.weight", [c]), (p + "ln_2.bias", [c]),
                   (p + "mlp.c_fc.weight", [c, f]), (p + "mlp.c_fc.bias", [f]),
                   (p + "mlp.c_proj.weight", [f, c]), (p + "mlp.c_proj.bias", [c])]
    return shapes + ([("ln_f.weight", [c]), ("ln_f.bias", [c])] if gpt2 else [])


def init_weights(config=None, seed=1234):
    """Seeded weights large enough that every gradient is well above float32 noise: matrices normal(0, 0.2),
    biases normal(0, 0.05), LayerNorm gains 1 + normal(0, 0.1)."""
    g = torch.Generator().manual_seed(seed)
    params = {}
    for name, shape in parameter_shapes(config):
        if len(shape) >= 2:
            t = torch.randn(shape, generator=g) * 0.2
        elif name.startswith("ln_") or ".ln_" in name:
            t = (1.0 + torch.randn(shape, generator=g) * 0.1) if name.endswith("weight") else \
                torch.randn(shape, generator=g) * 0.05
        else:
            t = torch.randn(shape, generator=g) * 0.05
        params[name] = t.float().requires_grad_(True)
    return params


def make_batches():
    g = torch.Generator().manual_seed(99)
    inputs = torch.randint(0, CONFIG["vocab_size"], (STEPS, ACCUM, B, T), generator=g)
    targets = torch.randint(0, CONFIG["vocab_size"], (STEPS, ACCUM, B, T), generator=g)
    ignore = torch.rand((STEPS, ACCUM, B, T), generator=g) < 0.15
    targets[ignore] = -1
    return inputs, targets


def forward(p, ids, targets):
    """Mean cross-entropy of a [B, T] batch; every op spelled out as in nanoGPT's model.py."""
    c, h, eps = CONFIG["n_embd"], CONFIG["n_head"], CONFIG["layer_norm_epsilon"]
    bsz, t = ids.shape
    x = p["wte.weight"][ids] + p["wpe.weight"][:t]                     # [B, T, C]
    causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
    for i in range(CONFIG["n_layer"]):
        w = lambda n: p["h.%d.%s" % (i, n)]
        a = F.layer_norm(x, (c,), w("ln_1.weight"), w("ln_1.bias"), eps)
        qkv = a @ w("attn.c_attn.weight") + w("attn.c_attn.bias")   # [B, T, 3C]
        q, k, v = qkv.split(c, dim=2)
        q, k, v = (z.view(bsz, t, h, c // h).transpose(1, 2) for z in (q, k, v))  # [B, H, T, Dh]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // h)         # [B, H, T, T]
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(bsz, t, c)            # [B, T, C]
        x = x + (y @ w("attn.c_proj.weight") + w("attn.c_proj.bias"))
        m = F.layer_norm(x, (c,), w("ln_2.weight"), w("ln_2.bias"), eps)
        m = F.gelu(m @ w("mlp.c_fc.weight") + w("mlp.c_fc.bias"), approximate="tanh")
        x = x + (m @ w("mlp.c_proj.weight") + w("mlp.c_proj.bias"))
    x = F.layer_norm(x, (c,), p["ln_f.weight"], p["ln_f.bias"], eps)
    logits = x @ p["wte.weight"].t()                                 # [B, T, V], tied head
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)


def forward_encoder(p, ids, targets, lengths):
    """Mean cross-entropy of the encoder on a [B, T] batch with key padding (keys t >= lengths[b] masked)."""
    c, h, eps = ENCODER["n_embd"], ENCODER["n_head"], ENCODER["layer_norm_epsilon"]
    bsz, t = ids.shape
    pos = torch.arange(t, dtype=torch.float64)[:, None]
    pair = torch.arange(0, c, 2, dtype=torch.float64)[None, :]
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), pair / c)
    pe = torch.zeros(t, c, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)
    x = p["wte.weight"][ids] * float(math.sqrt(c)) + pe.float()                # [B, T, C]
    padding = torch.arange(t)[None, :] >= lengths[:, None]                      # [B, T] True = padding
    for i in range(ENCODER["n_layer"]):
        w = lambda n: p["h.%d.%s" % (i, n)]
        q, k, v = (x @ w("attn.c_attn.weight") + w("attn.c_attn.bias")).split(c, dim=2)
        q, k, v = (z.view(bsz, t, h, c // h).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // h)
        att = att.masked_fill(padding[:, None, None, :], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(bsz, t, c)
        x = F.layer_norm(x + (y @ w("attn.c_proj.weight") + w("attn.c_proj.bias")), (c,), w("ln_1.weight"),
                         w("ln_1.bias"), eps)
        m = F.relu(x @ w("mlp.c_fc.weight") + w("mlp.c_fc.bias")) @ w("mlp.c_proj.weight") + w("mlp.c_proj.bias")
        x = F.layer_norm(x + m, (c,), w("ln_2.weight"), w("ln_2.bias"), eps)
    logits = x @ p["wte.weight"].t()
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)


def scheduled_lr(step, lr):
    """tokvec's schedule (training/optimizer.h): warmup lr*(s+1)/W, then cosine to 0 over the remaining steps."""
    w = HYPER["warmup"]
    if step < w:
        return lr * (step + 1) / w
    p = min(1.0, (step - w) / max(1, STEPS - w))
    return lr * 0.5 * (1.0 + math.cos(math.pi * p))


def train(kind, inputs, targets):
    p = init_weights()
    decay = [t for n, t in p.items() if t.dim() >= 2]
    no_decay = [t for n, t in p.items() if t.dim() < 2]
    groups = [{"params": decay, "weight_decay": HYPER["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}]
    if kind == "adamw":
        opt = torch.optim.AdamW(groups, lr=HYPER["lr"], betas=(HYPER["beta1"], HYPER["beta2"]), eps=HYPER["eps"])
        base_lr = HYPER["lr"]
    else:
        opt = torch.optim.SGD(groups, lr=HYPER["sgd_lr"], momentum=HYPER["momentum"])
        base_lr = HYPER["sgd_lr"]
    losses, norms, lrs = [], [], []
    for s in range(STEPS):
        lr = scheduled_lr(s, base_lr)
        for group in opt.param_groups:
            group["lr"] = lr
        total = 0.0
        for k in range(ACCUM):
            loss = forward(p, inputs[s, k], targets[s, k]) / ACCUM
            loss.backward()
            total += loss.item()
        norm = torch.nn.utils.clip_grad_norm_(list(p.values()), HYPER["clip"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(total)
        norms.append(float(norm))
        lrs.append(lr)
    return p, losses, norms, lrs


def write_safetensors(path, tensors, metadata=None):
    """tensors: name -> float32 numpy array. Entries sorted by name, header padded with spaces to 8 bytes."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - (len(text) + 8) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(path + ".tmp", path)


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + end], dtype="<f4").reshape(e["shape"])
    return out


def generate(out_dir):
    torch.set_num_threads(1)
    os.makedirs(os.path.join(out_dir, "tiny_gpt2"), exist_ok=True)
    with open(os.path.join(out_dir, "tiny_gpt2", "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    start = init_weights()
    write_safetensors(os.path.join(out_dir, "tiny_gpt2", "model.safetensors"),
                      {n: t.detach().numpy() for n, t in start.items()}, {"format": "pt"})
    inputs, targets = make_batches()
    golden = {"batch.inputs": inputs.float().numpy(), "batch.targets": targets.float().numpy()}
    loss = forward(start, inputs[0, 0], targets[0, 0])
    loss.backward()
    golden["loss"] = np.array([loss.item()], dtype=np.float32)
    for n, t in start.items():
        golden["grad." + n] = t.grad.numpy()
    for kind in ("adamw", "sgd"):
        p, losses, norms, lrs = train(kind, inputs, targets)
        for n, t in p.items():
            golden[kind + "." + n] = t.detach().numpy()
        golden[kind + ".loss"] = np.array(losses, dtype=np.float32)
        golden[kind + ".grad_norm"] = np.array(norms, dtype=np.float32)
        golden[kind + ".lr"] = np.array(lrs, dtype=np.float32)
    # The encoder: gradients with a key-padding mask; padded positions and ~40% of the rest have no target.
    os.makedirs(os.path.join(out_dir, "tiny_encoder"), exist_ok=True)
    with open(os.path.join(out_dir, "tiny_encoder", "config.json"), "w") as f:
        json.dump(ENCODER, f, indent=2)
        f.write("\n")
    enc = init_weights(ENCODER, seed=4321)
    write_safetensors(os.path.join(out_dir, "tiny_encoder", "model.safetensors"),
                      {n: t.detach().numpy() for n, t in enc.items()}, {"format": "pt"})
    g = torch.Generator().manual_seed(7)
    lengths = torch.tensor(ENCODER_LENGTHS)
    ids = torch.randint(0, ENCODER["vocab_size"], (B, T), generator=g)
    targets = torch.randint(0, ENCODER["vocab_size"], (B, T), generator=g)
    targets[(torch.rand((B, T), generator=g) < 0.4) | (torch.arange(T)[None, :] >= lengths[:, None])] = -1
    loss = forward_encoder(enc, ids, targets, lengths)
    loss.backward()
    golden.update({"encoder.inputs": ids.float().numpy(), "encoder.targets": targets.float().numpy(),
                   "encoder.lengths": lengths.float().numpy(), "encoder.loss": np.array([loss.item()], np.float32)})
    for n, t in enc.items():
        golden["encoder.grad." + n] = t.grad.numpy()
    metadata = {k: repr(v) for k, v in HYPER.items()}
    metadata.update({"B": str(B), "T": str(T), "accum": str(ACCUM), "steps": str(STEPS), "schedule": "cosine",
                     "torch": torch.__version__})
    write_safetensors(os.path.join(out_dir, "golden.safetensors"), golden, metadata)


def compare(old_dir, new_dir, tolerance):
    problems = []
    for name in ("tiny_gpt2/model.safetensors", "tiny_encoder/model.safetensors", "golden.safetensors"):
        old_path = os.path.join(old_dir, name)
        if not os.path.exists(old_path):
            problems.append("%s: missing from %s" % (name, old_dir))
            continue
        old, new = read_safetensors(old_path), read_safetensors(os.path.join(new_dir, name))
        for key in sorted(set(old) ^ set(new)):
            problems.append("%s: tensor %s only on one side" % (name, key))
        for key in sorted(set(old) & set(new)):
            if old[key].shape != new[key].shape:
                problems.append("%s: %s shape %s vs %s" % (name, key, old[key].shape, new[key].shape))
                continue
            a, b = old[key].astype(np.float64), new[key].astype(np.float64)
            diff = float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a)))) if a.size else 0.0
            if not diff <= tolerance:
                problems.append("%s: %s max diff %.3g > %.3g" % (name, key, diff, tolerance))
    for folder, config in (("tiny_gpt2", CONFIG), ("tiny_encoder", ENCODER)):
        with open(os.path.join(old_dir, folder, "config.json")) as f:
            if json.load(f) != config:
                problems.append("%s/config.json differs from the script's config" % folder)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory (default tests/data/training)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and compare with --out instead of writing")
    parser.add_argument("--tolerance", type=float, default=1e-6, help="max |a - b| / max(1, |a|) allowed by --check")
    parser.add_argument("--require-torch", action="store_true", help="fail (exit 2) when torch is not importable")
    args = parser.parse_args()
    if torch is None:
        print("gen_training_goldens: torch is not importable by %s; use /usr/bin/python3 (python3-torch)"
              % sys.executable, file=sys.stderr)
        return 2 if (args.require_torch or not args.check) else 0
    if not args.check:
        generate(args.out)
        print("wrote training goldens to %s" % os.path.normpath(args.out))
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        problems = compare(args.out, fresh, args.tolerance)
    if problems:
        print("training goldens differ from a fresh PyTorch %s run:" % torch.__version__)
        for p in problems:
            print("  " + p)
        return 1
    print("training goldens in %s match a fresh PyTorch %s run (tolerance %g)" % (os.path.normpath(args.out),
                                                                                   torch.__version__, args.tolerance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
