"""tokvec.tokenizers, the drop-in for Hugging Face's `tokenizers.Tokenizer`: every case of the golden files written
with tokenizers 0.23.2 (tests/data/lengths/golden.json: the files' own truncation and padding, singles, pairs and
batches; tests/data/pairs/golden.json: pairs with and without the post-processor) gives Hugging Face's ids, type
ids, masks, word ids, sequence ids, offsets and overflowing windows; then the state methods, position look-ups,
save, and errors. `scripts/conformance.sh --only py-tokenizers` compares the corpora with the npm peer."""
import json
import pathlib

import pytest

from tokvec.tokenizers import Encoding, Tokenizer

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"


def char_offsets(text, offsets):
    """Golden offsets are bytes of the UTF-8 text; tokvec.tokenizers gives characters, as Hugging Face's Python."""
    data = text.encode("utf-8")
    return [(len(data[:b].decode("utf-8", "ignore")), len(data[:e].decode("utf-8", "ignore"))) for b, e in offsets]


def check(encoding: Encoding, golden: dict, a: str, b=None):
    assert encoding.ids == golden["ids"]
    assert encoding.type_ids == golden["type_ids"]
    assert encoding.attention_mask == golden["attention_mask"]
    assert encoding.special_tokens_mask == golden["special_tokens_mask"]
    assert encoding.word_ids == [None if w < 0 else w for w in golden["word_ids"]]
    assert encoding.sequence_ids == [None if s < 0 else s for s in golden["sequence_ids"]]
    want = [(o[0], o[1]) for o in golden["offsets"]]
    got = list(encoding.offsets)
    texts = {0: a, 1: b, -1: a}
    want = [char_offsets(texts[s], [w])[0] if texts[s] is not None else w
            for s, w in zip(golden["sequence_ids"], want)]
    assert got == want
    assert len(encoding.overflowing) == len(golden["overflowing"])
    for window, golden_window in zip(encoding.overflowing, golden["overflowing"]):
        check(window, golden_window, a, b)


def lengths_cases():
    return json.loads((DATA / "lengths" / "golden.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", lengths_cases(), ids=lambda c: c["file"].split("/")[-1])
def test_golden_lengths(case):
    tokenizer = Tokenizer.from_file(str(DATA / case["file"]))
    if "batch" in case:
        items = [tuple(item) if isinstance(item, list) else item for item in case["batch"]]
        if "error" in case:
            with pytest.raises(ValueError):
                tokenizer.encode_batch(items, add_special_tokens=case["add"])
            return
        batch = tokenizer.encode_batch(items, add_special_tokens=case["add"])
        assert len(batch) == len(case["rows"])
        for item, encoding, golden in zip(items, batch, case["rows"]):
            a, b = (item, None) if isinstance(item, str) else item
            check(encoding, golden, a, b)
        return
    if "error" in case:
        with pytest.raises(ValueError):
            tokenizer.encode(case["a"], case.get("b"), add_special_tokens=case["add"])
        return
    check(tokenizer.encode(case["a"], case.get("b"), add_special_tokens=case["add"]), case, case["a"], case.get("b"))


def test_state_methods_follow_hugging_face():
    tokenizer = Tokenizer.from_file(str(DATA / "lengths" / "bert-multiple-of-8.json"))
    assert tokenizer.truncation == {"max_length": 16, "stride": 0, "strategy": "longest_first", "direction": "right"}
    assert tokenizer.padding["pad_to_multiple_of"] == 8 and tokenizer.padding["length"] is None
    long_text = " ".join(["word"] * 40)
    assert len(tokenizer.encode(long_text).ids) == 16
    tokenizer.no_truncation()
    tokenizer.no_padding()
    assert tokenizer.truncation is None and tokenizer.padding is None
    assert len(tokenizer.encode(long_text, add_special_tokens=False).ids) == 40
    tokenizer.enable_truncation(10, stride=3, direction="left")
    tokenizer.enable_padding(length=12, pad_id=0, pad_token="[PAD]", direction="left")
    encoding = tokenizer.encode(long_text)  # [CLS] and [SEP] leave 8 of the 10 tokens read (Hugging Face's early
    assert encoding.attention_mask == [0, 0] + [1] * 10  # exit reads max_length), 2 go to a window
    assert encoding.tokens[:2] == ["[PAD]", "[PAD]"]
    assert encoding.overflowing and all(len(w.ids) == 12 for w in encoding.overflowing)
    with pytest.raises(ValueError, match="strategy"):
        tokenizer.enable_truncation(10, strategy="bogus")
    with pytest.raises(ValueError, match="direction"):
        tokenizer.enable_padding(direction="up")


def test_positions_and_vocabulary():
    tokenizer = Tokenizer.from_file(str(DATA / "wordpiece" / "cased.json"))  # Héllo, wörld: [UNK] of 5 characters
    encoding = tokenizer.encode("Héllo wörld, how are you?", "Fine thanks")
    assert encoding.char_to_token(3) == 1 and encoding.token_to_chars(1) == (0, 5)
    assert encoding.char_to_token(6, sequence_index=1) == encoding.word_to_tokens(1, sequence_index=1)[0]
    assert encoding.token_to_chars(0) is None  # [CLS] belongs to no text
    assert encoding.token_to_sequence(len(encoding) - 2) == 1
    assert encoding.word_to_chars(1) == (6, 11)
    assert encoding.char_to_word(7) == 1
    vocab = tokenizer.get_vocab()
    assert vocab["[CLS]"] == tokenizer.token_to_id("[CLS]") and tokenizer.id_to_token(vocab["how"]) == "how"
    assert tokenizer.get_vocab_size() == len(vocab)
    assert tokenizer.decode(encoding.ids) == tokenizer.decode(encoding.ids, skip_special_tokens=True)
    assert "[CLS]" in tokenizer.decode(encoding.ids, skip_special_tokens=False)


def _is_run(part, tokens):
    return any(part == tokens[k:k + len(part)] for k in range(len(tokens) - len(part) + 1))


@pytest.mark.parametrize("name, strategy", [("affix_bpe/prefix.json", "longest_first"),
                                            ("wordpiece/cased.json", "only_second")])
def test_pair_windows_keep_each_text_offsets(name, strategy):
    """A pair's overflowing windows: each window is a run of the first text's tokens then a run of the second's, as
    in the untruncated pair, offsets included (characters of each token's own text). Without a post-processor
    template Hugging Face's windows give every token sequence id 0, so the text cannot be told from the sequence ids
    (the offsets of the second text's tokens were once counted in the first text)."""
    tokenizer = Tokenizer.from_file(str(DATA / name))
    first, second = "Héllo wörld 14", "Ça coûte très cher, dit-il à l'été, où l'on paie déjà trop de frais."
    full = tokenizer.encode(first, second)
    texts = [[(i, o) for i, o, s, m in zip(full.ids, full.offsets, full.sequence_ids, full.special_tokens_mask)
              if s == k and not m] for k in (0, 1)]
    assert any(len(second[:o[0]].encode()) != o[0] for _, o in texts[1])  # characters differ from bytes here
    tokenizer.enable_truncation(16, stride=2, strategy=strategy)
    top = tokenizer.encode(first, second)
    windows = [top] + top.overflowing
    assert len(windows) >= 2
    for w, window in enumerate(windows):
        tokens = [(i, o) for i, o, m in zip(window.ids, window.offsets, window.special_tokens_mask) if not m]
        assert any(_is_run(tokens[:k], texts[0]) and _is_run(tokens[k:], texts[1])
                   for k in range(1, len(tokens))), (w, tokens)


def test_save_writes_the_current_sections(tmp_path):
    tokenizer = Tokenizer.from_file(str(DATA / "wordpiece" / "uncased.json"))
    tokenizer.enable_truncation(7)
    tokenizer.enable_padding(length=9, pad_to_multiple_of=None)
    path = tmp_path / "saved.json"
    tokenizer.save(str(path))
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["truncation"] == {"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}
    assert document["padding"]["strategy"] == {"Fixed": 9}
    again = Tokenizer.from_file(str(path))
    text = "a text long enough to be cut by seven tokens of truncation"
    assert again.encode(text).ids == tokenizer.encode(text).ids
    assert len(again.encode(text).ids) == 9
    assert Tokenizer.from_str(path.read_text(encoding="utf-8")).encode(text).ids == tokenizer.encode(text).ids


def test_errors():
    tokenizer = Tokenizer.from_file(str(DATA / "wordpiece" / "uncased.json"))
    with pytest.raises(FileNotFoundError):
        Tokenizer.from_file(str(DATA / "missing.json"))
    with pytest.raises(OSError, match="never downloads"):
        Tokenizer.from_pretrained("bert-base-uncased")
    with pytest.raises(ValueError, match="is_pretokenized"):
        tokenizer.encode("a", is_pretokenized=True)
    with pytest.raises(TypeError):
        tokenizer.encode_batch([("a", "b", "c")])
    tokenizer.enable_padding()
    with pytest.raises(ValueError, match="mixing"):
        tokenizer.encode_batch(["a", ("b", "c")])
    tokenizer.no_padding()
    mixed = tokenizer.encode_batch(["a b", ("b", "c")])
    assert mixed[0].ids == tokenizer.encode("a b").ids and mixed[1].ids == tokenizer.encode("b", "c").ids
    tokenizer.enable_truncation(4, stride=4)
    with pytest.raises(ValueError, match="stride"):
        tokenizer.encode("a b c d e f g")
