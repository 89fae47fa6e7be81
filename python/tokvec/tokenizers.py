"""The core of Hugging Face's `tokenizers.Tokenizer` over tokvec's encoder: existing code switches with one import.

    from tokvec.tokenizers import Tokenizer             # was: from tokenizers import Tokenizer
    tok = Tokenizer.from_file("tokenizer.json")
    enc = tok.encode("How old is the moon?", "About 4.5 billion years.")
    enc.ids, enc.type_ids, enc.attention_mask, enc.offsets, enc.word_ids, enc.tokens
    tok.enable_truncation(128); tok.enable_padding(pad_id=0, pad_token="[PAD]")
    batch = tok.encode_batch(["a text", ("a question", "its context")])
    tok.decode(enc.ids)                                # skip_special_tokens=True, as Hugging Face

The file's own "truncation" and "padding" sections are on after from_file, as in Hugging Face. Every added token
in a text is matched (special or not) and add_special_tokens=True adds the post-processor's tokens. Offsets are
character offsets into the text each token came from (the pair's second text for its tokens); (0, 0) for added
and padding tokens.

Differences from Hugging Face (docs/python.md, "tokvec.tokenizers"): no from_pretrained (tokvec never downloads),
no is_pretokenized input, no trainers or component objects (normalizer, pre_tokenizer, ... attributes); a batch
mixing single texts and pairs is refused while padding is on. save writes the loaded file with the current
truncation and padding sections.
"""
from __future__ import annotations

import json
import os
import tempfile
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _tokvec

__all__ = ["Tokenizer", "Encoding"]

InputSequence = Union[str, Tuple[str, str], List[str]]


class Encoding:
    """One encoded text or pair: Hugging Face's Encoding fields and position look-ups."""

    __slots__ = ("ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask", "word_ids",
                 "sequence_ids", "overflowing", "n_sequences")

    def __init__(self, fields: dict):
        self.ids: List[int] = fields["ids"]
        self.type_ids: List[int] = fields["type_ids"]
        self.tokens: List[str] = fields["tokens"]
        self.offsets: List[Tuple[int, int]] = fields["offsets"]
        self.attention_mask: List[int] = fields["attention_mask"]
        self.special_tokens_mask: List[int] = fields["special_tokens_mask"]
        self.word_ids: List[Optional[int]] = fields["word_ids"]
        self.sequence_ids: List[Optional[int]] = fields["sequence_ids"]
        self.overflowing: List[Encoding] = [Encoding(window) for window in fields["overflowing"]]
        self.n_sequences: int = fields["n_sequences"]

    @property
    def words(self) -> List[Optional[int]]:
        """word_ids (Hugging Face's older name)."""
        return self.word_ids

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, "
                f"special_tokens_mask, overflowing])")

    def _sequence_range(self, sequence_index: int) -> range:
        tokens = [i for i, s in enumerate(self.sequence_ids) if s == sequence_index]
        return range(tokens[0], tokens[-1] + 1) if tokens else range(len(self.ids))

    def token_to_sequence(self, token_index: int) -> Optional[int]:
        return self.sequence_ids[token_index] if 0 <= token_index < len(self.ids) else None

    def token_to_chars(self, token_index: int) -> Optional[Tuple[int, int]]:
        """The character offsets of a token in its own text; None for a token of no text (added, padding)."""
        if self.token_to_sequence(token_index) is None:
            return None
        return self.offsets[token_index]

    def token_to_word(self, token_index: int) -> Optional[int]:
        if self.token_to_sequence(token_index) is None:
            return None
        return self.word_ids[token_index]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> Optional[int]:
        """The token holding character char_pos of text sequence_index (0: the first, 1: the pair's second)."""
        for i in self._sequence_range(sequence_index):
            begin, end = self.offsets[i]
            if begin <= char_pos < end:
                return i
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> Optional[int]:
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> Optional[Tuple[int, int]]:
        """(first, one past the last) token of a word of text sequence_index."""
        tokens = [i for i in self._sequence_range(sequence_index) if self.word_ids[i] == word_index]
        return (tokens[0], tokens[-1] + 1) if tokens else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Optional[Tuple[int, int]]:
        tokens = self.word_to_tokens(word_index, sequence_index)
        if tokens is None:
            return None
        return self.offsets[tokens[0]][0], self.offsets[tokens[1] - 1][1]


class Tokenizer:
    """A tokenizer.json (or any file tokvec loads) with Hugging Face's Tokenizer methods."""

    def __init__(self, core: "_tokvec.Tokenizer", source: Optional[str] = None):
        self._core = core
        self._source = source
        self._truncation, self._padding = _tokvec._sections(core)
        self._vocab: Optional[Dict[str, int]] = None

    @staticmethod
    def from_file(path: str) -> "Tokenizer":
        path = os.fspath(path)
        return Tokenizer(_tokvec.Tokenizer.load(path), path)

    @staticmethod
    def from_str(json_text: str) -> "Tokenizer":
        return Tokenizer.from_buffer(json_text.encode("utf-8"))

    @staticmethod
    def from_buffer(buffer: bytes) -> "Tokenizer":
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "tokenizer.json")
            with open(path, "wb") as f:
                f.write(bytes(buffer))
            tokenizer = Tokenizer(_tokvec.Tokenizer.load(path))
            tokenizer._json = json.loads(buffer)
            return tokenizer

    @staticmethod
    def from_pretrained(identifier: str, revision: str = "main", token: Optional[str] = None) -> "Tokenizer":
        raise OSError(f"tokvec never downloads: fetch {identifier}'s tokenizer.json yourself and use "
                      f"Tokenizer.from_file")

    def __repr__(self) -> str:
        return f"<tokvec.tokenizers.Tokenizer from {self._source or 'a buffer'!r}>"

    # ----- truncation and padding -----

    def enable_truncation(self, max_length: int, stride: int = 0, strategy: str = "longest_first",
                          direction: str = "right") -> None:
        if strategy not in ("longest_first", "only_first", "only_second"):
            raise ValueError("Unknown `strategy`: `" + str(strategy) +
                             "`. Use one of `longest_first`, `only_first`, or `only_second`")
        if direction not in ("left", "right"):
            raise ValueError("Unknown `direction`: `" + str(direction) + "`. Use one of `left` or `right`")
        self._truncation = {"max_length": int(max_length), "stride": int(stride), "strategy": strategy,
                            "direction": direction}

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> Optional[dict]:
        return None if self._truncation is None else dict(self._truncation)

    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
                       pad_token: str = "[PAD]", length: Optional[int] = None,
                       pad_to_multiple_of: Optional[int] = None) -> None:
        if direction not in ("left", "right"):
            raise ValueError("Unknown `direction`: `" + str(direction) + "`. Use one of `left` or `right`")
        self._padding = {"length": length, "pad_to_multiple_of": pad_to_multiple_of, "pad_id": int(pad_id),
                         "pad_type_id": int(pad_type_id), "pad_token": pad_token, "direction": direction}

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> Optional[dict]:
        return None if self._padding is None else dict(self._padding)

    # ----- encoding -----

    def _run(self, texts: List[str], pairs: Optional[List[str]], add_special_tokens: bool,
             padding: Optional[dict]) -> List[Encoding]:
        if not texts:
            return []
        fields = _tokvec._encodings(self._core, texts, pairs, add_special_tokens, self._truncation, padding)
        return [Encoding(f) for f in fields]

    def encode(self, sequence: str, pair: Optional[str] = None, is_pretokenized: bool = False,
               add_special_tokens: bool = True) -> Encoding:
        """One text, or a pair (sequence, pair), truncated and padded as set."""
        _refuse_pretokenized(is_pretokenized)
        return self._run([sequence], None if pair is None else [pair], add_special_tokens, self._padding)[0]

    def encode_batch(self, input: Sequence[InputSequence], is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> List[Encoding]:
        """Each item (a text, or a (text, pair) tuple or list), truncated as set, then padded to one length."""
        _refuse_pretokenized(is_pretokenized)
        items = list(input)
        single = [isinstance(item, str) for item in items]
        for item, is_text in zip(items, single):
            if not is_text and (not isinstance(item, (tuple, list)) or len(item) != 2):
                raise TypeError("encode_batch items are str or (str, str) pairs")
        if all(single):
            return self._run(items, None, add_special_tokens, self._padding)
        if not any(single):
            return self._run([a for a, _ in items], [b for _, b in items], add_special_tokens, self._padding)
        if self._padding is not None:
            raise ValueError("tokvec.tokenizers: a batch mixing single texts and pairs cannot be padded; "
                             "encode them as two batches")
        texts = iter(self._run([t for t, s in zip(items, single) if s], None, add_special_tokens, None))
        pairs_items = [t for t, s in zip(items, single) if not s]
        pairs = iter(self._run([a for a, _ in pairs_items], [b for _, b in pairs_items], add_special_tokens, None))
        return [next(texts) if s else next(pairs) for s in single]

    # ----- decoding and the vocabulary -----

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self._core.decode(list(ids), skip_special_tokens=skip_special_tokens)

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> List[str]:
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    def token_to_id(self, token: str) -> Optional[int]:
        return self._core.token_to_id(token)

    def id_to_token(self, id: int) -> Optional[str]:
        return self._core.id_to_token(id)

    def get_vocab(self, with_added_tokens: bool = True) -> Dict[str, int]:
        if self._vocab is None:
            vocab: Dict[str, int] = {}
            for token_id in range(self._core.vocab_size):
                spelling = self._core.id_to_token(token_id)
                if spelling:
                    vocab.setdefault(spelling, token_id)
            self._vocab = vocab
        if with_added_tokens:
            return dict(self._vocab)
        added = self._added_past_model()
        return {token: token_id for token, token_id in self._vocab.items() if token_id not in added}

    def _added_past_model(self) -> set:
        """The ids of added tokens numbered after the model's own vocabulary."""
        special_ids = set(self._core.special_tokens.values())
        model_ids = [token_id for token_id in self._vocab.values() if token_id not in special_ids]
        last_model_id = max(model_ids, default=-1)
        return {token_id for token_id in special_ids if token_id > last_model_id}

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.get_vocab(with_added_tokens))

    # ----- saving -----

    def to_str(self, pretty: bool = False) -> str:
        document = self._document()
        return json.dumps(document, ensure_ascii=False, indent=2 if pretty else None)

    def save(self, path: str, pretty: bool = True) -> None:
        """Writes the tokenizer.json (the loaded file's, or tokvec's writer's for other formats) with the current
        truncation and padding sections; through a temporary file, so an error leaves no half-written file."""
        text = self.to_str(pretty)
        directory = os.path.dirname(os.path.abspath(path))
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tokenizer-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise

    def _document(self) -> dict:
        document = getattr(self, "_json", None)
        if document is None and self._source and os.path.isfile(self._source):
            try:
                with open(self._source, encoding="utf-8") as f:
                    document = json.load(f)
            except (UnicodeDecodeError, ValueError):
                document = None
            if not isinstance(document, dict) or "model" not in document:
                document = None
        if document is None:
            with tempfile.TemporaryDirectory() as directory:
                path = os.path.join(directory, "tokenizer.json")
                self._core.save_hf(path)
                with open(path, encoding="utf-8") as f:
                    document = json.load(f)
        document = dict(document)
        document["truncation"] = _truncation_json(self._truncation)
        document["padding"] = _padding_json(self._padding)
        return document


def _refuse_pretokenized(is_pretokenized: bool) -> None:
    if is_pretokenized:
        raise ValueError("tokvec.tokenizers takes texts, not pre-tokenized word lists (is_pretokenized=True)")


def _truncation_json(truncation: Optional[dict]) -> Optional[dict]:
    if truncation is None:
        return None
    strategy = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}
    return {"direction": truncation["direction"].capitalize(), "max_length": truncation["max_length"],
            "strategy": strategy[truncation["strategy"]], "stride": truncation["stride"]}


def _padding_json(padding: Optional[dict]) -> Optional[dict]:
    if padding is None:
        return None
    length = padding["length"]
    return {"strategy": "BatchLongest" if length is None else {"Fixed": length},
            "direction": padding["direction"].capitalize(), "pad_to_multiple_of": padding["pad_to_multiple_of"],
            "pad_id": padding["pad_id"], "pad_type_id": padding["pad_type_id"], "pad_token": padding["pad_token"]}
