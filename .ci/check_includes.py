#!/usr/bin/env python3
"""Fails when a lower library includes a higher one: the graph the README and CMakeLists.txt state is the graph the
#include lines draw. Run from anywhere: python3 .ci/check_includes.py [ROOT]; --self-test proves it catches a
wrong include (it builds a small tree with one and expects the check to fail).

The libraries, lowest first (each may include itself and what its line lists):
  base; kernels; embeddings; retrieval; attention; models; tokenizer; pipeline; api; training; server; word2vec; distributed;
  cli and python (front ends: anything).
The public headers (include/tokvec/*.h, installed) include no library header at all: only the standard library,
absl and each other (<tokvec/...>); api/ implements them over the libraries.
Inside tokenizer/, stages run one way, lowest first:
  text < normalizers < pre_tokenizers < models < processors, decoders < the facade (tokenizer/*.h, *.cc)
  < formats, batch < trainers
A file may include its own stage and the stages below it."""
import os
import re
import sys
import tempfile

ALLOWED = {
    "base": {"base"},
    "kernels": {"base", "kernels"},
    "embeddings": {"base", "kernels", "embeddings"},
    "retrieval": {"base", "kernels", "embeddings", "retrieval"},
    "attention": {"base", "kernels", "embeddings", "attention"},
    "models": {"base", "kernels", "embeddings", "attention", "models"},
    "tokenizer": {"base", "tokenizer"},
    "pipeline": {"base", "kernels", "embeddings", "attention", "models", "tokenizer", "pipeline"},
    "include": set(),  # the installed public headers: nothing of the libraries
    "api": {"base", "kernels", "embeddings", "attention", "models", "tokenizer", "pipeline", "api"},
    "training": {"base", "kernels", "embeddings", "attention", "models", "tokenizer", "pipeline", "training"},
    "server": {"base", "kernels", "embeddings", "attention", "models", "tokenizer", "pipeline", "retrieval", "server"},
    "word2vec": {"base", "tokenizer", "word2vec"},
    "distributed": {"base", "kernels", "embeddings", "tokenizer", "distributed"},
}
LIBRARIES = (set(ALLOWED) - {"include"}) | {"cli", "python"}
TOKENIZER_STAGE = {"text": 0, "normalizers": 1, "pre_tokenizers": 2, "models": 3, "processors": 4, "decoders": 4,
                   "": 5, "formats": 6, "batch": 6, "trainers": 7}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def tokenizer_stage(path):
  parts = path.split("/")
  return TOKENIZER_STAGE.get(parts[1] if len(parts) > 2 else "")


def check(root):
  problems = []
  checked = 0
  for lib in sorted(ALLOWED):
    for dirpath, _, names in os.walk(os.path.join(root, lib)):
      for name in sorted(names):
        if not name.endswith((".h", ".cc", ".inc")):
          continue
        path = os.path.relpath(os.path.join(dirpath, name), root)
        checked += 1
        with open(os.path.join(root, path), encoding="utf-8") as f:
          for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
              continue
            target = m.group(1)
            top = target.split("/")[0]
            if top not in LIBRARIES:
              continue  # third-party or generated
            if lib == "include" and top in LIBRARIES:
              problems.append(f"{path}:{number}: the public header includes {target} (installed headers include "
                              "no library header; implement the call in api/)")
            elif top not in ALLOWED[lib]:
              problems.append(f"{path}:{number}: {lib}/ includes {target} ({top}/ is above {lib}/)")
            elif lib == "tokenizer" and top == "tokenizer":
              here, there = tokenizer_stage(path), tokenizer_stage(target)
              if there is None or here is None:
                problems.append(f"{path}:{number}: {target} is in no known tokenizer stage")
              elif there > here:
                problems.append(f"{path}:{number}: includes {target}, a later tokenizer stage")
  return checked, problems


def self_test():
  with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "kernels"))
    os.makedirs(os.path.join(root, "tokenizer", "models", "bpe"))
    with open(os.path.join(root, "kernels", "gemm.cc"), "w") as f:
      f.write('#include "kernels/gemm.h"\n#include "models/model.h"\n')
    with open(os.path.join(root, "tokenizer", "models", "bpe", "bpe_model.cc"), "w") as f:
      f.write('#include "tokenizer/text/utf8.h"\n#include "tokenizer/tokenizer.h"\n')
    os.makedirs(os.path.join(root, "include", "tokvec"))
    with open(os.path.join(root, "include", "tokvec", "embed.h"), "w") as f:
      f.write('#include "absl/status/statusor.h"\n#include "tokvec/tokenizer.h"\n#include "pipeline/pooling.h"\n')
    _, problems = check(root)
    expected = ["include/tokvec/embed.h:3: the public header includes pipeline/pooling.h (installed headers "
                "include no library header; implement the call in api/)",
                "kernels/gemm.cc:2: kernels/ includes models/model.h (models/ is above kernels/)",
                "tokenizer/models/bpe/bpe_model.cc:2: includes tokenizer/tokenizer.h, a later tokenizer stage"]
    if problems != expected:
      print("check_includes self-test FAILED: got", problems, file=sys.stderr)
      return 1
    print("check_includes self-test: a wrong include is caught (3 of 3)")
    return 0


def main():
  if "--self-test" in sys.argv:
    return self_test()
  args = [a for a in sys.argv[1:] if not a.startswith("--")]
  root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
  checked, problems = check(root)
  for p in problems:
    print("error: " + p, file=sys.stderr)
  if problems:
    print(f"check_includes: {len(problems)} include(s) against the dependency graph in {checked} files",
          file=sys.stderr)
    return 1
  print(f"check_includes: {checked} files follow the dependency graph")
  return 0


if __name__ == "__main__":
  sys.exit(main())
