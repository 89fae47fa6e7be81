#!/usr/bin/python3
"""Start-up: the time from a cold process to the first vector (issue 18, item 4), tokvec against PyTorch and ONNX
Runtime, same weights, one short line, same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/startup.py --tokvec build/tokvec [--rounds 7] [--threads 1]
    (`bench/embed_model.sh build/tokvec --startup` sets this up; bench/run_all.sh calls it)

Models: bench/embed_model.py's random-weight GPT-2 small and BERT-base directories (safetensors F32, 498 MB and
436 MB, written once into its cache; their ONNX exports are written there too). The file cache is warm: every
process reads the same files, and the first, untimed round reads them in.

Each system is a new process per round, timed from spawn to exit (wall), with its user + system CPU time:
  tokvec   `tokvec embed -m DIR --pooling mean --threads N` with the line on standard input: loads the tokenizer
           (GPT-2's vocab.json + merges.txt; BERT's vocab.txt), maps the safetensors file (embeddings and norms
           are read in place) and, on an AVX-512 CPU, packs each projection once for its GEMM (a copy,
           kernels/pack_linears.h), tokenizes, runs the model, prints JSON.
  torch    /usr/bin/python3: import torch, read the safetensors file into tensors, build bench/embed_model.py's
           eager Encoder (nn.Linear modules), one forward under torch.inference_mode on the line's ids.
  onnxrt   node bench/startup_ort.mjs: require onnxruntime-node 1.30.0, create the session (graph optimizations
           'all', which run at creation), one run on the line's ids.
The peers get token ids made by tokvec (their tokenizer load is not counted); tokvec's figure includes its own.
Phases inside the peers (import, load, first run) are printed too. Reference floors: `tokvec --help`,
`python3 -c pass`, `node -e 0`. Checks: every system's pooled vector equals PyTorch's within 1e-4.

Prints a table and, for bench/run_all.sh, tab-separated lines: ROW <metric> <tokvec> <peer> <ratio> <target> <met>
(the ratio is peer time / tokvec time: above 1, tokvec starts faster).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import embed_model as em  # noqa: E402  (checkpoint writer, Encoder, read_safetensors)

LINE = "The quick brown fox jumps over the lazy dog."
ONNX_VERSION = "1"

TORCH_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import embed_model as em
em.set_generator_sizes()
torch.set_num_threads(int(sys.argv[4]))
w = em.read_safetensors(sys.argv[3] + "/model.safetensors")
model = em.Encoder(sys.argv[2], w).eval()
t2 = time.perf_counter()
ids = torch.tensor([[int(i) for i in sys.argv[5].split(",")]])
with torch.inference_mode():
    pooled = model(ids, torch.ones(ids.shape, dtype=torch.float32))
t3 = time.perf_counter()
print(json.dumps({"phases_ms": {"import": 1e3 * (t1 - t0), "load": 1e3 * (t2 - t1), "run": 1e3 * (t3 - t2)},
                  "pooled": pooled[0].tolist()}))
"""


def run_child(argv, stdin=None, env=None):
    """(wall seconds, cpu seconds, max RSS MB, stdout) of one child process (its own rusage, from wait4)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
    streams = {}

    def read(name, stream):
        streams[name] = stream.read()

    readers = [threading.Thread(target=read, args=(n, s)) for n, s in (("out", child.stdout), ("err", child.stderr))]
    for reader in readers:
        reader.start()
    child.stdin.write(stdin or "")
    child.stdin.close()
    for reader in readers:
        reader.join()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"error: {' '.join(argv[:3])} ... failed ({child.returncode}): {streams['err'].strip()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, streams["out"]


def export_onnx(arch, folder):
    path = folder / "model.onnx"
    stamp = folder / "onnx_version"
    if path.exists() and stamp.exists() and stamp.read_text() == ONNX_VERSION:
        return path
    print(f"exporting {path}", flush=True)
    model = em.Encoder(arch, em.read_safetensors(folder / "model.safetensors")).eval()
    ids = torch.zeros((1, 8), dtype=torch.int64)
    with torch.inference_mode():
        torch.onnx.export(model, (ids, torch.ones((1, 8))), str(path), input_names=["ids", "mask"],
                          output_names=["pooled"], opset_version=14,
                          dynamic_axes={"ids": {0: "batch", 1: "length"}, "mask": {0: "batch", 1: "length"},
                                        "pooled": {0: "batch"}})
    stamp.write_text(ONNX_VERSION)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokvec", required=True)
    parser.add_argument("--shared", default=os.environ.get("TOKVEC_SHARED_DIR", str(ROOT.parent / "shared")))
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "bench_embed_model"))
    parser.add_argument("--npm", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
        "~/.cache")), "tokvec", "npm"), help="folder whose node_modules holds onnxruntime-node")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--archs", default="gpt2,bert")
    args = parser.parse_args()
    import tokvec  # the Python module next to the binary (PYTHONPATH)

    shared, cache = pathlib.Path(args.shared), pathlib.Path(args.cache)
    em.set_generator_sizes()
    node_env = dict(os.environ, NODE_PATH=str(pathlib.Path(args.npm) / "node_modules"))
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
    floors = {"tokvec --help": [args.tokvec, "--help"], "python3 -c pass": ["/usr/bin/python3", "-c", "pass"],
              "node -e 0": ["node", "-e", "0"]}
    floor_ms = {name: 1e3 * statistics.median(run_child(argv)[0] for _ in range(5)) for name, argv in floors.items()}
    print("process floors (ms, median of 5): " + ", ".join(f"{k} {v:.1f}" for k, v in floor_ms.items()))
    rows = []
    for arch in args.archs.split(","):
        folder = cache / arch
        if not (folder / "bench_version").exists() or (folder / "bench_version").read_text() != str(em.FORMAT_VERSION):
            print(f"writing {folder}", flush=True)
            em.write_model(arch, folder, shared)
        onnx_path = export_onnx(arch, folder)
        ids = list(tokvec.Model.load(str(folder)).tokenize(LINE))  # BERT's with [CLS] ... [SEP], as embed's
        id_arg = ",".join(map(str, ids))
        systems = {
            "tokvec": lambda: run_child([args.tokvec, "embed", "-m", str(folder), "--pooling", "mean", "--threads",
                                         str(args.threads)], stdin=LINE + "\n"),
            "torch": lambda: run_child(["/usr/bin/python3", "-c", TORCH_CHILD, str(ROOT / "bench"), arch, str(folder),
                                        str(args.threads), id_arg]),
            "onnxrt": lambda: run_child(["node", str(ROOT / "bench" / "startup_ort.mjs"), str(onnx_path),
                                         str(args.threads), id_arg], env=node_env),
        }
        results = {name: [] for name in systems}
        pooled, phases = {}, {name: [] for name in systems}
        for round_index in range(args.rounds + 1):  # round 0 warms the file cache, untimed
            for name, run in systems.items():
                wall, cpu, rss, out = run()
                data = json.loads(out)
                pooled[name] = np.array(data["vectors"][0] if name == "tokvec" else data["pooled"], dtype=np.float64)
                if round_index > 0:
                    results[name].append((wall, cpu, rss))
                    if "phases_ms" in data:
                        phases[name].append(data["phases_ms"])
        diff = {name: float(np.abs(pooled[name] - pooled["torch"]).max()) for name in systems}
        med = {name: {k: statistics.median(r[i] for r in results[name]) for i, k in enumerate(("wall", "cpu", "rss"))}
               for name in systems}
        print(f"\n{arch}: {len(ids)} tokens, {args.threads} thread(s), {args.rounds} rounds (medians)")
        print(f"{'system':8} {'wall ms':>9} {'cpu ms':>9} {'max RSS MB':>11} {'max abs diff vs torch':>22}  phases (ms)")
        for name in systems:
            ph = ""
            if phases[name]:
                keys = phases[name][0].keys()
                ph = ", ".join(f"{k} {statistics.median(p[k] for p in phases[name]):.0f}" for k in keys)
            print(f"{name:8} {1e3 * med[name]['wall']:9.1f} {1e3 * med[name]['cpu']:9.1f} {med[name]['rss']:11.0f} "
                  f"{diff[name]:22.2e}  {ph}")
            if diff[name] > em.TOLERANCE:
                sys.exit(f"error: {name}'s vector differs from PyTorch's by {diff[name]:.2e} (> {em.TOLERANCE})")
        for peer in ("torch", "onnxrt"):
            label = {"torch": "PyTorch", "onnxrt": "ONNX Runtime"}[peer]
            rows.append((f"start-up to first vector, {arch}, ms wall, {args.threads} thread(s) (tokvec vs {label})",
                         f"{1e3 * med['tokvec']['wall']:.0f}", f"{1e3 * med[peer]['wall']:.0f}",
                         f"{med[peer]['wall'] / med['tokvec']['wall']:.2f}"))
    print()
    for metric, ours, theirs, ratio in rows:
        print(f"ROW\t{metric}\t{ours}\t{theirs}\t{ratio}\t-\t-")
    print(f"load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
