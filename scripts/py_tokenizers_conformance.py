#!/usr/bin/env python3
"""Conformance of tokvec.tokenizers (the Python drop-in for Hugging Face's tokenizers.Tokenizer) with Hugging Face
tokenizers 0.23.2 (npm): encode_batch on every tokenizer.json of tests/data, with and without truncation and padding.
Run by scripts/conformance.sh (PYTHONPATH holds the build's python folder):

    PYTHONPATH=build/python /usr/bin/python3 scripts/py_tokenizers_conformance.py \\
        --npm ~/.cache/tokvec/npm/node_modules --shared ../shared --work /tmp/tokvec-conformance [--only PREFIX]

Files: every *.json under tests/data (recursively) with a "model" key, golden*.json left out; sorted by path.
Inputs: lines of every file of <shared>/corpora (all of its files, as conformance_peer.mjs lists them; lines cut as
it cuts them: at "\\n", a "\\r" before the "\\n" belongs to the line end, a last line without "\\n" counts). Every
40th line of each corpus file is taken (lines 0, 40, 80, ...; 4,129 lines), and those dealt into 4 shards in turn:
the k-th tokenizer.json of the sorted list gets shard k mod 4, so each file sees a quarter of them (about 1,030 lines
and as many pairs) and four neighbouring files together all of them (91 files take about 4.5 minutes on 2 cores).
Batches of 32 single texts, and of 32 pairs (that line, the next line); add_special_tokens alternates between
batches (True, False, ...). A file tokvec cannot load (Tokenizer.from_file raises) is one differing case per suite.

Suites (one line each: cases, ids compared, differing cases; any difference exits 1):
  py-tokenizers/<file>/own      the file's own "truncation" and "padding" sections (as loaded by from_file)
  py-tokenizers/<file>/off      no_truncation(), no_padding(); only for the files with one of those sections (on
                                the others it is the own run again)
  py-tokenizers/<file>/trunc16  enable_truncation(16, stride=4, strategy="longest_first", direction="right") and
                                enable_padding() to the batch's longest (pad_id 0, pad_token "[PAD]")
  py-tokenizers/<file>/fixed40  no_truncation(), enable_padding(direction="left", pad_id=1, pad_type_id=1,
                                pad_token="<pad>", length=40, pad_to_multiple_of=8)
Each suite holds the single-text batches and the pair batches. Compared per encoding: ids, type_ids,
attention_mask, offsets, word_ids and overflowing (their count, then each window's same fields). A case is one
encoding (or one batch Hugging Face refuses); ids compared counts the peer's ids, windows included.

The peer (scripts/py_tokenizers_peer.mjs, once per file, two files ahead of the comparison) writes Hugging Face's
encodings. Where it differs from a plain encodeBatch:
  - pairs: the npm encodeBatch takes single texts only; the peer encodes each pair with encode(a, b) and pads the
    batch as Rust's encode_batch_char_offsets does (see its header).
  - a batch Hugging Face refuses (OnlyFirst / OnlySecond with a text too short to cut, OnlySecond on a single text
    that needs cutting): tokvec must raise on that batch too (agreement; not raising is a difference); then the
    inputs Hugging Face refuses one by one are left out and the rest of the batch is compared.
  - inputs on which Hugging Face panics (a truncation window no longer than the stride: Encoding::truncate's assert
    aborts the process; only with a stride, e.g. pairs on tests/data/lengths files with one) are left out of the
    batch on both sides, and counted ("left out").
  - trunc16's pairs with more than 32 overflowing windows (nested ones counted) are left out on both sides and
    counted ("pairs over 32 windows"): a pair's windows are each window of one text with each of the other's, and a
    text Hugging Face's early exit cannot shorten (a file without a pre-tokenizer: the line is one word) makes
    thousands (gigabytes of output; tokvec refuses more than 4,096, docs/errors.md).
Truncation is tokenizers 0.23.2's, early exit included (tokenizers PR #1990: a text is tokenized word by word only
until it has max_length tokens, the words past that are in no window; tokvec follows it, docs/tokenizers.md).
Offsets: the npm binding gives character (Unicode code point) offsets, as the Python package and tokvec.tokenizers
do (encode_char_offsets; a character outside the BMP counts 1): compared as given, no conversion. Checked at start
on "😀 héllo wörld" (the peer's last offset must end at 13 code points, not 14 UTF-16 units); offsets of a pair's
second text count from its start on both sides. One documented difference is let through (docs/tokenizers.md,
"Offsets and normalizers"): on a file with a normalizer, a token whose tokvec range is Hugging Face's widened over
combining marks only (marks a normalizer composed, reordered or stripped) is counted ("offsets over marks"), not a
difference; --strict-offsets makes it one.

--only PREFIX runs the suites whose name starts with PREFIX (or a prefix of them: --only py-tokenizers/wordpiece).
--report FILE writes every difference (and the offsets let through) as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import unicodedata
from typing import Dict, List, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
PEER = os.path.join(ROOT, "scripts", "py_tokenizers_peer.mjs")
EVERY = 40
SHARDS = 4
BATCH = 32
AHEAD = 2
MAX_WINDOWS = 32
FIELDS = ("ids", "type_ids", "attention_mask", "offsets", "word_ids")
RUNS = {
    "own": ("file", "file"),
    "off": (None, None),
    "trunc16": ({"max_length": 16, "stride": 4, "strategy": "longest_first", "direction": "right"},
                {"direction": "right", "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]", "length": None,
                 "pad_to_multiple_of": None}),
    "fixed40": (None, {"direction": "left", "pad_id": 1, "pad_type_id": 1, "pad_token": "<pad>", "length": 40,
                       "pad_to_multiple_of": 8}),
}
SHOWN_PER_SUITE = 3


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--npm", required=True, help="node_modules holding tokenizers@0.23.2")
    parser.add_argument("--shared", required=True, help="the shared folder (corpora/)")
    parser.add_argument("--work", required=True, help="a scratch folder")
    parser.add_argument("--only", default="", help="run only the suites starting with PREFIX")
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--report", default="", help="write every difference to this JSON file")
    parser.add_argument("--strict-offsets", action="store_true",
                        help="offsets widened over combining marks are differences too")
    return parser.parse_args()


# ---- Inputs.

def split_lines(text: str) -> List[str]:
    """conformance_peer.mjs's splitLines: lines cut at "\\n", a "\\r" before the "\\n" belongs to the line end."""
    if text == "":
        return []
    lines = text.split("\n")
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    return [line[:-1] if (i < len(lines) - 1 or ends_with_newline) and line.endswith("\r") else line
            for i, line in enumerate(lines)]


def corpus_lines(shared: str) -> List[List[str]]:
    """The lines of each corpus file (sorted paths; every file, as conformance_peer.mjs lists them)."""
    root = os.path.join(shared, "corpora")
    files = []
    for directory, _, names in os.walk(root):
        files.extend(os.path.join(directory, name) for name in names)
    out = []
    for path in sorted(files):
        with open(path, "rb") as f:
            out.append(split_lines(f.read().decode("utf-8", errors="replace")))
    return out


def shard_inputs(files: List[List[str]], shard: int):
    """Every 40th line of each corpus file (lines 0, 40, 80, ...), the shard-th of every 4 of them in that order,
    and the pairs (that line, the next line; none for a file's last line)."""
    singles: List[str] = []
    pairs: List[tuple] = []
    sampled = [(lines, i) for lines in files for i in range(0, len(lines), EVERY)]
    for lines, i in sampled[shard::SHARDS]:
        singles.append(lines[i])
        if i + 1 < len(lines):
            pairs.append((lines[i], lines[i + 1]))
    return singles, pairs


def tokenizer_files() -> List[tuple]:
    """(path relative to tests/data, the document) of every tokenizer.json there, sorted."""
    out = []
    for directory, _, names in os.walk(DATA):
        for name in names:
            if not name.endswith(".json") or name.startswith("golden"):
                continue
            path = os.path.join(directory, name)
            try:
                with open(path, encoding="utf-8") as f:
                    document = json.load(f)
            except (UnicodeDecodeError, ValueError):
                continue
            if isinstance(document, dict) and "model" in document:
                out.append((os.path.relpath(path, DATA), document))
    return sorted(out, key=lambda item: item[0])


def file_quirks(document: dict) -> dict:
    """What the let-through checks need of a file: whether it has a normalizer; the byte tokens ("<0xNN>") of its
    BPE word affixes; and, for a BPE model that drops what it cannot spell (no unk_token, no byte_fallback), the
    characters it has a token for (else None)."""
    model = document.get("model") or {}
    is_bpe = model.get("type", "BPE" if "merges" in model else None) == "BPE"
    affixes = "".join(model.get(k) or "" for k in ("continuing_subword_prefix", "end_of_word_suffix")) if is_bpe else ""
    vocab = model.get("vocab") if isinstance(model.get("vocab"), dict) else {}
    drops = is_bpe and not model.get("unk_token") and not model.get("byte_fallback")
    return {
        "normalizer": document.get("normalizer") is not None,
        "affix_bytes": {f"<0x{b:02X}>" for b in affixes.encode("utf-8")},
        "kept_chars": {c for token in vocab for c in token} if drops else None,
    }


def build_cases(run_names: List[str], singles: List[str], pairs: List[tuple]) -> List[dict]:
    cases = []
    for run in run_names:
        truncation, padding = RUNS[run]
        for kind, items in (("single", singles), ("pairs", pairs)):
            for b, start in enumerate(range(0, len(items), BATCH)):
                chunk = items[start:start + BATCH]
                cases.append({
                    "name": f"{run}/{kind}/{b}",
                    "texts": chunk if kind == "single" else [a for a, _ in chunk],
                    "pairs": None if kind == "single" else [p for _, p in chunk],
                    "add_special_tokens": b % 2 == 0,
                    "truncation": truncation,
                    "padding": padding,
                    **({"max_windows": MAX_WINDOWS} if kind == "pairs" and run == "trunc16" else {}),
                })
    return cases


# ---- tokvec.tokenizers.

class Configured:
    """One tokvec Tokenizer per (truncation, padding) setting, like the peer's."""

    def __init__(self, Tokenizer, path: str):
        self.Tokenizer = Tokenizer
        self.path = path
        self.cache: Dict[str, object] = {}

    def get(self, truncation, padding):
        key = json.dumps([truncation, padding])
        if key not in self.cache:
            tokenizer = self.Tokenizer.from_file(self.path)
            if truncation is None:
                tokenizer.no_truncation()
            elif truncation != "file":
                tokenizer.enable_truncation(truncation["max_length"], stride=truncation["stride"],
                                            strategy=truncation["strategy"], direction=truncation["direction"])
            if padding is None:
                tokenizer.no_padding()
            elif padding != "file":
                tokenizer.enable_padding(direction=padding["direction"], pad_id=padding["pad_id"],
                                         pad_type_id=padding["pad_type_id"], pad_token=padding["pad_token"],
                                         length=padding["length"], pad_to_multiple_of=padding["pad_to_multiple_of"])
            self.cache[key] = tokenizer
        return self.cache[key]


def fields_of(encoding) -> dict:
    return {
        "ids": list(encoding.ids),
        "type_ids": list(encoding.type_ids),
        "attention_mask": list(encoding.attention_mask),
        "offsets": [list(o) for o in encoding.offsets],
        "word_ids": list(encoding.word_ids),
        "overflowing": [fields_of(window) for window in encoding.overflowing],
    }


def marks_only(text: str) -> bool:
    return all(unicodedata.category(c).startswith("M") for c in text)


# The offsets let through: where Hugging Face's offsets are demonstrably not the token's place in the text and
# tokvec's are (docs/tokenizers.md, "Offsets where Hugging Face drifts"), or the documented normalizer difference.
MARKS = "offsets widened over combining marks"
AFFIX = "Hugging Face's offsets of affix bytes past their unit"
DROPPED = "Hugging Face's offsets shifted by dropped characters"
KINDS = (MARKS, AFFIX, DROPPED)


def let_through(x: list, y: list, i: int, ours: dict, texts: tuple, sequence, token: str, quirks: dict,
                in_window: bool):
    """The kind of difference when peer offset x / tokvec offset y of token i is one let through, else None:
      MARKS    on a file with a normalizer, tokvec's range is the peer's widened over combining marks only;
      AFFIX    a byte token of a BPE word affix (byte fallback of "##" or "</w>"): tokvec's offsets are those of
               the unit's own byte tokens beside it (its one character), Hugging Face's run on by one byte per token
               past the unit;
      DROPPED  a BPE model without unk or byte fallback drops characters it has no token for, and Hugging Face's
               offsets after one move left (never right) by what was dropped: the text has such a character
               before the token's end.
    In a pair's windows Hugging Face's sequence ids do not tell the text (0 or null for the second text's
    tokens), so every text is tried there."""
    if in_window and len(texts) > 1:
        candidates = list(texts)
    else:
        candidates = [texts[sequence]] if sequence is not None and sequence < len(texts) else []
    offsets = ours["offsets"]
    if token in quirks["affix_bytes"] and (y[1] - y[0] == 1 or
                                           any(0 <= j < len(offsets) and offsets[j] == y for j in (i - 1, i + 1))):
        return AFFIX
    for text in candidates:
        if quirks["normalizer"] and y[0] <= x[0] and y[1] >= x[1] and marks_only(text[y[0]:x[0]]) \
                and marks_only(text[x[1]:y[1]]):
            return MARKS
        kept = quirks["kept_chars"]
        if kept is not None and x[0] <= y[0] and x[1] <= y[1] and \
                any(c not in kept and c != " " for c in text[:y[1]]):
            return DROPPED
    return None


def compare_encodings(peer: dict, ours: dict, texts: tuple, quirks: dict, spell, where: str = ""):
    """(first difference or None, [offsets let through]). A difference is (field path, index, peer encoding, tokvec
    encoding); index None for the count of windows. An offset difference of one of the KINDS (let_through; `quirks`:
    file_quirks) is listed as (kind, field path, index, peer offset, tokvec offset), not a difference."""
    tolerated = []
    for field in FIELDS:
        a, b = peer[field], ours[field]
        if a == b:
            continue
        index = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        if field == "offsets" and len(a) == len(b) and peer["ids"] == ours["ids"]:
            rest = []
            for i, (x, y) in enumerate(zip(a, b)):
                if x == y:
                    continue
                kind = let_through(x, y, i, ours, texts, peer["sequence_ids"][i], spell(peer["ids"][i]), quirks,
                                   bool(where))
                if kind:
                    tolerated.append((kind, where + field, i, x, y))
                else:
                    rest.append(i)
            if not rest:
                continue
            index = rest[0]
        return (where + field, index, peer, ours), tolerated
    a, b = peer["overflowing"], ours["overflowing"]
    if len(a) != len(b):
        return (where + "overflowing", None, peer, ours), tolerated
    for k, (x, y) in enumerate(zip(a, b)):
        found, more = compare_encodings(x, y, texts, quirks, spell, f"{where}overflowing[{k}].")
        tolerated += more
        if found:
            return found, tolerated
    return None, tolerated


def count_ids(encoding: dict) -> int:
    return len(encoding["ids"]) + sum(count_ids(w) for w in encoding["overflowing"])


# ---- Reporting.

class Suite:
    def __init__(self):
        self.cases = 0
        self.ids = 0
        self.differing = 0
        self.refused = 0
        self.left_out = 0
        self.capped = 0
        self.let_through = {kind: 0 for kind in KINDS}
        self.shown = 0


def clip(text: str, n: int = 70) -> str:
    return json.dumps(text[:n] + ("…" if len(text) > n else ""), ensure_ascii=False)


def show_field(label: str, encoding: dict, field: str, index: Optional[int], spell) -> str:
    values = encoding[field]
    if index is None:
        return f"    {label}: {len(values)} {field}"
    lo = max(0, index - 3)
    shown = []
    for i in range(lo, min(len(values), index + 6)):
        token = spell(encoding["ids"][i]) if i < len(encoding["ids"]) else "?"
        shown.append(f"{'>' if i == index else ''}{json.dumps(values[i])}{json.dumps(token, ensure_ascii=False)}")
    return f"    {label}: ({len(values)} {field}) " + " ".join(shown)


def main() -> int:
    args = parse_args()
    started = time.time()

    def log(message: str) -> None:
        print(f"[{time.time() - started:.1f}s] {message}", flush=True)

    def want(suite: str) -> bool:
        return not args.only or suite.startswith(args.only) or args.only.startswith(suite)

    if not want("py-tokenizers"):
        return 0
    try:
        from tokvec.tokenizers import Tokenizer
    except ImportError as error:
        print(f"SKIP py-tokenizers: tokvec.tokenizers does not import ({error}); set PYTHONPATH to the build's "
              f"python folder")
        return 0
    os.makedirs(args.work, exist_ok=True)

    plan = []
    for k, (rel, document) in enumerate(tokenizer_files()):
        stem = rel[:-len(".json")]
        has_sections = bool(document.get("truncation") or document.get("padding"))
        runs = [run for run in RUNS if (run != "off" or has_sections) and want(f"py-tokenizers/{stem}/{run}")]
        if runs:
            plan.append((rel, stem, runs, k % SHARDS, file_quirks(document)))
    if not plan:
        return 0
    files = corpus_lines(args.shared)
    shards = [shard_inputs(files, shard) for shard in range(SHARDS)]
    log(f"py-tokenizers: {len(plan)} tokenizer.json files; every {EVERY}th corpus line in {SHARDS} shards of "
        f"{'/'.join(str(len(s)) for s, _ in shards)} lines and {'/'.join(str(len(p)) for _, p in shards)} pairs, "
        f"batches of {BATCH}")

    differences: List[dict] = []
    let_through: List[dict] = []
    failed = False

    # The unit of the peer's offsets (see the header): code points, as tokvec.tokenizers.
    probe_file = os.path.join(DATA, "wordpiece", "uncased.json")
    if os.path.exists(probe_file):
        probe_text = "😀 héllo wörld"
        probe_cases = os.path.join(args.work, "py-tokenizers-probe.json")
        probe_out = os.path.join(args.work, "py-tokenizers-probe-out.json")
        with open(probe_cases, "w", encoding="utf-8") as f:
            json.dump([{"name": "probe", "texts": [probe_text], "pairs": None, "add_special_tokens": False,
                        "truncation": None, "padding": None}], f)
        subprocess.run([args.node, PEER, "--npm", args.npm, "--file", probe_file, "--input", probe_cases,
                        "--output", probe_out], check=True)
        with open(probe_out, encoding="utf-8") as f:
            offsets = json.load(f)[0]["encodings"][0]["offsets"]
        if not offsets or offsets[-1][1] != len(probe_text):
            print(f"MISMATCH py-tokenizers: the peer's offsets of {probe_text!r} are not code points ({offsets}): "
                  f"this script compares them as code points")
            failed = True

    # Cases, one file per (runs, shard).
    case_files: Dict[tuple, str] = {}
    case_lists: Dict[tuple, List[dict]] = {}
    for _, _, runs, shard, _ in plan:
        key = (tuple(runs), shard)
        if key not in case_files:
            case_lists[key] = build_cases(runs, *shards[shard])
            case_files[key] = os.path.join(args.work, f"py-tokenizers-cases-{len(case_files)}.json")
            with open(case_files[key], "w", encoding="utf-8") as f:
                json.dump(case_lists[key], f, ensure_ascii=False)

    def start_peer(index: int):
        rel, _, runs, shard, _ = plan[index]
        out = os.path.join(args.work, f"py-tokenizers-out-{index}.json")
        err = open(os.path.join(args.work, f"py-tokenizers-err-{index}.txt"), "w+b")
        process = subprocess.Popen([args.node, PEER, "--npm", args.npm, "--file", os.path.join(DATA, rel),
                                    "--input", case_files[(tuple(runs), shard)], "--output", out],
                                   stdout=err, stderr=subprocess.STDOUT)
        return process, out, err

    suites: Dict[str, Suite] = {}
    pending = {index: start_peer(index) for index in range(min(AHEAD, len(plan)))}
    for index, (rel, stem, runs, shard, quirks) in enumerate(plan):
        if index + AHEAD < len(plan):
            pending[index + AHEAD] = start_peer(index + AHEAD)
        process, out_path, err = pending.pop(index)
        code = process.wait()
        err.seek(0)
        err_text = err.read().decode("utf-8", errors="replace")
        err.close()
        os.unlink(err.name)
        if code != 0:
            failed = True
            print(f"MISMATCH py-tokenizers/{stem}: the peer exited {code}: {err_text[-2000:]}")
            continue
        with open(out_path, encoding="utf-8") as f:
            peer_runs = json.load(f)
        os.unlink(out_path)
        cases = case_lists[(tuple(runs), shard)]
        configured = Configured(Tokenizer, os.path.join(DATA, rel))
        try:
            spelling = Tokenizer.from_file(os.path.join(DATA, rel))
        except Exception as error:  # noqa: BLE001 - tokvec refusing a file Hugging Face loads is a difference
            failed = True
            for run in runs:
                suite_name = f"py-tokenizers/{stem}/{run}"
                suites[suite_name] = Suite()
                suites[suite_name].cases = suites[suite_name].differing = 1
                differences.append({"suite": suite_name, "file": rel, "run": run,
                                    "what": f"Tokenizer.from_file raises {type(error).__name__}: {error}"})
                print(f"MISMATCH {suite_name}: Hugging Face loads the file, tokvec's Tokenizer.from_file raises "
                      f"{type(error).__name__}: {error}")
                print(f"{suite_name}: 1 cases, 0 ids compared, 1 differing", flush=True)
            continue
        quirks = dict(quirks, normalizer=quirks["normalizer"] and not args.strict_offsets)

        def spell(token_id: int) -> str:
            return spelling.id_to_token(token_id) or "?"

        for case, peer in zip(cases, peer_runs):
            run, kind, batch = case["name"].split("/")
            suite_name = f"py-tokenizers/{stem}/{run}"
            suite = suites.setdefault(suite_name, Suite())
            add = case["add_special_tokens"]
            is_pair = case["pairs"] is not None
            inputs = list(zip(case["texts"], case["pairs"])) if is_pair else list(case["texts"])

            def record_of(what: str, item: Optional[int]) -> dict:
                record = {"suite": suite_name, "file": rel, "run": run, "kind": kind, "batch": int(batch),
                          "add_special_tokens": add, "what": what}
                if item is not None:
                    record["input"] = list(inputs[item]) if is_pair else inputs[item]
                return record

            def differ(what: str, item: Optional[int] = None, detail: Optional[tuple] = None) -> None:
                nonlocal failed
                failed = True
                suite.differing += 1
                record = record_of(what, item)
                if detail is not None:
                    field, at, peer_enc, our_enc = detail
                    base = field.rsplit(".", 1)[-1]
                    record.update(field=field, index=at)
                    if at is not None:
                        record["peer_value"] = peer_enc[base][at] if at < len(peer_enc[base]) else None
                        record["tokvec_value"] = our_enc[base][at] if at < len(our_enc[base]) else None
                    record["peer"] = {k: v for k, v in peer_enc.items() if k != "overflowing"}
                    record["tokvec"] = {k: v for k, v in our_enc.items() if k != "overflowing"}
                differences.append(record)
                if suite.shown >= SHOWN_PER_SUITE:
                    return
                suite.shown += 1
                where = f"{kind} batch {batch} (add_special_tokens={add})"
                if item is not None:
                    text = inputs[item]
                    where += f" item {item} " + (f"{clip(text[0], 50)} + {clip(text[1], 50)}" if is_pair else clip(text))
                print(f"MISMATCH {suite_name} {where}: {what}")
                if detail is not None:
                    field, at, peer_enc, our_enc = detail
                    base = field.rsplit(".", 1)[-1]
                    print(show_field("peer  ", peer_enc, base, at, spell))
                    print(show_field("tokvec", our_enc, base, at, spell))

            # Settings Hugging Face refuses: tokvec must refuse them too.
            if "config_error" in peer:
                suite.cases += 1
                try:
                    configured.get(case["truncation"], case["padding"])
                except Exception:  # noqa: BLE001 - any exception is a refusal
                    suite.refused += 1
                    continue
                differ(f"Hugging Face refuses the settings ({peer['config_error']}), tokvec takes them")
                continue
            tokenizer = configured.get(case["truncation"], case["padding"])
            skipped = set(peer.get("skipped", []))
            capped = set(peer.get("capped", []))
            suite.left_out += len(skipped)
            suite.capped += len(capped)
            compared = [i for i in range(len(inputs)) if i not in skipped and i not in capped]

            def encode(indices):
                return tokenizer.encode_batch([inputs[i] for i in indices], add_special_tokens=add)

            if "error" in peer:
                suite.cases += 1
                try:
                    encode(compared)
                except Exception:  # noqa: BLE001 - any exception is a refusal
                    suite.refused += 1
                else:
                    differ(f"Hugging Face refuses the batch ({peer['error']}), tokvec encodes it",
                           item=peer["refused"][0] if peer.get("refused") else None)
                refused = set(peer.get("refused", []))
                compared = [i for i in compared if i not in refused]
                if "rest_error" in peer:
                    continue
            try:
                ours = [fields_of(e) for e in encode(compared)]
            except Exception as error:  # noqa: BLE001 - any exception is a refusal
                suite.cases += 1
                differ(f"tokvec raises {type(error).__name__}: {error}; Hugging Face encodes the batch",
                       item=compared[0] if compared else None)
                continue
            theirs = peer["encodings"]
            if len(ours) != len(theirs):
                suite.cases += 1
                differ(f"{len(theirs)} encodings from Hugging Face, {len(ours)} from tokvec")
                continue
            for k, (their, our) in enumerate(zip(theirs, ours)):
                suite.cases += 1
                suite.ids += count_ids(their)
                texts = inputs[compared[k]] if is_pair else (inputs[compared[k]],)
                found, tolerated = compare_encodings(their, our, texts, quirks, spell)
                for through in KINDS:
                    offsets = [list(t[1:]) for t in tolerated if t[0] == through]
                    if offsets:
                        suite.let_through[through] += 1
                        record = record_of(through, compared[k])
                        record["offsets"] = offsets
                        let_through.append(record)
                if found:
                    field, at, _, _ = found
                    if at is None:
                        what = (f"{field}: {len(their['overflowing'])} windows from Hugging Face, "
                                f"{len(our['overflowing'])} from tokvec")
                    else:
                        what = f"{field} differ at {at}"
                    differ(what, item=compared[k], detail=found)
        for run in runs:
            suite_name = f"py-tokenizers/{stem}/{run}"
            s = suites.setdefault(suite_name, Suite())
            notes = []
            if s.refused:
                notes.append(f"{s.refused} batches refused by both")
            if s.left_out:
                notes.append(f"{s.left_out} inputs left out: Hugging Face panics")
            if s.capped:
                notes.append(f"{s.capped} pairs over {MAX_WINDOWS} windows left out")
            notes += [f"{n} cases with {kind}" for kind, n in s.let_through.items() if n]
            note = f" ({'; '.join(notes)})" if notes else ""
            print(f"{suite_name}: {s.cases} cases, {s.ids} ids compared, {s.differing} differing{note}", flush=True)

    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump({"differences": differences, "let_through": let_through}, f, ensure_ascii=False, indent=1)
    through = "; ".join(f"{sum(s.let_through[kind] for s in suites.values())} with {kind}" for kind in KINDS)
    log(f"py-tokenizers: {len(suites)} suites, {sum(s.cases for s in suites.values())} cases, "
        f"{sum(s.ids for s in suites.values())} ids compared, {sum(s.differing for s in suites.values())} differing; "
        f"let through (docs/tokenizers.md): {through}")
    log("FAIL: tokvec.tokenizers differs from Hugging Face (see MISMATCH lines above)" if failed
        else "PASS: tokvec.tokenizers agrees with Hugging Face")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
