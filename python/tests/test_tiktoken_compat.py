"""tokvec.tiktoken, the drop-in for OpenAI's `tiktoken`: the behaviour tiktoken documents and tests (its docstrings,
tests/test_encoding.py, test_offsets.py, test_pickle.py, test_simple_public.py, test_misc.py, model.py, load.py),
ported to tokvec's module with our own tests.

Goldens are tiktoken's published examples (ids of "hello world", the runs of zeros, the offsets of Chinese and Tamil
text, the special-token error message). Where tiktoken publishes no ids, the oracle is a naive BPE written here over
the ranks read straight from the .tiktoken files (merge the adjacent pair of lowest rank until none is left).

Needs the shared vocabularies (TOKVEC_SHARED_DIR, else ../shared: vocab/gpt2.tiktoken, cl100k_base.tiktoken,
o200k_base.tiktoken); every test skips with a message when they are absent. Encoding files are found through
TOKVEC_VOCAB_PATH, set here to <shared>/vocab; tiktoken's cache dir is pointed at an empty directory so the
machine's own /tmp/data-gym-cache never leaks in. No test touches the network.
"""
import base64
import functools
import hashlib
import os
import pickle
import re
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import threading
import unicodedata

import numpy as np
import pytest

tiktoken = pytest.importorskip("tokvec.tiktoken", reason="tokvec.tiktoken is not built (set PYTHONPATH)")

try:
    import hypothesis
    import hypothesis.configuration
    import hypothesis.strategies as st

    # hypothesis caches Unicode tables under its home dir (./.hypothesis by default): keep the source tree clean
    if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
        hypothesis.configuration.set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "tokvec-hypothesis"))
except ImportError:  # the property tests skip; the goldens still run
    hypothesis = None

MAX_EXAMPLES = int(os.environ.get("TOKVEC_MAX_EXAMPLES", "100"))
VOCAB_FILES = ("gpt2.tiktoken", "cl100k_base.tiktoken", "o200k_base.tiktoken")
# Encodings whose rank file the shared dir holds (gpt2.tiktoken is byte-identical to r50k_base.tiktoken).
AVAILABLE = ("gpt2", "r50k_base", "cl100k_base", "o200k_base", "o200k_harmony")
BLOB = "https://openaipublic.blob.core.windows.net/encodings/"

# The split patterns tiktoken publishes (tiktoken_ext/openai_public.py): data, not code.
R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PAT = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
              r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])

# name -> (rank file in the shared dir, pattern, special tokens, n_vocab), as openai_public.py defines them.
PUBLISHED = {
    "gpt2": ("gpt2.tiktoken", R50K_PAT, {"<|endoftext|>": 50256}, 50257),
    "r50k_base": ("gpt2.tiktoken", R50K_PAT, {"<|endoftext|>": 50256}, 50257),
    "cl100k_base": ("cl100k_base.tiktoken", CL100K_PAT,
                    {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                     "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}, 100277),
    "o200k_base": ("o200k_base.tiktoken", O200K_PAT, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}, 200019),
}


def expected_disallowed_message(token: str) -> str:
    """tiktoken's ValueError text for disallowed special-token text (core.py, raise_disallowed_special_token)."""
    template = ("Encountered text corresponding to disallowed special token TOKEN.\n"
                "If you want this text to be encoded as a special token, pass it to `allowed_special`, "
                "e.g. `allowed_special={TOKEN, ...}`.\n"
                "If you want this text to be encoded as normal text, disable the check for this token by passing "
                "`disallowed_special=(enc.special_tokens_set - {TOKEN})`.\n"
                "To disable this check for all special tokens, pass `disallowed_special=()`.\n")
    return template.replace("TOKEN", repr(token))


# ----- fixtures -----


@pytest.fixture(scope="module")
def vocab(shared):
    """<shared>/vocab, skipping when a rank file is missing."""
    missing = [name for name in VOCAB_FILES if not (shared / "vocab" / name).is_file()]
    if missing:
        pytest.skip(f"{shared / 'vocab'} lacks {', '.join(missing)} (set TOKVEC_SHARED_DIR)")
    return shared / "vocab"


@pytest.fixture(scope="module", autouse=True)
def vocab_env(vocab, tmp_path_factory):
    """TOKVEC_VOCAB_PATH=<shared>/vocab and an empty tiktoken cache, for the whole module (module scope keeps
    hypothesis' function-scoped-fixture check quiet; tests that change the environment use monkeypatch on top)."""
    patch = pytest.MonkeyPatch()
    patch.setenv("TOKVEC_VOCAB_PATH", str(vocab))
    patch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("empty-tiktoken-cache")))
    patch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    yield
    patch.undo()


@pytest.fixture
def fresh_registry(monkeypatch):
    """An empty registry of loaded encodings for one test (restored afterwards), so get_encoding reads files again
    under the test's environment."""
    if not hasattr(tiktoken, "_REGISTRY"):
        pytest.fail("tokvec.tiktoken has no _REGISTRY to clear; update this fixture to the module's cache")
    monkeypatch.setattr(tiktoken, "_REGISTRY", {})


@functools.lru_cache(maxsize=None)
def file_ranks(path: str) -> dict:
    """The ranks of a .tiktoken file (one `base64(bytes) rank` a line), read without the module."""
    ranks = {}
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def ranks_of(vocab, name):
    return file_ranks(str(vocab / PUBLISHED[name][0]))


def reference_bpe(ranks: dict, piece: bytes) -> list:
    """Naive byte-pair encoding of one piece: merge the adjacent pair whose bytes have the lowest rank (leftmost on
    a tie) until no adjacent pair is a token; tiktoken's byte_pair_merge, quadratic and obvious."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        i = best[1]
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return [ranks[part] for part in parts]


# ----- a reference encoder: the published patterns run by Python's re, then the naive BPE -----

# Unicode's White_Space property, which \s means in tiktoken's regex engine (Python's \s adds \x1c-\x1f).
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
CATEGORY_GROUPS = {"L": ("Lu", "Ll", "Lt", "Lm", "Lo"), "N": ("Nd", "Nl", "No"), "M": ("Mn", "Mc", "Me")}


@functools.lru_cache(maxsize=None)
def category_ranges() -> dict:
    """General category -> [(first, last) code point], from this Python's unicodedata."""
    ranges = {}
    previous, start = None, 0
    for cp in range(sys.maxunicode + 2):
        category = unicodedata.category(chr(cp)) if cp <= sys.maxunicode else None
        if category != previous:
            if previous is not None:
                ranges.setdefault(previous, []).append((start, cp - 1))
            previous, start = category, cp
    return ranges


def class_body(name: str) -> str:
    r"""The inside of a [...] class for \p{name}: code point ranges as \U escapes."""
    spans = sorted(span for category in CATEGORY_GROUPS.get(name, (name,)) for span in category_ranges()[category])
    return "".join("\\U%08x" % a if a == b else "\\U%08x-\\U%08x" % (a, b) for a, b in spans)


@functools.lru_cache(maxsize=None)
def reference_regex(pattern: str) -> "re.Pattern[str]":
    r"""A published split pattern in Python's re (3.11 has possessive quantifiers): \p{..} becomes explicit ranges,
    \s Unicode White_Space, and $ the very end of the text (\Z), as in tiktoken's engine."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and pattern[i + 1] == "p":
            end = pattern.index("}", i)
            body = class_body(pattern[i + 3:end])
            out.append(body if in_class else f"[{body}]")
            i = end + 1
            continue
        if c == "\\" and pattern[i + 1] in "sS":
            negate = pattern[i + 1] == "S"
            assert not (in_class and negate), "\\S inside a class is not needed by the published patterns"
            out.append(WHITE_SPACE if in_class else f"[{'^' if negate else ''}{WHITE_SPACE}]")
            i += 2
            continue
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "$" and not in_class:
            c = r"\Z"
        out.append(c)
        i += 1
    return re.compile("".join(out))


def reference_pieces(name: str, vocab, text: str) -> list:
    """Ids of each piece of text, split by the published pattern and merged by the naive BPE."""
    ranks = ranks_of(vocab, name)
    pieces = []
    for match in reference_regex(PUBLISHED[name][1]).finditer(text):
        piece = match.group(0).encode("utf-8")
        pieces.append([ranks[piece]] if piece in ranks else reference_bpe(ranks, piece))
    return pieces


def reference_encode_ordinary(name: str, vocab, text: str) -> list:
    return [token for piece in reference_pieces(name, vocab, text) for token in piece]


def reference_encode_bytes(name: str, vocab, data: bytes) -> list:
    """tiktoken's _encode_bytes: UTF-8 is encoded as text; otherwise the valid prefix is, and its last piece (grown
    over the all-white-space tokens before it) is merged again with the bytes after the prefix."""
    try:
        return reference_encode_ordinary(name, vocab, data.decode("utf-8"))
    except UnicodeDecodeError as error:
        valid = error.start
    ranks = ranks_of(vocab, name)
    by_id = {token: piece for piece, token in ranks.items()}
    pieces = reference_pieces(name, vocab, data[:valid].decode("utf-8"))
    tokens = [token for piece in pieces for token in piece]
    last = len(pieces[-1]) if pieces else 0

    def all_space(token):
        return token in by_id and all(b in b" \n\t" for b in by_id[token])

    if last and all_space(tokens[-last]):
        while last < len(tokens) and all_space(tokens[-last - 1]):
            last += 1
    if tokens and last:
        unstable = b"".join(by_id[t] for t in tokens[-last:]) + data[valid:]
        tokens = tokens[:-last]
    else:
        unstable = data[valid:]
    if unstable:
        tokens += [ranks[unstable]] if unstable in ranks else reference_bpe(ranks, unstable)
    return tokens


# Texts where the split patterns have corners: contractions in any case (and the long s that folds to s),
# white-space runs before newlines and at the end, digit runs, Unicode letters of every category, marks, separators
# that are white space to Unicode but not to Python (and the reverse), the o200k case split and its slash rule.
TRICKY_TEXTS = [
    "it's IT'S It'S we'll THEY'RE i'VE I'M you'D don't it'ſ ' 's ''s", "'ll've're'd'm't's", "x'sy",
    "today\n ", "today\n \n", "today\n  \n", "a  \n\n  b", "\r\n\r\n  x", "x\n\n\n   ", "   \n", "  ", " ", "\t\t\tx",
    "x  ", "end \n", "1", "12", "123", "1234", "1234567890", "x1234y", " 1 22 333 4444", "١٢٣٤٥", "Ⅻ½٣",
    "𝟘𝟙𝟚𝟛", "ＡＢＣ１２３", "e\u0301\u0301", "a\u0300\u0300b", "ǅungla ǅUNGLA", "ʰa", "HELLOworld helloWORLD",
    "HelloWorld", "iPhone eBay McDONALD's", "a/b\n/\n", "x //\r\n", "...\r\n\r\n", "!!!\n\n", "\u00a0x", "a\u2028b",
    "x \x1c y", "\x1c\x1d\x1e\x1f", "\x85\x85x", "\u200b\u200c", "\ufeffhi", "🙂🙂 🙂", "👍🏽👨‍👩‍👧", "東京タワー", "Ελληνικά",
    "עברית", "हिन्दी", "நடிகர் சூர்யா", "<|endoftext|>", "$$$ %%% ^^^", "tab\there", "trailing spaces   ",
]


needs_hypothesis = pytest.mark.skipif(hypothesis is None, reason="hypothesis is not installed")


def property_test(**strategies):
    """@hypothesis.given with tiktoken's settings (no deadline, TOKVEC_MAX_EXAMPLES examples), no example database."""
    def wrap(test):
        if hypothesis is None:
            return needs_hypothesis(test)
        settings = hypothesis.settings(deadline=None, max_examples=MAX_EXAMPLES, database=None)
        return settings(hypothesis.given(**strategies)(test))
    return wrap


# ----- simple public examples -----


def test_simple_public_examples():
    enc = tiktoken.get_encoding("gpt2")
    assert enc.encode("hello world") == [31373, 995]
    assert enc.decode([31373, 995]) == "hello world"
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [31373, 220, 50256]

    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]
    assert enc.decode([15339, 1917]) == "hello world"
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [15339, 220, 100257]

    enc = tiktoken.get_encoding("o200k_base")
    assert enc.encode("hello world") == [24912, 2375]
    assert enc.decode([24912, 2375]) == "hello world"


def test_docstring_examples():
    """The examples in tiktoken's docstrings (core.py), all on gpt2."""
    enc = tiktoken.get_encoding("gpt2")
    assert enc.encode_ordinary("hello world") == [31373, 995]
    assert enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [50256]
    assert enc.encode("<|endoftext|>", allowed_special="all") == [50256]
    assert enc.encode("<|endoftext|>", disallowed_special=()) == [27, 91, 437, 1659, 5239, 91, 29]
    with pytest.raises(ValueError):
        enc.encode("<|endoftext|>")
    assert enc.encode_batch(["hello world", "goodbye world"]) == [[31373, 995], [11274, 16390, 995]]
    assert enc.encode_ordinary_batch(["hello world", "goodbye world"]) == [[31373, 995], [11274, 16390, 995]]
    assert enc.encode_single_token("hello") == 31373
    assert enc.decode_bytes([31373, 995]) == b"hello world"
    assert enc.decode_single_token_bytes(31373) == b"hello"
    assert enc.decode_tokens_bytes([31373, 995]) == [b"hello", b" world"]
    assert enc.decode_with_offsets([31373, 995]) == ("hello world", [0, 5])


def test_simple_repeated():
    enc = tiktoken.get_encoding("gpt2")
    zeros = {1: [15], 2: [405], 3: [830], 4: [2388], 5: [20483], 6: [10535], 7: [24598], 8: [8269],
             9: [10535, 830], 10: [8269, 405], 11: [8269, 830], 12: [8269, 2388], 13: [8269, 20483],
             14: [8269, 10535], 15: [8269, 24598], 16: [25645], 17: [8269, 10535, 830]}
    for n, ids in zeros.items():
        assert enc.encode("0" * n) == ids, n


def test_simple_regex():
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("rer") == [38149]
    assert enc.encode("'rer") == [2351, 81]
    assert enc.encode("today\n ") == [31213, 198, 220]
    assert enc.encode("today\n \n") == [31213, 27907]
    assert enc.encode("today\n  \n") == [31213, 14211]


def test_basic_encode():
    assert tiktoken.get_encoding("r50k_base").encode("hello world") == [31373, 995]
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]
    assert enc.encode(" \x850") == [220, 126, 227, 15]


@pytest.mark.parametrize("name", AVAILABLE)
def test_encode_empty(name):
    enc = tiktoken.get_encoding(name)
    assert enc.encode("") == []
    assert enc.encode_ordinary("") == []
    assert enc.decode([]) == ""
    assert enc.decode_bytes([]) == b""
    assert enc.encode_batch([]) == []
    assert enc.encode_batch([""]) == [[]]
    assert enc.decode_with_offsets([]) == ("", [])


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_words_match_reference_bpe(name, vocab):
    """A word after a space is one piece in all three patterns, so its ids are the naive BPE of its bytes."""
    enc, ranks = tiktoken.get_encoding(name), ranks_of(vocab, name)
    for word in ["hello", " world", " goodbye", " tokenization", " antidisestablishmentarianism", " qqqqqqqq",
                 " Zürich", " naïveté"]:
        assert enc.encode(word) == reference_bpe(ranks, word.encode("utf-8")), word


def test_encode_bytes():
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc._encode_bytes(b" \xec\x8b\xa4\xed") == [62085]
    for i in range(10):
        data = b"\x80" * i
        assert enc.decode_bytes(enc._encode_bytes(data)) == data


def test_encode_surrogate_pairs():
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("👍") == [9468, 239, 235]
    assert enc.encode("\ud83d\udc4d") == [9468, 239, 235]  # a surrogate pair becomes its code point
    assert enc.encode("\ud83d") == enc.encode("�")  # a lone surrogate becomes U+FFFD
    assert enc.encode_ordinary("\ud83d\udc4d") == [9468, 239, 235]
    assert enc.encode_ordinary("\ud83d") == enc.encode_ordinary("�")
    assert enc.encode_batch(["\ud83d\udc4d", "a\ud83d"]) == [[9468, 239, 235], enc.encode("a�")]
    assert enc.encode_ordinary_batch(["\ud83d\udc4d", "a\ud83d"]) == [[9468, 239, 235], enc.encode("a�")]
    assert enc.encode_to_numpy("\ud83d\udc4d").tolist() == [9468, 239, 235]


def test_large_repeated():
    enc = tiktoken.get_encoding("o200k_base")
    tokens = enc.encode("x" * 1_000_000)  # large inputs are handled without raising
    assert tokens
    assert enc.decode(tokens) == "x" * 1_000_000


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_catastrophically_repetitive(name):
    enc = tiktoken.get_encoding(name)
    for c in ["^", "0", "a", "'s", " ", "\n"]:
        value = c * 10_000
        assert enc.decode(enc.encode(value)) == value
        value = " " + value
        assert enc.decode(enc.encode(value)) == value
        value = value + "\n"
        assert enc.decode(enc.encode(value)) == value


@pytest.mark.parametrize("name", AVAILABLE)
def test_basic_roundtrip(name):
    enc = tiktoken.get_encoding(name)
    for value in ["hello", "hello ", "hello  ", " hello", " hello ", " hello  ", "hello world", "请考试我的软件！12345",
                  "naïve café — 東京 🙂\r\n\ttabs", "<|endoftext|> as text"]:
        if value.startswith("<|"):
            assert enc.decode(enc.encode(value, disallowed_special=())) == value
        else:
            assert enc.decode(enc.encode(value)) == value
        assert enc.decode(enc.encode_ordinary(value)) == value


# ----- attributes -----


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_attributes(name, vocab):
    file, pattern, specials, n_vocab = PUBLISHED[name]
    enc = tiktoken.get_encoding(name)
    assert enc.name == name
    assert repr(enc) == f"<Encoding '{name}'>"
    assert enc._pat_str == pattern
    assert enc._special_tokens == specials
    assert enc.special_tokens_set == set(specials)
    assert enc.eot_token == specials["<|endoftext|>"]
    assert enc.n_vocab == n_vocab
    assert enc.max_token_value == n_vocab - 1
    assert enc._mergeable_ranks == file_ranks(str(vocab / file))
    assert enc.token_byte_values() == sorted(file_ranks(str(vocab / file)))
    for token in specials.values():
        assert enc.is_special_token(token)
    assert not enc.is_special_token(0)
    assert not enc.is_special_token(enc.encode_single_token("hello"))


def test_o200k_harmony_special_tokens():
    enc = tiktoken.get_encoding("o200k_harmony")
    base = tiktoken.get_encoding("o200k_base")
    assert repr(enc) == "<Encoding 'o200k_harmony'>"
    assert enc._pat_str == O200K_PAT
    assert enc._mergeable_ranks == base._mergeable_ranks
    assert enc.n_vocab == 201088 and enc.max_token_value == 201087
    named = {"<|startoftext|>": 199998, "<|endoftext|>": 199999, "<|endofprompt|>": 200018,
             "<|reserved_200000|>": 200000, "<|reserved_200001|>": 200001, "<|return|>": 200002,
             "<|constrain|>": 200003, "<|reserved_200004|>": 200004, "<|channel|>": 200005, "<|start|>": 200006,
             "<|end|>": 200007, "<|message|>": 200008, "<|reserved_200009|>": 200009,
             "<|reserved_200010|>": 200010, "<|reserved_200011|>": 200011, "<|call|>": 200012}
    expected = {**named, **{f"<|reserved_{i}|>": i for i in range(200013, 201088)}}
    assert enc._special_tokens == expected
    assert len(enc.special_tokens_set) == 1091
    assert enc.eot_token == 199999
    # 200018 has two names; both encode to it
    assert enc.encode_single_token("<|endofprompt|>") == enc.encode_single_token("<|reserved_200018|>") == 200018
    assert enc.encode("<|start|>user<|message|>hi<|end|>", allowed_special="all") == \
        [200006] + enc.encode("user") + [200008] + enc.encode("hi") + [200007]
    with pytest.raises(ValueError, match=re.escape("'<|call|>'")):
        enc.encode("x <|call|>")


def test_custom_encoding_without_endoftext():
    base = tiktoken.get_encoding("gpt2")
    enc = tiktoken.Encoding("no_eot", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                            special_tokens={})
    with pytest.raises(KeyError):
        enc.eot_token
    assert enc.special_tokens_set == set()
    assert enc.n_vocab == 50256 and enc.max_token_value == 50255
    assert enc.encode("<|endoftext|>") == base.encode_ordinary("<|endoftext|>")  # nothing is special


def test_explicit_n_vocab_is_checked():
    base = tiktoken.get_encoding("gpt2")
    fields = dict(pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                  special_tokens={"<|endoftext|>": 50256})
    assert tiktoken.Encoding("ok", explicit_n_vocab=50257, **fields).n_vocab == 50257
    with pytest.raises(AssertionError):
        tiktoken.Encoding("bad", explicit_n_vocab=50258, **fields)


def test_custom_pattern_matches_reference(vocab):
    """A pattern that is none of OpenAI's is honoured: pieces as Python's re splits them (the pattern means the same
    in every engine), each merged by the naive BPE."""
    ranks = ranks_of(vocab, "gpt2")
    pattern = r"""[0-9]+|[A-Za-z]+|\s+|[^\sA-Za-z0-9]+"""
    enc = tiktoken.Encoding("digits_letters", pat_str=pattern, mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": 50256})
    for text in ["hello world", "Hello, World!! 12345 abc123def", "tabs\tand\nnewlines  end ", "café 東京 🙂x",
                 "<|endoftext|>"]:
        expected = [t for piece in re.findall(pattern, text) for t in reference_bpe(ranks, piece.encode("utf-8"))]
        assert enc.encode_ordinary(text) == expected, text
        assert enc.decode(expected) == text
    assert enc.encode("a<|endoftext|>b", allowed_special="all") == [ranks[b"a"], 50256, ranks[b"b"]]


def test_tiny_custom_encoding():
    """A hand-built vocabulary: 256 bytes plus three merges; BPE of "aaabdaaabac" (Wikipedia's example)."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"aa": 256, b"ab": 257, b"aaab": 258})
    enc = tiktoken.Encoding("tiny", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={"<|end|>": 300})
    assert enc.max_token_value == 300 and enc.n_vocab == 301
    assert enc.encode("aaabdaaabac") == reference_bpe(ranks, b"aaabdaaabac") == [258, 100, 258, 97, 99]
    assert enc.encode("aaab <|end|>", allowed_special={"<|end|>"}) == [258, 32, 300]
    for gap in (259, 299, 301):
        with pytest.raises(KeyError):
            enc.decode_single_token_bytes(gap)
    assert enc.decode_single_token_bytes(300) == b"<|end|>"
    assert enc.token_byte_values() == sorted(ranks)


# ----- single tokens: every id -----


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_single_token_roundtrip_every_id(name):
    """decode_single_token_bytes then encode_single_token gives every id back; ids that are no token (the gaps
    below n_vocab, and n_vocab itself) raise KeyError from both decoders."""
    enc = tiktoken.get_encoding(name)
    specials = PUBLISHED[name][2]
    expected_gaps = {"gpt2": [], "cl100k_base": [100256] + list(range(100261, 100276)),
                     "o200k_base": [199998] + list(range(200000, 200018))}[name]
    gaps, all_bytes, ids = [], [], []
    for token in range(enc.n_vocab):
        try:
            data = enc.decode_single_token_bytes(token)
        except KeyError:
            gaps.append(token)
            continue
        assert enc.encode_single_token(data) == token, (token, data)
        ids.append(token)
        all_bytes.append(data)
    assert gaps == expected_gaps
    assert len(ids) == len(enc._mergeable_ranks) + len(specials)
    assert enc.decode_bytes(ids) == b"".join(all_bytes)
    for token in gaps + [enc.n_vocab, enc.n_vocab + 1000]:
        with pytest.raises(KeyError):
            enc.decode_single_token_bytes(token)
        with pytest.raises(KeyError):
            enc.decode_bytes([enc.encode_single_token("hello"), token])
        with pytest.raises(KeyError):
            enc.decode([token])
        assert not enc.is_special_token(token)
    for text, token in specials.items():
        assert enc.encode_single_token(text) == token
        assert enc.encode_single_token(text.encode()) == token
        assert enc.decode_single_token_bytes(token) == text.encode()


@pytest.mark.parametrize("name", AVAILABLE)
def test_encode_single_token_unknown(name):
    enc = tiktoken.get_encoding(name)
    for unknown in [b"\xff\xfe not one token", "hello world, not one token", "<|not_special|>", b""]:
        with pytest.raises(KeyError):
            enc.encode_single_token(unknown)
    assert enc.encode_single_token(b"a") == enc.encode_single_token("a") == enc.encode_ordinary("a")[0]


def test_simple_first_ten_thousand_of_every_listed_encoding():
    """tiktoken's test_simple_public loop, over the encodings whose files are present."""
    for name in AVAILABLE:
        enc = tiktoken.get_encoding(name)
        for token in range(10_000):
            assert enc.encode_single_token(enc.decode_single_token_bytes(token)) == token


# ----- decoding -----


def test_decode_errors_and_tokens_bytes():
    enc = tiktoken.get_encoding("cl100k_base")
    head = enc.encode_single_token(b"\xe6")  # the first byte of a 3-byte character alone
    assert enc.decode([head]) == "\ufffd"
    assert enc.decode([head], errors="ignore") == ""
    with pytest.raises(UnicodeDecodeError):
        enc.decode([head], errors="strict")
    assert enc.decode_bytes([head]) == b"\xe6"
    tokens = enc.encode("🙂 fine")
    assert enc.decode_tokens_bytes(tokens) == [enc.decode_single_token_bytes(t) for t in tokens]
    assert b"".join(enc.decode_tokens_bytes(tokens)) == "🙂 fine".encode()
    batch = [enc.encode("one"), [head], enc.encode("three 三")]
    assert enc.decode_batch(batch) == ["one", "\ufffd", "three 三"]
    assert enc.decode_batch(batch, errors="ignore") == ["one", "", "three 三"]
    assert enc.decode_bytes_batch(batch) == [b"one", b"\xe6", "three 三".encode()]


def test_encode_to_numpy():
    enc = tiktoken.get_encoding("cl100k_base")
    text = "hello world, 東京 🙂 <|endoftext|>"
    array = enc.encode_to_numpy(text, allowed_special="all")
    assert isinstance(array, np.ndarray) and array.dtype == np.uint32
    assert array.tolist() == enc.encode(text, allowed_special="all")
    assert enc.encode_to_numpy(text, disallowed_special=()).tolist() == enc.encode_ordinary(text)
    with pytest.raises(ValueError) as error:
        enc.encode_to_numpy(text)
    assert str(error.value) == expected_disallowed_message("<|endoftext|>")


# ----- special tokens -----


def test_special_token():
    enc = tiktoken.get_encoding("cl100k_base")
    eot = enc.encode_single_token("<|endoftext|>")
    assert eot == enc.eot_token
    fip = enc.encode_single_token("<|fim_prefix|>")
    fim = enc.encode_single_token("<|fim_middle|>")

    text = "<|endoftext|> hello <|fim_prefix|>"
    assert eot not in enc.encode(text, disallowed_special=())
    for disallowed in ["all", {"<|endoftext|>"}, {"<|fim_prefix|>"}]:
        with pytest.raises(ValueError):
            enc.encode(text, disallowed_special=disallowed)
    with pytest.raises(ValueError):
        enc.encode(text)

    text = "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>"
    cases = [  # (allowed_special, disallowed_special) -> which of eot, fip, fim become special ids
        (set(), (), (False, False, False)),
        ("all", (), (True, True, True)),
        ("all", "all", (True, True, True)),
        ({"<|fim_prefix|>"}, (), (False, True, False)),
        ({"<|endoftext|>"}, (), (True, False, False)),
        ({"<|fim_middle|>"}, (), (False, False, True)),
    ]
    for allowed, disallowed, present in cases:
        tokens = enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        assert (eot in tokens, fip in tokens, fim in tokens) == present, (allowed, disallowed)
        assert enc.decode(tokens) == text


def test_disallowed_special_message():
    """The ValueError names the first disallowed special text in the input, with tiktoken's exact wording."""
    enc = tiktoken.get_encoding("cl100k_base")
    cases = [
        ("hello <|endoftext|>", {}, "<|endoftext|>"),
        ("<|fim_prefix|> a <|endoftext|>", {}, "<|fim_prefix|>"),
        ("<|endoftext|> hello <|fim_prefix|>", {"disallowed_special": {"<|fim_prefix|>"}}, "<|fim_prefix|>"),
        ("<|endoftext|> hello <|fim_prefix|>", {"allowed_special": {"<|endoftext|>"}}, "<|fim_prefix|>"),
        ("x<|endofprompt|>y", {"disallowed_special": ["<|endofprompt|>"]}, "<|endofprompt|>"),
        # tiktoken does not require disallowed texts to be special tokens: any text listed is refused
        ("hello world", {"disallowed_special": {"hello"}}, "hello"),
    ]
    for text, options, token in cases:
        with pytest.raises(ValueError) as error:
            enc.encode(text, **options)
        assert str(error.value) == expected_disallowed_message(token), (text, options)
        with pytest.raises(ValueError) as error:
            enc.encode_batch(["fine", text], **options)
        assert str(error.value) == expected_disallowed_message(token), (text, options)
    gpt2 = tiktoken.get_encoding("gpt2")
    with pytest.raises(ValueError) as error:
        gpt2.encode("<|endoftext|>")
    assert str(error.value) == expected_disallowed_message("<|endoftext|>")
    # text that merely looks special is not refused
    assert enc.encode("<|endoftext|") == enc.encode_ordinary("<|endoftext|")
    assert enc.encode("<|fim_prefix|>", disallowed_special=enc.special_tokens_set - {"<|fim_prefix|>"}) == \
        enc.encode_ordinary("<|fim_prefix|>")


def test_allowed_special_text_anywhere():
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode("a<|endoftext|>b", allowed_special="all") == \
        enc.encode("a") + [100257] + enc.encode("b")
    assert enc.encode("<|endoftext|><|endoftext|>", allowed_special={"<|endoftext|>"}) == [100257, 100257]
    assert enc.encode("<|fim_suffix|><|endofprompt|>", allowed_special="all") == [100260, 100276]


# ----- batches -----


BATCH = ["hello world", "goodbye world", "", " ", "请考试我的软件！12345", "naïve café\r\n\tx", "🙂" * 50,
         "0" * 33, "it's we'll THEY'RE", "<|endoftext|> special", "a" * 5000]


@pytest.mark.parametrize("name", AVAILABLE)
def test_batch_equals_one_by_one(name):
    enc = tiktoken.get_encoding(name)
    plain = [t for t in BATCH if "<|" not in t]
    assert enc.encode_batch(plain) == [enc.encode(t) for t in plain]
    for threads in (1, 3, 8):
        assert enc.encode_batch(BATCH, num_threads=threads, allowed_special="all") == \
            [enc.encode(t, allowed_special="all") for t in BATCH]
        assert enc.encode_batch(BATCH, num_threads=threads, disallowed_special=()) == \
            [enc.encode(t, disallowed_special=()) for t in BATCH]
        assert enc.encode_ordinary_batch(BATCH, num_threads=threads) == [enc.encode_ordinary(t) for t in BATCH]
    encoded = enc.encode_batch(BATCH, allowed_special="all")
    assert enc.decode_batch(encoded) == [enc.decode(t) for t in encoded] == BATCH
    assert enc.decode_bytes_batch(encoded) == [enc.decode_bytes(t) for t in encoded]
    assert enc.encode_batch(BATCH, allowed_special={"<|endoftext|>"}) == \
        [enc.encode(t, allowed_special={"<|endoftext|>"}) for t in BATCH]


def test_large_batch_on_threads():
    enc = tiktoken.get_encoding("cl100k_base")
    texts = [f"line {i}: {'word ' * (i % 17)}{chr(0x4E00 + i)} {i * 7919}" for i in range(2000)]
    assert enc.encode_batch(texts, num_threads=8) == [enc.encode(t) for t in texts]
    assert enc.encode_batch(tuple(texts[:10])) == [enc.encode(t) for t in texts[:10]]  # any sequence


# ----- offsets -----


def test_basic_offsets():
    enc = tiktoken.get_encoding("cl100k_base")
    cases = [
        ("hello world", [0, 5], {}),
        ("hello world<|endoftext|> green cow", [0, 5, 11, 24, 30], {"allowed_special": "all"}),
        ("我非常渴望与人工智能一起工作", [0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11, 12, 13], {}),
        # b'\xe0\xae\xbf\xe0\xae' and b'\xe0\xaf\x8d\xe0\xae': tokens ending inside a 3-byte character
        ("நடிகர் சூர்யா", [0, 0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11, 12, 12], {}),
        # b'\xa0\xe9\x99\xa4': a token starting with a continuation byte
        (" Ġ除", [0, 1], {}),
    ]
    for text, offsets, options in cases:
        assert enc.decode_with_offsets(enc.encode(text, **options)) == (text, offsets), text


def test_offsets_of_split_characters():
    """Tokens that split one character: each starts at the index of the character holding its first byte."""
    enc = tiktoken.get_encoding("cl100k_base")
    tokens = enc.encode("👍")  # [9468, 239, 235]: one character over three tokens
    assert enc.decode_with_offsets(tokens) == ("👍", [0, 0, 0])
    tokens = enc.encode("a👍b")
    text, offsets = enc.decode_with_offsets(tokens)
    assert text == "a👍b" and offsets == offsets_reference(enc, tokens)
    with pytest.raises(UnicodeDecodeError):  # bytes that are not UTF-8 raise, as tiktoken documents
        enc.decode_with_offsets(tokens[:2])


def common_prefix_len(a, b):
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    return i


def offsets_reference(enc, tokens):
    """Offset of token i: the length of the text the tokens before it decode to (ignoring a partial character)."""
    text = enc.decode(tokens, errors="strict")
    return [common_prefix_len(text, enc.decode(tokens[:i], errors="ignore")) for i in range(len(tokens))]


@functools.lru_cache(maxsize=None)
def token_ids(name):
    """Every id of an encoding that is a token (mergeable or special), sorted."""
    enc = tiktoken.get_encoding(name)
    return sorted(set(enc._mergeable_ranks.values()) | set(enc._special_tokens.values()))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@property_test(data=st.data() if hypothesis else None)
def test_hyp_offsets(name, data):
    enc = tiktoken.get_encoding(name)
    tokens = data.draw(st.lists(st.sampled_from(token_ids(name)), min_size=1, max_size=20))
    # make the tokens valid UTF-8, as tiktoken's test does
    tokens = enc.encode(enc.decode(tokens, errors="ignore"), allowed_special="all")
    assert enc.decode_with_offsets(tokens)[1] == offsets_reference(enc, tokens)


# ----- property tests -----


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
@property_test(text=st.text() if hypothesis else None)
def test_hyp_roundtrip(name, text):
    enc = tiktoken.get_encoding(name)
    assert enc.decode(enc.encode(text, disallowed_special=())) == text
    assert enc.encode_ordinary(text) == enc.encode(text, disallowed_special=())
    assert enc._encode_bytes(text.encode("utf-8")) == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
@property_test(data=st.binary() if hypothesis else None)
def test_hyp_encode_bytes(name, data):
    enc = tiktoken.get_encoding(name)
    assert enc.decode_bytes(enc._encode_bytes(data)) == data


@property_test(batch=st.lists(st.text(), max_size=12) if hypothesis else None)
def test_hyp_batch_roundtrip(batch):
    enc = tiktoken.get_encoding("cl100k_base")
    encoded = enc.encode_batch(batch, allowed_special="all")
    assert encoded == [enc.encode(t, allowed_special="all") for t in batch]
    assert enc.decode_batch(encoded) == batch


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@property_test(word=st.text(alphabet=string.ascii_lowercase + "éüß", min_size=1, max_size=24) if hypothesis
               else None)
def test_hyp_word_matches_reference_bpe(name, word, vocab):
    enc = tiktoken.get_encoding(name)
    assert enc.encode(" " + word) == reference_bpe(ranks_of(vocab, name), (" " + word).encode("utf-8"))


# ----- the reference encoder -----


def test_reference_encoder_reproduces_goldens(vocab):
    """The oracle itself gives tiktoken's published ids, and the three patterns split differently."""
    goldens = [("gpt2", "hello world", [31373, 995]), ("gpt2", "000000000", [10535, 830]),
               ("gpt2", "<|endoftext|>", [27, 91, 437, 1659, 5239, 91, 29]),
               ("cl100k_base", "'rer", [2351, 81]), ("cl100k_base", "today\n ", [31213, 198, 220]),
               ("cl100k_base", "today\n \n", [31213, 27907]), ("cl100k_base", "today\n  \n", [31213, 14211]),
               ("cl100k_base", " \x850", [220, 126, 227, 15]), ("cl100k_base", "👍", [9468, 239, 235]),
               ("o200k_base", "hello world", [24912, 2375])]
    for name, text, ids in goldens:
        assert reference_encode_ordinary(name, vocab, text) == ids, (name, text)
    assert reference_encode_bytes("cl100k_base", vocab, b" \xec\x8b\xa4\xed") == [62085]

    def split(name, text):
        return [m.group(0) for m in reference_regex(PUBLISHED[name][1]).finditer(text)]

    assert split("gpt2", "it's 1234 \n\n x  ") == ["it", "'s", " 1234", " \n\n", " x", "  "]
    assert split("cl100k_base", "it's 1234 \n\n x  ") == ["it", "'s", " ", "123", "4", " \n\n", " x", "  "]
    assert split("o200k_base", "HelloWorld it's a/b\n") == ["Hello", "World", " it's", " a", "/b", "\n"]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_tricky_texts_match_reference(name, vocab):
    enc = tiktoken.get_encoding(name)
    for text in TRICKY_TEXTS:
        want = reference_encode_ordinary(name, vocab, text)
        got = enc.encode_ordinary(text)
        assert got == want, (text, [enc.decode_single_token_bytes(t) for t in got],
                             [enc.decode_single_token_bytes(t) for t in want])
        assert enc._encode_bytes(text.encode("utf-8")) == want
        cut = text.encode("utf-8")[:-1]  # the last character cut inside: not UTF-8 when it was multi-byte
        assert enc._encode_bytes(cut) == reference_encode_bytes(name, vocab, cut), text


# Characters this Python's Unicode tables know (a character unassigned here may be a letter to the module's newer
# tables), never surrogates.
ASSIGNED = st.characters(blacklist_categories=("Cs", "Cn")) if hypothesis else None
CORNERS = (st.sampled_from(list(" \t\n\r\x0b\x0c\x85\xa0\u2028\u3000'sStTlLdDmMvVeErR0123456789aAéÉ/.,!"
                                "\u0301\u02b0\u01c5Ⅻ½٣ſ🙂東")) if hypothesis else None)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@property_test(text=(st.text(alphabet=ASSIGNED, max_size=40) | st.text(alphabet=CORNERS, max_size=30))
               if hypothesis else None)
def test_hyp_encode_matches_reference(name, text, vocab):
    enc = tiktoken.get_encoding(name)
    assert enc.encode_ordinary(text) == reference_encode_ordinary(name, vocab, text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
@property_test(text=(st.text(alphabet=ASSIGNED, max_size=20) | st.text(alphabet=CORNERS, max_size=20))
               if hypothesis else None,
               junk=st.binary(max_size=6) if hypothesis else None)
def test_hyp_encode_bytes_matches_reference(name, text, junk, vocab):
    enc = tiktoken.get_encoding(name)
    data = text.encode("utf-8") + junk
    assert enc._encode_bytes(data) == reference_encode_bytes(name, vocab, data)


# ----- numpy ids and threads -----


def test_decode_accepts_numpy_ids():
    """tiktoken's decoders take any sequence of integers (pyo3 reads each through __index__), so the array
    encode_to_numpy returns, and numpy scalars (an argmax), decode as lists do."""
    enc = tiktoken.get_encoding("cl100k_base")
    text = "hello world 🙂"
    array = enc.encode_to_numpy(text)
    assert enc.decode(array) == text
    assert enc.decode_bytes(array) == text.encode()
    assert enc.decode_tokens_bytes(array) == enc.decode_tokens_bytes(enc.encode(text))
    assert enc.decode_with_offsets(array) == enc.decode_with_offsets(enc.encode(text))
    assert enc.decode_batch([array, array[:2]]) == [text, "hello world"]
    assert enc.decode([np.int64(15339), np.uint32(1917)]) == "hello world"
    assert enc.decode_single_token_bytes(np.int64(15339)) == b"hello"


def test_get_encoding_from_threads(fresh_registry):
    """The registry loads each encoding once, however many threads ask at the same moment."""
    found, barrier = [], threading.Barrier(8)

    def ask():
        barrier.wait()
        found.append(tiktoken.get_encoding("cl100k_base"))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8 and all(enc is found[0] for enc in found)


# ----- pickling -----


def test_pickle_registry_encoding_by_name():
    for name in ["r50k_base", "cl100k_base", "o200k_harmony"]:
        enc = tiktoken.get_encoding(name)
        data = pickle.dumps(enc)
        assert len(data) < 1000, f"{name} pickled to {len(data)} bytes, not by its name"
        copy = pickle.loads(data)
        assert copy.name == name and repr(copy) == repr(enc)
        assert copy.encode("hello world <|endoftext|>", allowed_special="all") == \
            enc.encode("hello world <|endoftext|>", allowed_special="all")
        assert copy._special_tokens == enc._special_tokens and copy.n_vocab == enc.n_vocab


def test_pickle_custom_encoding_by_fields():
    base = tiktoken.get_encoding("r50k_base")
    enc = tiktoken.Encoding(name="custom_enc", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                            special_tokens={"<|pickle|>": 100_000})
    data = pickle.dumps(enc)
    assert len(data) > 100_000  # the ranks travel with it
    copy = pickle.loads(data)
    assert copy.name == "custom_enc"
    assert copy.encode("hello world") == enc.encode("hello world") == [31373, 995]
    assert copy.encode("<|pickle|>", allowed_special="all") == enc.encode("<|pickle|>", allowed_special="all") == \
        [100_000]
    assert copy.max_token_value == 100_000 and copy.n_vocab == 100_001
    assert copy._mergeable_ranks == base._mergeable_ranks


def test_pickle_custom_encoding_named_like_a_registry_one():
    """Only the registry's own object pickles by name: a custom encoding called "cl100k_base" keeps its fields."""
    base = tiktoken.get_encoding("cl100k_base")
    enc = tiktoken.Encoding("cl100k_base", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                            special_tokens={"<|only_mine|>": 100300})
    copy = pickle.loads(pickle.dumps(enc))
    assert copy._special_tokens == {"<|only_mine|>": 100300}
    assert copy.encode("<|only_mine|> hello world", allowed_special="all") == [100300] + base.encode(" hello world")
    assert copy.encode("hello world") == base.encode("hello world")
    with pytest.raises(KeyError):
        copy.eot_token


def test_custom_encoding_from_registry_fields_matches():
    for name in ["cl100k_base", "o200k_base"]:
        base = tiktoken.get_encoding(name)
        enc = tiktoken.Encoding(f"my_{name}", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                                special_tokens=base._special_tokens)
        text = "Hello, World! it's 12345 请考试 \n\n  <|endoftext|> 🙂"
        assert enc.encode(text, allowed_special="all") == base.encode(text, allowed_special="all")
        assert enc.n_vocab == base.n_vocab


# ----- registry and models -----


def test_registry():
    assert set(tiktoken.list_encoding_names()) == {"gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base",
                                                   "o200k_base", "o200k_harmony"}
    assert tiktoken.get_encoding("cl100k_base") is tiktoken.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="^Unknown encoding no_such_encoding"):
        tiktoken.get_encoding("no_such_encoding")
    with pytest.raises(ValueError, match="^Expected a string in get_encoding"):
        tiktoken.get_encoding(42)


def test_encoding_for_model():
    for model, name in [("gpt2", "gpt2"), ("gpt-3.5-turbo-0301", "cl100k_base"), ("gpt-4", "cl100k_base"),
                        ("gpt-4o", "o200k_base"), ("gpt-oss-120b", "o200k_harmony"), ("davinci", "r50k_base")]:
        enc = tiktoken.encoding_for_model(model)
        assert enc.name == name, model
        assert enc is tiktoken.get_encoding(name)


def test_encoding_name_for_model():
    table = {
        "gpt2": "gpt2", "gpt-2": "gpt2", "text-davinci-003": "p50k_base", "code-davinci-002": "p50k_base",
        "text-davinci-edit-001": "p50k_edit", "davinci": "r50k_base", "text-embedding-ada-002": "cl100k_base",
        "text-embedding-3-small": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-4": "cl100k_base",
        "gpt-4o": "o200k_base", "o1": "o200k_base", "o3": "o200k_base", "gpt-5": "o200k_base",
        # prefixes
        "gpt-4-32k": "cl100k_base", "gpt-4-0314": "cl100k_base", "gpt-3.5-turbo-16k": "cl100k_base",
        "gpt-35-turbo-0613": "cl100k_base", "gpt-4o-2024-05-13": "o200k_base", "gpt-4o-mini": "o200k_base",
        "chatgpt-4o-latest": "o200k_base", "gpt-4.1-mini": "o200k_base", "gpt-5-nano": "o200k_base",
        "o1-preview": "o200k_base", "o4-mini-high": "o200k_base", "gpt-oss-20b": "o200k_harmony",
        "ft:gpt-4o-2024-08-06:org::id": "o200k_base", "ft:gpt-3.5-turbo-0613:org::id": "cl100k_base",
        "ft:davinci-002:org::id": "cl100k_base",
    }
    for model, name in table.items():
        assert tiktoken.encoding_name_for_model(model) == name, model


def test_unknown_model_raises_key_error():
    for model in ["no-such-model", "gpt-3", "", "GPT-4"]:
        with pytest.raises(KeyError) as error:
            tiktoken.encoding_name_for_model(model)
        assert error.value.args[0] == (
            f"Could not automatically map {model} to a tokeniser. "
            "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect.")
        with pytest.raises(KeyError):
            tiktoken.encoding_for_model(model)


# ----- where encoding files are found -----


def cache_key(file: str) -> str:
    """tiktoken's cache file name: the SHA-1 of the blob URL (load.py, read_file_cached)."""
    return hashlib.sha1((BLOB + file).encode()).hexdigest()


# name -> (file in the shared dir, file at tiktoken's blob URL, "hello world" ids)
CACHED = {
    "cl100k_base": ("cl100k_base.tiktoken", "cl100k_base.tiktoken", [15339, 1917]),
    "r50k_base": ("gpt2.tiktoken", "r50k_base.tiktoken", [31373, 995]),
    "o200k_base": ("o200k_base.tiktoken", "o200k_base.tiktoken", [24912, 2375]),
    "o200k_harmony": ("o200k_base.tiktoken", "o200k_base.tiktoken", [24912, 2375]),
}


@pytest.mark.parametrize("name", list(CACHED))
def test_tiktoken_cache_dir(name, vocab, tmp_path, monkeypatch, fresh_registry):
    shared_file, blob_file, hello = CACHED[name]
    shutil.copyfile(vocab / shared_file, tmp_path / cache_key(blob_file))
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    enc = tiktoken.get_encoding(name)
    assert enc.name == name
    assert enc.encode("hello world") == hello
    assert enc._mergeable_ranks == file_ranks(str(vocab / shared_file))


def test_data_gym_cache_dir(vocab, tmp_path, monkeypatch, fresh_registry):
    shutil.copyfile(vocab / "cl100k_base.tiktoken", tmp_path / cache_key("cl100k_base.tiktoken"))
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path))
    assert tiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_default_cache_dir_under_tempdir(vocab, tmp_path, monkeypatch, fresh_registry):
    cache = tmp_path / "data-gym-cache"
    cache.mkdir()
    shutil.copyfile(vocab / "cl100k_base.tiktoken", cache / cache_key("cl100k_base.tiktoken"))
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert tempfile.gettempdir() == str(tmp_path)
    assert tiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_tiktoken_cache_dir_wins_over_data_gym(vocab, tmp_path, monkeypatch, fresh_registry):
    (tmp_path / "tiktoken").mkdir()
    (tmp_path / "gym").mkdir()
    shutil.copyfile(vocab / "cl100k_base.tiktoken", tmp_path / "gym" / cache_key("cl100k_base.tiktoken"))
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path / "gym"))
    with pytest.raises(FileNotFoundError) as error:
        tiktoken.get_encoding("cl100k_base")
    assert str(tmp_path / "tiktoken" / cache_key("cl100k_base.tiktoken")) in str(error.value)


def test_cache_file_with_wrong_hash_is_not_used(vocab, tmp_path, monkeypatch, fresh_registry):
    """tiktoken drops a cached file whose SHA-256 is not the published one (and would download again)."""
    data = (vocab / "cl100k_base.tiktoken").read_bytes()
    (tmp_path / cache_key("cl100k_base.tiktoken")).write_bytes(data[:-100])
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError) as error:
        tiktoken.get_encoding("cl100k_base")
    assert cache_key("cl100k_base.tiktoken") in str(error.value)


def test_vocab_path_comes_before_the_cache(vocab, tmp_path, monkeypatch, fresh_registry):
    """A file in TOKVEC_VOCAB_PATH (here cl100k's first 1000 ranks) is used even when the cache holds the full one."""
    (tmp_path / "vocab").mkdir()
    (tmp_path / "cache").mkdir()
    lines = (vocab / "cl100k_base.tiktoken").read_bytes().splitlines(keepends=True)
    (tmp_path / "vocab" / "cl100k_base.tiktoken").write_bytes(b"".join(lines[:1000]))
    shutil.copyfile(vocab / "cl100k_base.tiktoken", tmp_path / "cache" / cache_key("cl100k_base.tiktoken"))
    monkeypatch.setenv("TOKVEC_VOCAB_PATH", str(tmp_path / "vocab"))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    enc = tiktoken.get_encoding("cl100k_base")
    assert len(enc._mergeable_ranks) == 1000
    assert enc.decode(enc.encode("hello world")) == "hello world"


def test_vocab_path_directories_in_order(vocab, tmp_path, monkeypatch, fresh_registry):
    (tmp_path / "empty").mkdir()
    (tmp_path / "gpt2").mkdir()
    shutil.copyfile(vocab / "gpt2.tiktoken", tmp_path / "gpt2" / "r50k_base.tiktoken")
    paths = [str(tmp_path / "empty"), str(tmp_path / "missing"), str(tmp_path / "gpt2"), str(vocab)]
    monkeypatch.setenv("TOKVEC_VOCAB_PATH", os.pathsep.join(paths))
    assert tiktoken.get_encoding("gpt2").encode("hello world") == [31373, 995]  # gpt2 reads r50k_base.tiktoken
    assert tiktoken.get_encoding("o200k_harmony").encode("hello world") == [24912, 2375]  # from the last dir


def test_p50k_encodings_read_p50k_base_file(vocab, tmp_path, monkeypatch, fresh_registry):
    """p50k_edit reads p50k_base.tiktoken. The file here is made up (r50k's ranks, then 24 invented tokens at
    50257..50280, p50k's shape); only where it is read from and the special tokens are under test."""
    made_up = [base64.b64encode(b"\x00made-up %d" % i) + b" %d\n" % (50257 + i) for i in range(24)]
    (tmp_path / "p50k_base.tiktoken").write_bytes((vocab / "gpt2.tiktoken").read_bytes() + b"".join(made_up))
    monkeypatch.setenv("TOKVEC_VOCAB_PATH", str(tmp_path))
    base = tiktoken.get_encoding("p50k_base")
    assert base.n_vocab == 50281 and base._special_tokens == {"<|endoftext|>": 50256}
    assert base.encode("hello world") == [31373, 995]
    edit = tiktoken.get_encoding("p50k_edit")
    assert edit._special_tokens == {"<|endoftext|>": 50256, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282,
                                    "<|fim_suffix|>": 50283}
    assert edit.n_vocab == 50284
    assert edit.encode("<|fim_prefix|>hello world<|fim_suffix|>", allowed_special="all") == [50281, 31373, 995, 50283]
    assert tiktoken.encoding_for_model("text-davinci-edit-001") is edit


def test_missing_file_names_every_place(vocab, tmp_path, monkeypatch, fresh_registry):
    dirs = [tmp_path / "a", tmp_path / "b"]
    for d in dirs:
        d.mkdir()
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOKVEC_VOCAB_PATH", os.pathsep.join(map(str, dirs)))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    with pytest.raises(FileNotFoundError) as error:
        tiktoken.get_encoding("cl100k_base")
    message = str(error.value)
    for d in dirs:
        assert str(d / "cl100k_base.tiktoken") in message, message
    assert str(cache / cache_key("cl100k_base.tiktoken")) in message, message
    assert "cl100k_base" in message
    assert tiktoken._REGISTRY == {}  # a failure is not remembered: the next call looks again
    shutil.copyfile(vocab / "cl100k_base.tiktoken", dirs[1] / "cl100k_base.tiktoken")
    assert tiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_missing_file_without_vocab_path(tmp_path, monkeypatch, fresh_registry):
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError) as error:
        tiktoken.get_encoding("o200k_base")
    assert "TOKVEC_VOCAB_PATH" in str(error.value)
    assert str(tmp_path / cache_key("o200k_base.tiktoken")) in str(error.value)


def test_no_network(vocab, tmp_path, monkeypatch, fresh_registry):
    """Every lookup is local: with sockets unusable, get_encoding still works (vocab path, then cache)."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"tokvec.tiktoken tried the network: {args}")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    for name in AVAILABLE:
        assert tiktoken.get_encoding(name).decode(tiktoken.get_encoding(name).encode("hello world")) == "hello world"
    monkeypatch.setattr(tiktoken, "_REGISTRY", {})
    monkeypatch.delenv("TOKVEC_VOCAB_PATH")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError):  # nothing anywhere: an error, not a download
        tiktoken.get_encoding("cl100k_base")
    shutil.copyfile(vocab / "cl100k_base.tiktoken", tmp_path / cache_key("cl100k_base.tiktoken"))
    assert tiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_no_download_modules_imported(vocab):
    """As tiktoken's test_optional_blobfile_dependency: importing and loading pulls in neither blobfile nor
    requests."""
    program = ("import sys, tokvec.tiktoken as t\n"
               "t.get_encoding('cl100k_base').encode('hi')\n"
               "assert 'blobfile' not in sys.modules and 'requests' not in sys.modules, sorted(sys.modules)\n")
    env = dict(os.environ, TOKVEC_VOCAB_PATH=str(vocab))
    subprocess.run([sys.executable, "-c", program], check=True, env=env, timeout=60)
