"""tiktoken's public API over tokvec's encoder: existing code switches with one import.

    import tokvec.tiktoken as tiktoken
    enc = tiktoken.get_encoding("cl100k_base")        # or tiktoken.encoding_for_model("gpt-4o")
    enc.encode("hello world")                          # [15339, 1917]
    enc.encode("<|endoftext|>")                        # ValueError, as tiktoken (disallowed special text)
    enc.decode(enc.encode_batch(["a", "b"])[0])

Encoding files are never downloaded. `get_encoding(name)` looks for them in order:
  1. each directory of TOKVEC_VOCAB_PATH (colon-separated) for NAME.tiktoken (p50k_edit reads p50k_base.tiktoken,
     o200k_harmony reads o200k_base.tiktoken, gpt2 reads gpt2.tiktoken or r50k_base.tiktoken);
  2. tiktoken's own cache (TIKTOKEN_CACHE_DIR, else DATA_GYM_CACHE_DIR, else <tmp>/data-gym-cache), where tiktoken
     stores each file it downloaded under the SHA-1 of its URL; a cached file whose SHA-256 differs from the
     published one is ignored, as tiktoken ignores it.
A machine that ran tiktoken once therefore works offline. A missing file raises FileNotFoundError naming every
place looked at.

Semantics are tiktoken 0.9's, with the differences listed in docs/python.md ("tokvec.tiktoken"): encode_batch runs
on C++ threads (num_threads is capped at the number of cores); encode_with_unstable is not provided.
"""
from __future__ import annotations

import functools
import hashlib
import json
import operator
import os
import re
import tempfile
import threading
from typing import AbstractSet, Collection, Dict, List, Literal, Optional, Sequence, Tuple, Union

from . import _tokvec

__all__ = ["Encoding", "get_encoding", "list_encoding_names", "encoding_for_model", "encoding_name_for_model"]

# The split patterns of OpenAI's encodings, as tiktoken publishes them (tiktoken_ext/openai_public.py). The three
# known ones run tokvec's hand-written splitters (the same pieces); any other pattern goes to ICU's regex engine.
_R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
                   r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_PRESETS = {_R50K_PATTERN: "gpt2", _CL100K_PATTERN: "cl100k", _O200K_PATTERN: "o200k"}

_ENDOFTEXT, _ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
_FIM = {"<|fim_prefix|>": 0, "<|fim_middle|>": 1, "<|fim_suffix|>": 2}
_BLOB = "https://openaipublic.blob.core.windows.net/"


def _harmony_specials() -> Dict[str, int]:
    specials = {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018, "<|startoftext|>": 199998}
    named = {200002: "<|return|>", 200003: "<|constrain|>", 200005: "<|channel|>", 200006: "<|start|>",
             200007: "<|end|>", 200008: "<|message|>", 200012: "<|call|>"}
    for token in range(200000, 201088):  # 200018 is both <|endofprompt|> and <|reserved_200018|>
        specials[named.get(token, f"<|reserved_{token}|>")] = token
    return specials


# name -> (rank files to look for, tiktoken's blob URL and SHA-256 of it, pattern, special tokens, explicit n_vocab)
_ENCODINGS = {
    "gpt2": (("gpt2.tiktoken", "r50k_base.tiktoken"), "encodings/r50k_base.tiktoken",
             "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", _R50K_PATTERN,
             {_ENDOFTEXT: 50256}, 50257),
    "r50k_base": (("r50k_base.tiktoken", "gpt2.tiktoken"), "encodings/r50k_base.tiktoken",
                  "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", _R50K_PATTERN,
                  {_ENDOFTEXT: 50256}, 50257),
    "p50k_base": (("p50k_base.tiktoken",), "encodings/p50k_base.tiktoken",
                  "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069", _R50K_PATTERN,
                  {_ENDOFTEXT: 50256}, 50281),
    "p50k_edit": (("p50k_base.tiktoken",), "encodings/p50k_base.tiktoken",
                  "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069", _R50K_PATTERN,
                  {_ENDOFTEXT: 50256, **{t: 50281 + i for t, i in _FIM.items()}}, None),
    "cl100k_base": (("cl100k_base.tiktoken",), "encodings/cl100k_base.tiktoken",
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", _CL100K_PATTERN,
                    {_ENDOFTEXT: 100257, **{t: 100258 + i for t, i in _FIM.items()}, _ENDOFPROMPT: 100276}, None),
    "o200k_base": (("o200k_base.tiktoken",), "encodings/o200k_base.tiktoken",
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", _O200K_PATTERN,
                   {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018}, None),
    "o200k_harmony": (("o200k_base.tiktoken",), "encodings/o200k_base.tiktoken",
                      "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", _O200K_PATTERN,
                      None, None),
}
# GPT-2's own files in tiktoken's cache (tiktoken's gpt2 encoding reads these rather than r50k_base.tiktoken).
_GPT2_ENCODER_JSON = ("gpt-2/encodings/main/encoder.json",
                      "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783")

# Model names and name prefixes -> encodings, as tiktoken 0.12's model.py maps them.
_MODEL_PREFIX_TO_ENCODING = {
    "o1-": "o200k_base", "o3-": "o200k_base", "o4-mini-": "o200k_base", "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base", "gpt-4.1-": "o200k_base", "chatgpt-4o-": "o200k_base", "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base", "gpt-3.5-turbo-": "cl100k_base", "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony", "ft:gpt-4o": "o200k_base", "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base", "ft:davinci-002": "cl100k_base", "ft:babbage-002": "cl100k_base",
}
_MODEL_TO_ENCODING = {
    "o1": "o200k_base", "o3": "o200k_base", "o4-mini": "o200k_base", "gpt-5": "o200k_base", "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base", "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base", "davinci-002": "cl100k_base", "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base", "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base", "text-davinci-002": "p50k_base", "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base", "text-babbage-001": "r50k_base", "text-ada-001": "r50k_base",
    "davinci": "r50k_base", "curie": "r50k_base", "babbage": "r50k_base", "ada": "r50k_base",
    "code-davinci-002": "p50k_base", "code-davinci-001": "p50k_base", "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base", "davinci-codex": "p50k_base", "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base", "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base", "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base", "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base", "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base", "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2", "gpt-2": "gpt2",
}


class Encoding:
    """A tiktoken encoding: byte-level BPE ranks, a split pattern and special tokens (tiktoken.Encoding)."""

    def __init__(self, name: str, *, pat_str: str, mergeable_ranks: Dict[bytes, int], special_tokens: Dict[str, int],
                 explicit_n_vocab: Optional[int] = None):
        if not mergeable_ranks:
            raise ValueError("mergeable_ranks is empty")
        largest = max(mergeable_ranks.values())
        if min(mergeable_ranks.values()) < 0 or largest > 4 * len(mergeable_ranks) + 1024:
            raise ValueError(f"mergeable_ranks: ranks must lie between 0 and about the number of tokens, "
                             f"not up to {largest}")
        ranks: List[Optional[bytes]] = [None] * (largest + 1)
        for token, rank in mergeable_ranks.items():
            if not isinstance(token, bytes):
                raise TypeError(f"mergeable_ranks keys must be bytes, not {type(token).__name__}")
            if ranks[rank] is not None:
                raise ValueError(f"mergeable_ranks: rank {rank} is given to {ranks[rank]!r} and {token!r}")
            ranks[rank] = token
        core = _tokvec._tiktoken(name, _PRESETS.get(pat_str, pat_str), dict(special_tokens), ranks=ranks)
        self._setup(name, pat_str, core, dict(special_tokens), explicit_n_vocab, largest)
        self.__dict__["_mergeable_ranks"] = mergeable_ranks

    def _setup(self, name, pat_str, core, special_tokens, explicit_n_vocab, largest_rank):
        self.name = name
        self._pat_str = pat_str
        self._special_tokens = special_tokens
        self._core = core
        self.max_token_value = max(largest_rank, max(special_tokens.values(), default=0))
        if explicit_n_vocab:
            n_ranks = sum(1 for token in self._rank_bytes if token is not None)
            if n_ranks + len(special_tokens) != explicit_n_vocab or self.max_token_value != explicit_n_vocab - 1:
                raise AssertionError(f"explicit_n_vocab {explicit_n_vocab}: {n_ranks} ranks and "
                                     f"{len(special_tokens)} special tokens, largest token {self.max_token_value}")
        self._special_token_values = set(special_tokens.values())
        self._special_by_id = {token: text for text, token in special_tokens.items()}

    @classmethod
    def _from_file(cls, name: str, path: str, data: bytes, pat_str: str, special_tokens: Dict[str, int],
                   explicit_n_vocab: Optional[int]) -> "Encoding":
        self = cls.__new__(cls)
        core = _tokvec._tiktoken(path, _PRESETS.get(pat_str, pat_str), special_tokens, data=data)
        largest = len(_tokvec._rank_bytes(core)) - 1
        self._setup(name, pat_str, core, special_tokens, explicit_n_vocab, largest)
        return self

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ----- vocabulary -----

    @functools.cached_property
    def _rank_bytes(self) -> List[Optional[bytes]]:
        return _tokvec._rank_bytes(self._core)

    @functools.cached_property
    def _mergeable_ranks(self) -> Dict[bytes, int]:
        return {token: rank for rank, token in enumerate(self._rank_bytes) if token is not None}

    @functools.cached_property
    def _all_special_regex(self) -> "re.Pattern[str]":
        return _special_token_regex(frozenset(self._special_tokens))

    @functools.cached_property
    def special_tokens_set(self) -> set:
        return set(self._special_tokens)

    @property
    def eot_token(self) -> int:
        return self._special_tokens[_ENDOFTEXT]

    @property
    def n_vocab(self) -> int:
        """max_token_value + 1, as tiktoken (ids below it need not all be tokens)."""
        return self.max_token_value + 1

    def is_special_token(self, token: int) -> bool:
        return token in self._special_token_values

    def token_byte_values(self) -> List[bytes]:
        """Every mergeable token's bytes, sorted."""
        return sorted(token for token in self._rank_bytes if token is not None)

    # ----- encoding -----

    def _check_special(self, text: str, allowed_special, disallowed_special) -> AbstractSet[str]:
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set - set(allowed_special)
        if disallowed_special:
            match = _special_token_regex(frozenset(disallowed_special)).search(text)
            if match:
                _raise_disallowed_special_token(match.group())
        return allowed_special

    def _allowed(self, allowed_special) -> Union[str, List[str]]:
        if allowed_special is self.special_tokens_set or allowed_special == "all":
            return "all"
        return [token for token in allowed_special if token in self._special_tokens]

    def encode_ordinary(self, text: str) -> List[int]:
        """Ids of text; special-token text is ordinary text."""
        try:
            return self._core.encode_ordinary(text)
        except UnicodeEncodeError:
            return self._core.encode_ordinary(_without_surrogates(text))

    def encode(self, text: str, *, allowed_special: Union[Literal["all"], AbstractSet[str]] = set(),  # noqa: B006
               disallowed_special: Union[Literal["all"], Collection[str]] = "all") -> List[int]:
        """Ids of text. Text spelling a special token raises ValueError unless allowed (it becomes the special id)
        or left out of disallowed_special (it is ordinary text)."""
        if not allowed_special and isinstance(disallowed_special, str) and disallowed_special == "all":
            # The common call, kept short: every special text disallowed, none allowed.
            if self._special_tokens:
                match = self._all_special_regex.search(text)
                if match:
                    _raise_disallowed_special_token(match.group())
            allowed = ()
        else:
            allowed = self._allowed(self._check_special(text, allowed_special, disallowed_special))
        try:
            return self._core.encode(text, allowed)
        except UnicodeEncodeError:
            return self._core.encode(_without_surrogates(text), allowed)

    def encode_to_numpy(self, text: str, *, allowed_special: Union[Literal["all"], AbstractSet[str]] = set(),  # noqa: B006
                        disallowed_special: Union[Literal["all"], Collection[str]] = "all"):
        """encode as a numpy uint32 array."""
        import numpy as np
        return np.array(self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special),
                        dtype=np.uint32)

    def encode_ordinary_batch(self, text: List[str], *, num_threads: int = 8) -> List[List[int]]:
        return self.encode_batch(text, num_threads=num_threads, disallowed_special=())

    def encode_batch(self, text: List[str], *, num_threads: int = 8,
                     allowed_special: Union[Literal["all"], AbstractSet[str]] = set(),  # noqa: B006
                     disallowed_special: Union[Literal["all"], Collection[str]] = "all") -> List[List[int]]:
        """encode of each text, on C++ threads; the same as one by one."""
        texts = list(text)
        allowed = allowed_special
        for item in texts:
            allowed = self._check_special(item, allowed_special, disallowed_special)
        if allowed == "all":
            allowed = self.special_tokens_set
        threads = max(1, min(num_threads, os.cpu_count() or 1))
        try:
            return self._core.encode_batch(texts, num_threads=threads, allowed_special=self._allowed(allowed))
        except UnicodeEncodeError:
            return [self.encode(item, allowed_special=allowed, disallowed_special=()) for item in texts]

    def encode_single_token(self, text_or_bytes: Union[str, bytes]) -> int:
        """The id of the bytes of one token, or of a special token's text; KeyError otherwise."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        token = self._mergeable_ranks.get(data)
        if token is not None:
            return token
        try:
            token = self._special_tokens.get(data.decode("utf-8"))
        except UnicodeDecodeError:
            token = None
        if token is None:
            raise KeyError(data)
        return token

    def _encode_single_piece(self, text_or_bytes: Union[str, bytes]) -> List[int]:
        """Ids of bytes merged as one piece, without the split pattern."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        return _tokvec._piece_ids(self._core, data) if data else []

    def _encode_bytes(self, text: bytes) -> List[int]:
        """Ids of bytes that need not be UTF-8: the valid prefix is split as text, and its last piece (with the
        white-space tokens before it) is merged again with the bytes after it, as tiktoken does."""
        try:
            return self.encode_ordinary(text.decode("utf-8"))
        except UnicodeDecodeError as error:
            valid = error.start
        prefix = text[:valid]
        tokens = self._core.encode_ordinary(prefix)
        pieces = _tokvec._pieces(self._core, prefix)
        last = len(self._encode_single_piece(prefix[pieces[-1][0]:pieces[-1][1]])) if pieces else 0

        def all_space(token: int) -> bool:
            data = self._rank_bytes[token] if token < len(self._rank_bytes) else None
            return data is not None and all(b in b" \n\t" for b in data)

        if last > 0 and all_space(tokens[len(tokens) - last]):
            while last < len(tokens) and all_space(tokens[len(tokens) - last - 1]):
                last += 1
        if tokens and last > 0:
            unstable = self.decode_bytes(tokens[len(tokens) - last:]) + text[valid:]
            tokens = tokens[:len(tokens) - last]
        else:
            unstable = text[valid:]
        if unstable:
            tokens.extend(self._encode_single_piece(unstable))
        return tokens

    # ----- decoding -----

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        ids = [operator.index(token) for token in tokens]  # ints, NumPy's integers too (TypeError otherwise)
        ranks = self._rank_bytes
        for token in ids:
            if token not in self._special_by_id and (token < 0 or token >= len(ranks) or ranks[token] is None):
                raise KeyError(f"Invalid token for decoding: {token}")
        return self._core.decode_bytes(ids)

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text of tokens; bytes that are not UTF-8 follow `errors` (bytes.decode's)."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens too); KeyError for an id that is no token."""
        if 0 <= token < len(self._rank_bytes) and self._rank_bytes[token] is not None:
            return self._rank_bytes[token]
        text = self._special_by_id.get(token)
        if text is None:
            raise KeyError(token)
        return text.encode("utf-8")

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> List[bytes]:
        return [self.decode_single_token_bytes(token) for token in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> Tuple[str, List[int]]:
        """(text, the character index where each token starts); a token starting inside a character gets that
        character's index. Raises UnicodeDecodeError when the bytes are not UTF-8."""
        pieces = self.decode_tokens_bytes(tokens)
        offsets, characters = [], 0
        for piece in pieces:
            inside = 1 if piece and 0x80 <= piece[0] < 0xC0 else 0
            offsets.append(max(0, characters - inside))
            characters += sum(1 for b in piece if not 0x80 <= b < 0xC0)
        return b"".join(pieces).decode("utf-8", errors="strict"), offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace",
                     num_threads: int = 8) -> List[str]:
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> List[bytes]:
        return [self.decode_bytes(tokens) for tokens in batch]

    # ----- pickling: a registry encoding by its name, another by its fields -----

    def __getstate__(self) -> object:
        if _REGISTRY.get(self.name) is self:
            return self.name
        return {"name": self.name, "pat_str": self._pat_str, "mergeable_ranks": self._mergeable_ranks,
                "special_tokens": self._special_tokens}

    def __setstate__(self, value: object) -> None:
        if isinstance(value, str):
            self.__dict__ = get_encoding(value).__dict__
            return
        self.__init__(**value)


@functools.lru_cache(maxsize=128)
def _special_token_regex(tokens: frozenset) -> "re.Pattern[str]":
    return re.compile("(" + "|".join(re.escape(token) for token in tokens) + ")")


def _raise_disallowed_special_token(token: str):
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )


def _without_surrogates(text: str) -> str:
    """Lone surrogates (not UTF-8) become U+FFFD; surrogate pairs become their character (tiktoken's fix)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# ----- the registry -----

_REGISTRY: Dict[str, Encoding] = {}
_LOCK = threading.RLock()


def _cache_dir() -> str:
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _cached(url_path: str, sha256: str, looked: List[str]) -> Optional[bytes]:
    """The bytes tiktoken cached for a blob URL, when they have the published hash."""
    cache = _cache_dir()
    if not cache:
        looked.append("tiktoken's cache (disabled: TIKTOKEN_CACHE_DIR is empty)")
        return None
    path = os.path.join(cache, hashlib.sha1((_BLOB + url_path).encode()).hexdigest())
    if not os.path.exists(path):
        looked.append(f"{path} (tiktoken's cache of {_BLOB + url_path})")
        return None
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != sha256:
        looked.append(f"{path} (tiktoken's cache, but its SHA-256 is not the published one)")
        return None
    return data


def _gpt2_ranks_from_cache(looked: List[str]) -> Optional[List[Optional[bytes]]]:
    """GPT-2's encoder.json from tiktoken's cache, as ranks: its keys spell bytes through GPT-2's byte <-> unicode
    table (printable Latin-1 bytes as themselves, the others from U+0100 up)."""
    data = _cached(*_GPT2_ENCODER_JSON, looked)
    if data is None:
        return None
    printable = [b for b in range(256) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF]
    char_to_byte = {chr(b): b for b in printable}
    for n, b in enumerate(b for b in range(256) if b not in set(printable)):
        char_to_byte[chr(256 + n)] = b
    encoder = json.loads(data)
    encoder.pop(_ENDOFTEXT, None)
    ranks: List[Optional[bytes]] = [None] * (max(encoder.values()) + 1)
    for spelling, rank in encoder.items():
        ranks[rank] = bytes(char_to_byte[c] for c in spelling)
    return ranks


def _load(name: str) -> Encoding:
    if name not in _ENCODINGS:
        raise ValueError(f"Unknown encoding {name}.\nPlugins found: ['tokvec.tiktoken']\n"
                         f"Known encodings: {list_encoding_names()}")
    files, url_path, sha256, pattern, specials, n_vocab = _ENCODINGS[name]
    specials = dict(specials) if specials is not None else _harmony_specials()
    looked: List[str] = []
    for directory in filter(None, os.environ.get("TOKVEC_VOCAB_PATH", "").split(os.pathsep)):
        for file in files:
            path = os.path.join(directory, file)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    return Encoding._from_file(name, path, f.read(), pattern, specials, n_vocab)
            looked.append(path)
    if not os.environ.get("TOKVEC_VOCAB_PATH"):
        looked.append("TOKVEC_VOCAB_PATH (not set)")
    data = _cached(url_path, sha256, looked)
    if data is not None:
        return Encoding._from_file(name, url_path.rsplit("/", 1)[1], data, pattern, specials, n_vocab)
    if name == "gpt2":
        ranks = _gpt2_ranks_from_cache(looked)
        if ranks is not None:
            encoding = Encoding.__new__(Encoding)
            core = _tokvec._tiktoken("gpt2", _PRESETS[pattern], specials, ranks=ranks)
            encoding._setup(name, pattern, core, specials, n_vocab, len(ranks) - 1)
            return encoding
    raise FileNotFoundError(f"no rank file for encoding {name!r} (tokvec.tiktoken never downloads); looked at:\n  "
                            + "\n  ".join(looked) +
                            f"\nPut {files[0]} in a directory of TOKVEC_VOCAB_PATH, or run tiktoken once online.")


def get_encoding(encoding_name: str) -> Encoding:
    """The encoding of that name, loaded once per process (see the module's docs for where files are found)."""
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    with _LOCK:
        encoding = _REGISTRY.get(encoding_name)
        if encoding is None:
            encoding = _REGISTRY[encoding_name] = _load(encoding_name)
        return encoding


def list_encoding_names() -> List[str]:
    return list(_ENCODINGS)


def encoding_name_for_model(model_name: str) -> str:
    """The encoding a model uses (tiktoken's table, then its name prefixes); KeyError for an unknown model."""
    if model_name in _MODEL_TO_ENCODING:
        return _MODEL_TO_ENCODING[model_name]
    for prefix, encoding_name in _MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return encoding_name
    raise KeyError(f"Could not automatically map {model_name} to a tokeniser. "
                   "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect.") from None


def encoding_for_model(model_name: str) -> Encoding:
    return get_encoding(encoding_name_for_model(model_name))
