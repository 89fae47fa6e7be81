#!/usr/bin/python3
"""How far Performer and Linformer are from exact attention on a real model's queries, keys and values.

    /usr/bin/python3 scripts/attention_approx_error.py --model m-fit --text valid.txt [--tokvec build/tokvec]

Takes a full-attention gpt2 model directory (config.json + model.safetensors with Hugging Face GPT-2 names, as
`tokvec init --arch gpt2` and `tokvec fit` write them; learned positions), tokenizes the text with `tokvec encode -m
DIR` (the model directory's own tokenizer), cuts --sequences windows of --seq-len tokens spread evenly over it, and
runs the model's forward pass in torch float64 (wte + wpe, then per layer ln_1, c_attn [C, 3C] as Conv1D y = x·W + b,
causal softmax attention, c_proj, ln_2, c_fc, gelu_new, c_proj; training/gpt2_model.h). Each layer's Q, K and V
(what its causal attention really saw) are kept, and on them, per head, BIDIRECTIONAL attention is computed three ways
(Linformer is bidirectional only, so both approximations are measured without the causal mask):

  exact      softmax(Q Kᵀ/√Dh) V
  performer  FAVOR+ (Choromanski et al. 2021) with M ∈ {16, 32, 64, 128, 256} positive orthogonal random features:
             φ(x) = exp(W x̃ − ‖x̃‖²/2)/√M, x̃ = Dh^(-1/4) x, W drawn by performer_features() of
             scripts/gen_attention_goldens.py (blocks of orthogonal rows with χ(Dh) norms; it returns W in float32,
             used here as float64), one W per layer shared by the heads as in tokvec
  linformer  Linformer (Wang et al. 2020) with UNTRAINED projections: E, F ~ N(0, 1/K) of shape [K, T], i.e. the
             Johnson-Lindenstrauss random projection a Linformer layer starts from, not the learned E, F of a trained
             Linformer, for K ∈ {16, 32, 64, 128}

through attend_kind() of scripts/gen_attention_goldens.py (the float64 reference the attention goldens come from).
The error is ‖approx − exact‖_F / ‖exact‖_F of a layer's output [T, C] (all heads), averaged over the sequences and
over --seeds draws of W (performer) or of E, F (linformer); the table gives it per layer and the mean over layers.
With --tokvec (default: build/tokvec), the same is measured on a random-init model of the same shape (`tokvec init`,
--init-seed) for contrast: its queries and keys are near 0, so its attention is near uniform and easy to approximate.

Self-check: before measuring, the script's forward pass is compared with `tokvec embed` (the hidden states after
ln_f) on the start of the text; it stops if they differ by more than 1e-3 (a layout it misreads).

Exit 0 with the tables on stdout; 1 with "error: ..." on a bad model, text or tokvec failure.
"""

import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_attention_goldens import attend_kind, performer_features  # noqa: E402  (the reference implementations)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERFORMER_FEATURES = [16, 32, 64, 128, 256]
LINFORMER_ROWS = [16, 32, 64, 128]


class Error(Exception):
    pass


def read_safetensors(path):
    """{name: float64 tensor} of a safetensors file (F32, F16 or BF16)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror))
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        start, end = (8 + n + o for o in t["data_offsets"])
        raw = data[start:end]
        if t["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        elif t["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2").astype(np.float64)
        elif t["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        else:
            raise Error("%s: tensor %s has dtype %s; expected F32, F16 or BF16" % (path, name, t["dtype"]))
        tensors[name.removeprefix("transformer.")] = torch.from_numpy(a.reshape(t["shape"]).copy())
    return tensors


class Gpt2:
    """A Hugging Face GPT-2 checkpoint in float64, with a forward pass that keeps each layer's Q, K, V."""

    def __init__(self, model_dir):
        config_path = os.path.join(model_dir, "config.json")
        try:
            with open(config_path) as f:
                c = json.load(f)
        except (OSError, ValueError) as e:
            raise Error("cannot read %s: %s" % (config_path, e))
        if c.get("model_type") != "gpt2":
            raise Error("%s: model_type is %r; this script reads gpt2 models (tokvec init --arch gpt2, tokvec fit, "
                        "Hugging Face GPT-2)" % (config_path, c.get("model_type")))
        if c.get("position_embedding_type", "absolute") != "absolute":
            raise Error("%s: position_embedding_type %r; only learned positions (wpe) are supported"
                        % (config_path, c["position_embedding_type"]))
        kinds = c.get("attention", "full")
        if any(k != "full" for k in (kinds if isinstance(kinds, list) else [kinds])):
            raise Error("%s: attention %r; the model must use full attention (its Q, K, V are measured against "
                        "exact softmax attention)" % (config_path, kinds))
        if c.get("activation_function", "gelu_new") not in ("gelu_new", "gelu"):
            raise Error("%s: activation_function %r; expected gelu_new or gelu" % (config_path,
                                                                                    c["activation_function"]))
        self.d_model, self.n_heads, self.n_layers = c["n_embd"], c["n_head"], c["n_layer"]
        self.n_positions = c["n_positions"]
        self.eps = c.get("layer_norm_epsilon", 1e-5)
        self.exact_gelu = c.get("activation_function", "gelu_new") == "gelu"
        self.head_dim = self.d_model // self.n_heads
        self.p = read_safetensors(os.path.join(model_dir, "model.safetensors"))
        for name in ["wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"] + [
                "h.%d.%s" % (l, s) for l in range(self.n_layers) for s in (
                    "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                    "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
                    "mlp.c_proj.weight", "mlp.c_proj.bias")]:
            if name not in self.p:
                raise Error("%s/model.safetensors has no tensor %s" % (model_dir, name))

    def layer_norm(self, x, prefix):
        return torch.nn.functional.layer_norm(x, (self.d_model,), self.p[prefix + ".weight"], self.p[prefix + ".bias"],
                                              self.eps)

    def forward(self, ids):
        """ids [T] -> (hidden after ln_f [T, C], [(q, k, v) [T, C] each, per layer])."""
        t = len(ids)
        x = self.p["wte.weight"][torch.tensor(ids)] + self.p["wpe.weight"][:t]  # [T, C]
        qkvs = []
        for l in range(self.n_layers):
            h = "h.%d." % l
            qkv = self.layer_norm(x, h + "ln_1") @ self.p[h + "attn.c_attn.weight"] + self.p[h + "attn.c_attn.bias"]
            q, k, v = qkv.split(self.d_model, dim=1)  # [T, C] each
            qkvs.append((q, k, v))
            a = attend_kind("full", True, q, k, v, self.n_heads, 1.0 / math.sqrt(self.head_dim))["output"]
            x = x + a @ self.p[h + "attn.c_proj.weight"] + self.p[h + "attn.c_proj.bias"]
            m = self.layer_norm(x, h + "ln_2") @ self.p[h + "mlp.c_fc.weight"] + self.p[h + "mlp.c_fc.bias"]
            m = torch.nn.functional.gelu(m, approximate="none" if self.exact_gelu else "tanh")
            x = x + m @ self.p[h + "mlp.c_proj.weight"] + self.p[h + "mlp.c_proj.bias"]
        return self.layer_norm(x, "ln_f"), qkvs


def run(cmd, stdin=None):
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True)
    except OSError as e:
        raise Error("cannot run %s: %s" % (cmd[0], e.strerror))
    if p.returncode != 0:
        raise Error("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace").strip()))
    return p.stdout


def self_check(tokvec, model_dir, model, text):
    """Compares the float64 forward pass with `tokvec embed` on the start of the text; returns the max difference."""
    prefix = text[:600]
    while True:
        try:
            out = json.loads(run([tokvec, "embed", "-m", model_dir, "--format", "json"], prefix.encode()))
            break
        except Error:
            if len(prefix) < 50:
                raise
            prefix = prefix[: len(prefix) // 2]  # longer than the model's max length: shorter
    hidden, _ = model.forward(out["ids"])
    return (hidden - torch.tensor(out["vectors"], dtype=torch.float64)).abs().max().item()


def relative_error(approx, exact):
    return ((approx - exact).norm() / exact.norm()).item()


def measure(model, sequences, seeds):
    """{("performer", M) or ("linformer", K): [mean relative error of layer l for l in layers]}."""
    scale = 1.0 / math.sqrt(model.head_dim)
    t = len(sequences[0])
    errors = {("performer", m): [[] for _ in range(model.n_layers)] for m in PERFORMER_FEATURES}
    errors.update({("linformer", k): [[] for _ in range(model.n_layers)] for k in LINFORMER_ROWS})
    for ids in sequences:
        _, qkvs = model.forward(ids)
        for l, (q, k, v) in enumerate(qkvs):
            exact = attend_kind("full", False, q, k, v, model.n_heads, scale)["output"]
            for seed in range(seeds):
                for m in PERFORMER_FEATURES:
                    g = torch.Generator().manual_seed(1000003 * seed + 1009 * l + m)
                    w = performer_features(m, model.head_dim, g)
                    out = attend_kind("performer:%d" % m, False, q, k, v, model.n_heads, scale, w=w)["output"]
                    errors[("performer", m)][l].append(relative_error(out, exact))
                for rows in LINFORMER_ROWS:
                    g = torch.Generator().manual_seed(1000003 * seed + 1009 * l + rows + 7)
                    e = torch.randn(rows, t, generator=g, dtype=torch.float64) / math.sqrt(rows)
                    f = torch.randn(rows, t, generator=g, dtype=torch.float64) / math.sqrt(rows)
                    out = attend_kind("linformer:%d" % rows, False, q, k, v, model.n_heads, scale, e=e, f=f)["output"]
                    errors[("linformer", rows)][l].append(relative_error(out, exact))
    return {key: [sum(v) / len(v) for v in per_layer] for key, per_layer in errors.items()}


def markdown(title, errors, n_layers):
    keys = [("performer", m) for m in PERFORMER_FEATURES] + [("linformer", k) for k in LINFORMER_ROWS]
    lines = ["### " + title, "",
             "| layer | " + " | ".join("performer M=%d" % m for m in PERFORMER_FEATURES) + " | " +
             " | ".join("linformer K=%d" % k for k in LINFORMER_ROWS) + " |",
             "|---" * (1 + len(keys)) + "|"]
    for l in range(n_layers):
        lines.append("| %d | " % l + " | ".join("%.3f" % errors[key][l] for key in keys) + " |")
    lines.append("| **mean** | " + " | ".join("**%.3f**" % (sum(errors[key]) / n_layers) for key in keys) + " |")
    return "\n".join(lines)


def find_tokenizer(model_dir):
    for name in ("tokenizer.tokvec", "tokenizer.json", "vocab.json"):
        if os.path.exists(os.path.join(model_dir, name)):
            return os.path.join(model_dir, name)
    raise Error("%s has no tokenizer.tokvec, tokenizer.json or vocab.json" % model_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a trained full-attention gpt2 model directory")
    parser.add_argument("--text", required=True, help="text to take the sequences from (held-out text, ideally)")
    parser.add_argument("--tokvec", default=os.path.join(ROOT, "build", "tokvec"), help="the tokvec binary")
    parser.add_argument("--seq-len", type=int, default=256, help="tokens per sequence T (default 256, at most "
                        "the model's n_positions)")
    parser.add_argument("--sequences", type=int, default=4, help="sequences, spread evenly over the text")
    parser.add_argument("--seeds", type=int, default=5, help="draws of W (performer) and E, F (linformer) averaged")
    parser.add_argument("--no-random-init", action="store_true", help="skip the random-init model for contrast")
    parser.add_argument("--init-seed", type=int, default=1, help="--seed of the random-init model")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    try:
        if shutil.which(args.tokvec) is None:
            raise Error("tokvec binary %s not found or not executable (pass --tokvec)" % args.tokvec)
        model = Gpt2(args.model)
        t = min(args.seq_len, model.n_positions)
        if t < max(LINFORMER_ROWS):
            raise Error("--seq-len %d: must be at least %d (the largest linformer K)" % (t, max(LINFORMER_ROWS)))
        try:
            with open(args.text, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise Error("cannot read %s: %s" % (args.text, e.strerror))
        ids = [int(i) for i in run([args.tokvec, "encode", "-m", args.model, args.text]).split()]
        if len(ids) < args.sequences * t:
            raise Error("%s has %d tokens; %d sequences of %d need %d" % (args.text, len(ids), args.sequences, t,
                                                                        args.sequences * t))
        stride = len(ids) // args.sequences
        sequences = [ids[i * stride: i * stride + t] for i in range(args.sequences)]
        diff = self_check(args.tokvec, args.model, model, text)
        print("self-check: max |forward - tokvec embed| = %.2e on the start of the text" % diff, file=sys.stderr)
        if diff > 1e-3:
            raise Error("the float64 forward pass differs from tokvec embed by %.3g; the model layout is misread" % diff)
        print("%s: %d layers, d_model %d, %d heads of %d; %d sequences of %d tokens from %s; %d seeds"
              % (args.model, model.n_layers, model.d_model, model.n_heads, model.head_dim, args.sequences, t,
                 args.text, args.seeds), file=sys.stderr)
        title = ("Relative error ‖approx − exact‖_F / ‖exact‖_F of bidirectional attention on the Q, K, V of %s "
                 "(%d × %d tokens, mean of %d seeds; linformer: untrained N(0, 1/K) projections)"
                 % (os.path.basename(os.path.normpath(args.model)), args.sequences, t, args.seeds))
        print(markdown(title, measure(model, sequences, args.seeds), model.n_layers))
        if not args.no_random_init:
            with tempfile.TemporaryDirectory() as tmp:
                init_dir = os.path.join(tmp, "init")
                run([args.tokvec, "init", "--tokenizer", find_tokenizer(args.model), "--arch", "gpt2",
                     "--d-model", str(model.d_model), "--heads", str(model.n_heads), "--layers", str(model.n_layers),
                     "--max-len", str(model.n_positions), "--seed", str(args.init_seed), "-o", init_dir])
                random_model = Gpt2(init_dir)
            print()
            print(markdown("The same on a random-init model of the same shape (tokvec init --seed %d)"
                           % args.init_seed, measure(random_model, sequences, args.seeds), model.n_layers))
    except Error as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
