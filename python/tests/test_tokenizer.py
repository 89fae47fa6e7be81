"""tokvec.Tokenizer: ids equal the CLI's on the shared corpora, llama.cpp's GPT-2 cases (Hugging Face's ids),
batches on threads equal serial, 8 Python threads at once, round trips, offsets, aliases and the error table."""
import concurrent.futures
import pathlib
import random

import pytest

import tokvec
from conftest import run

VOCABS = ["gpt2.tiktoken", "cl100k_base.tiktoken"]


def corpus_files(shared):
    files = sorted(p for p in (shared / "corpora").glob("*.txt"))
    files += sorted((shared / "corpora" / "udhr").glob("*.txt"))[:40]
    return files


def cli_lines(data):
    """The lines `tokvec encode --lines` encodes: split at \\n, a \\r before it dropped, no empty last line."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


@pytest.mark.parametrize("vocab", VOCABS)
def test_ids_equal_cli_on_shared_corpora(tokvec_bin, shared, vocab):
    path = str(shared / "vocab" / vocab)
    tok = tokvec.Tokenizer.load(path)
    for f in corpus_files(shared):
        data = f.read_bytes()
        # One line of ids per line (--lines), and the whole file as one text.
        expected = [[int(x) for x in line.split()] for line in run([tokvec_bin, "encode", "-m", path, "--lines",
                                                                    str(f)]).decode().split("\n")[:-1]]
        got = tok.encode_batch(cli_lines(data), num_threads=2)
        assert got == expected, f"{vocab} {f.name}: encode_batch differs from tokvec encode --lines"
        whole = [int(x) for x in run([tokvec_bin, "encode", "-m", path, str(f)]).split()]
        assert tok.encode(data) == whole, f"{vocab} {f.name}: encode differs from tokvec encode"


def llamacpp_cases(shared):
    inp = (shared / "conformance" / "llamacpp-gpt2.inp").read_text(encoding="utf-8")
    out = (shared / "conformance" / "llamacpp-gpt2.out").read_text(encoding="utf-8")
    cases = inp.split("\n__ggml_vocab_test__\n")
    if cases and cases[-1] == "":
        cases.pop()
    expected = [[int(x) for x in line.split()] for line in out.split("\n")][: len(cases)]
    return cases, expected


@pytest.mark.parametrize("source", ["gpt2.tiktoken", "gpt2"])
def test_llamacpp_gpt2_cases(shared, source):
    if not (shared / "conformance" / "llamacpp-gpt2.inp").exists():
        pytest.skip("llama.cpp conformance cases not in shared/")
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / source))
    cases, expected = llamacpp_cases(shared)
    assert len(cases) == 46
    for text, ids in zip(cases, expected):
        assert tok.encode(text) == ids, repr(text)
        assert tok.decode(ids) == text
    assert tok.encode_batch(cases, num_threads=2) == expected


def test_batch_threads_equal_serial(shared):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "cl100k_base.tiktoken"))
    lines = cli_lines((shared / "corpora" / "wagahaiwa_nekodearu.txt").read_bytes())[:3000]
    serial = [tok.encode(line) for line in lines]
    for threads in (1, 2, 3, 8):
        assert tok.encode_batch(lines, num_threads=threads) == serial, threads
    assert tok.encode_batch(iter(lines[:10])) == serial[:10]  # any iterable
    assert tok.encode_batch([]) == []


def test_eight_python_threads_at_once(shared):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "gpt2.tiktoken"))
    text = (shared / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    parts = [text[i * 20000:(i + 1) * 20000] for i in range(16)]
    lines = text.splitlines()[:2000]
    expected_parts = [tok.encode(p) for p in parts]
    expected_lines = tok.encode_batch(lines, num_threads=1)

    def work(i):
        # Long texts release the GIL, so these encode side by side; batches share the kept pool or make one.
        got = [tok.encode(p) for p in parts[i::2]]
        batch = tok.encode_batch(lines, num_threads=2)
        return got == expected_parts[i::2] and batch == expected_lines

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(work, range(8)))


def test_round_trips_on_random_text(shared):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "o200k_base.tiktoken"))
    rng = random.Random(16)
    alphabet = "ab \n\t.,'éü漢字😀ÅΩ-0123"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        assert tok.decode(tok.encode(text)) == text
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 30)))
        assert tok.decode_bytes(tok.encode(raw)) == raw  # byte models encode any bytes


def test_offsets_are_characters_for_str_and_bytes_for_bytes(shared):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "cl100k_base.tiktoken"))
    text = "naïve café, 東京 and 😀!"
    ids, offsets = tok.encode_with_offsets(text)
    assert ids == tok.encode(text)
    assert offsets[0][0] == 0 and offsets[-1][1] == len(text)
    for (begin, end), (next_begin, _) in zip(offsets, offsets[1:]):
        assert begin <= end <= next_begin + 1  # a token may end inside a character the next one starts
    for token_id, (begin, end) in zip(ids, offsets):
        piece = tok.decode_bytes([token_id])
        if _is_utf8(piece):  # whole characters: the offsets cut exactly them out of the text
            assert text[begin:end] == piece.decode()
    raw = text.encode()
    ids_b, offsets_b = tok.encode_with_offsets(raw)
    assert ids_b == ids
    assert b"".join(raw[b:e] for b, e in offsets_b) == raw


def _is_utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_tiktoken_style_api_and_special_tokens(shared):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "gpt2.tiktoken"))
    assert tok.n_vocab == tok.vocab_size == 50257
    assert tok.eot_token == 50256
    assert tok.special_tokens == {"<|endoftext|>": 50256}
    assert tok.special_tokens_set == {"<|endoftext|>"}
    # Text spelling a special token is ordinary unless allowed.
    assert tok.encode("<|endoftext|>hi") == tok.encode_ordinary("<|endoftext|>hi")
    assert tok.encode("<|endoftext|>hi", allowed_special="all") == [50256, 5303]
    assert tok.encode("<|endoftext|>hi", allowed_special={"<|endoftext|>"}) == [50256, 5303]
    assert tok.encode_ordinary_batch(["a", "b"]) == [tok.encode("a"), tok.encode("b")]
    assert tok.decode_batch([[15496, 995], [50256]]) == ["Hello world", "<|endoftext|>"]
    assert tok.token_to_id("Ġworld") == 995 and tok.id_to_token(995) == "Ġworld"
    assert tok.token_to_id("no such token") is None and tok.id_to_token(10**6) is None
    assert tok.type == "byte"
    # A token holding part of a character decodes to U+FFFD in decode, to its bytes in decode_bytes.
    partial = tok.encode("😀")[:1]
    assert tok.decode(partial) == "\ufffd" * len(tok.decode_bytes(partial).decode("utf-8", errors="replace"))


def test_error_table(shared, tmp_path):
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "gpt2.tiktoken"))
    cases = [
        (lambda: tokvec.Tokenizer.load(str(tmp_path / "missing.tiktoken")), FileNotFoundError, "cannot open"),
        (lambda: tok.decode([50257]), ValueError, "50257"),
        (lambda: tok.decode_batch([[1], [99999999]]), ValueError, "99999999"),
        (lambda: tok.decode([-1]), TypeError, ""),
        (lambda: tok.decode("abc"), TypeError, ""),
        (lambda: tok.encode(42), TypeError, "str or bytes"),
        (lambda: tok.encode(None), TypeError, "str or bytes"),
        (lambda: tok.encode_batch("one string"), TypeError, "list of texts"),
        (lambda: tok.encode_batch(["ok", 3]), TypeError, "str or bytes"),
        (lambda: tok.encode("x", allowed_special="some"), ValueError, "allowed_special"),
        (lambda: tok.encode("\ud800"), UnicodeEncodeError, ""),
        (lambda: tok.save(str(tmp_path / "no" / "dir" / "x.tokvec")), Exception, ""),
    ]
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("not base64 !!! 1\n")
    cases.append((lambda: tokvec.Tokenizer.load(str(bad), pattern="gpt2"), (ValueError, tokvec.Error), "bad.tiktoken"))
    for call, error, text in cases:
        with pytest.raises(error) as info:
            call()
        assert text in str(info.value)
    # tokvec.Error is an Exception subclass users can catch.
    assert issubclass(tokvec.Error, Exception)


def test_save_refuses_what_the_model_file_cannot_hold(shared, tmp_path):
    """save() checks, as the C++ API's Save does, that the file would load again with the same ids: tiktoken ranks
    and WordPiece have no tokvec model file form, and no file is left behind."""
    import pathlib
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"
    for source, message in ((shared / "vocab" / "gpt2.tiktoken", "tiktoken ranks"),
                            (data / "wordpiece" / "uncased.json", "no tokvec model file form")):
        tok = tokvec.Tokenizer.load(str(source))
        out = tmp_path / "saved.tokvec"
        with pytest.raises(ValueError) as info:
            tok.save(str(out))
        assert message in str(info.value)
        assert not out.exists()


def test_no_crash_on_any_argument(shared, tiny_model):
    """Every method with arguments of every kind: a result or an exception, never a crash."""
    tok = tokvec.Tokenizer.load(str(shared / "vocab" / "gpt2.tiktoken"))
    model = tokvec.Model.load(str(tiny_model))
    values = [None, 0, -1, 2**70, 1.5, "", "x", "\ud800", b"\xff\xfe", [], [1, 2], [-5], [2**40], [[1]], [["a"]],
              ("a", b"b"), {"a": 1}, object(), iter(["a"]), "all", {"<|endoftext|>"}]
    calls = [tok.encode, tok.encode_ordinary, tok.encode_batch, tok.encode_with_offsets, tok.decode,
             lambda v: tok.encode_pair(v, v), lambda v: tok.encode_pair("a", "b", add_special_tokens=v),
             lambda v: tok.decode([1, 50256], skip_special_tokens=v),
             tok.decode_bytes, tok.decode_batch, tok.token_to_id, tok.id_to_token, model.tokenize, model.embed,
             model.token_vectors, lambda v: model.attention(v, 0, 0), lambda v: tok.encode("a", allowed_special=v),
             lambda v: tok.encode_batch(["a"], num_threads=v), lambda v: model.embed(["a"], pooling="mean",
                                                                                    batch_size=v)]
    outcomes = 0
    for call in calls:
        for value in values:
            try:
                call(value)
            except (TypeError, ValueError, OverflowError, UnicodeError):
                pass
            outcomes += 1
    assert outcomes == len(calls) * len(values)


def test_pairs_special_tokens_and_skip_special_as_hugging_face():
    """encode(add_special_tokens), encode_pair and decode(skip_special_tokens) against Hugging Face's ids, type ids
    and decode (tests/data/pairs/golden.json, written by scripts/gen_pairs_files.mjs with tokenizers 0.23.2)."""
    import json
    import pathlib
    data = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"
    cases = json.loads((data / "pairs" / "golden.json").read_text(encoding="utf-8"))["cases"]
    loaded, checked = {}, 0
    for case in cases:
        tok = loaded.setdefault(case["file"], tokvec.Tokenizer.load(str(data / case["file"])))
        for key, add in (("plain", False), ("with_specials", True)):
            ids, type_ids = tok.encode_pair(case["a"], case["b"], allowed_special="all", add_special_tokens=add)
            assert ids == case[key]["ids"], (case["file"], key, case["a"])
            assert type_ids == case[key]["type_ids"], (case["file"], key, case["a"])
            checked += 1
        if "decoded_skip_special" in case:
            assert tok.decode(case["with_specials"]["ids"], skip_special_tokens=True) == case["decoded_skip_special"]
    assert checked >= 100
    # A single text with the post-processor's tokens: BERT's [CLS] ... [SEP] around the plain ids.
    bert = tokvec.Tokenizer.load(str(data / "wordpiece" / "uncased.json"))
    plain = bert.encode("hello world")
    cls, sep = bert.token_to_id("[CLS]"), bert.token_to_id("[SEP]")
    assert bert.encode("hello world", add_special_tokens=True) == [cls] + plain + [sep]
    assert bert.encode_batch(["hello world", "a"], add_special_tokens=True)[0] == [cls] + plain + [sep]
    assert bert.decode([cls] + plain + [sep], skip_special_tokens=True) == "hello world"


def lengths_golden():
    import json
    path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "lengths" / "golden.json"
    return path.parent, json.loads(path.read_text())["cases"]


def test_encode_batch_padded_arrays_match_hugging_face():
    """encode_batch(return_tensors="np") gives Hugging Face's encodeBatch rows (tests/data/lengths/golden.json:
    the file's truncation and padding) as arrays; files without padding give its ragged rows as lists."""
    np = pytest.importorskip("numpy")
    root, cases = lengths_golden()
    checked = 0
    for case in cases:
        if "batch" not in case or "error" in case:
            continue
        tok = tokvec.Tokenizer.load(str(root.parent / case["file"]))
        rows = case["rows"]
        padded = len({len(r["ids"]) for r in rows}) == 1 and any(0 in r["attention_mask"] for r in rows)
        if padded:
            got = tok.encode_batch(case["batch"], allowed_special="all", add_special_tokens=case["add"],
                                   return_tensors="np")
            assert got["input_ids"].dtype == np.int64 and got["input_ids"].shape == (len(rows), len(rows[0]["ids"]))
            for key, field in (("input_ids", "ids"), ("attention_mask", "attention_mask"),
                               ("token_type_ids", "type_ids"), ("special_tokens_mask", "special_tokens_mask"),
                               ("word_ids", "word_ids")):
                assert got[key].tolist() == [r[field] for r in rows], f"{case['file']} {key}"
        else:
            got = tok.encode_batch(case["batch"], allowed_special="all", add_special_tokens=case["add"],
                                   padding=False)  # the file's truncation, no padding
            assert got == [r["ids"] for r in rows], case["file"]
        checked += 1
    assert checked >= 10


def test_encode_batch_truncation_and_padding_arguments():
    np = pytest.importorskip("numpy")
    tok = tokvec.Tokenizer.load(str(pathlib.Path(__file__).resolve().parents[2] / "tests/data/wordpiece/uncased.json"))
    texts = ["a b c d e f g h i j k l", "a b"]
    plain = tok.encode_batch(texts)
    assert [len(ids) for ids in plain] == [12, 2]  # no keyword: as before, nothing cut or padded
    cut = tok.encode_batch(texts, max_length=5, add_special_tokens=True)
    assert [len(ids) for ids in cut] == [5, 4]
    arrays = tok.encode_batch(texts, max_length=6, padding="max_length", pad_to_multiple_of=4, return_tensors="np")
    assert arrays["input_ids"].shape == (2, 8)
    assert arrays["attention_mask"].sum(axis=1).tolist() == [6, 2]
    pairs = tok.encode_batch(["a b c"], pairs=["d e"], add_special_tokens=True, return_tensors="np")
    assert pairs["token_type_ids"].tolist() == [[0, 0, 0, 0, 0, 1, 1, 1]]
    assert pairs["word_ids"].tolist() == [[-1, 0, 1, 2, -1, 0, 1, -1]]
    with pytest.raises(ValueError, match="truncation=True needs max_length"):
        tok.encode_batch(texts, truncation=True)
    with pytest.raises(ValueError, match="return_tensors"):
        tok.encode_batch(texts, return_tensors="pt")
    with pytest.raises(ValueError, match="needs padding"):
        tok.encode_batch(texts, padding=False, return_tensors="np")
    with pytest.raises(ValueError, match="pairs= holds 1 texts for 2"):
        tok.encode_batch(texts, pairs=["x"])
