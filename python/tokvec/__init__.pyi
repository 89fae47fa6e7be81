# Type stubs of the tokvec module (the C++ extension tokvec._tokvec and the wrappers in __init__.py).
import os
from typing import Any, AbstractSet, Iterable, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str
_Text = Union[str, bytes]
_Allowed = Union[Literal["all"], AbstractSet[str], Sequence[str]]
_Path = Union[str, bytes, os.PathLike[str]]

class Error(Exception):
    """A tokvec failure that is neither a bad value (ValueError) nor a missing file (FileNotFoundError)."""

class Tokenizer:
    @staticmethod
    def load(path: str, pattern: Optional[str] = None) -> Tokenizer:
        """A tokvec model, a .tiktoken file, GPT-2 vocab.json (+ merges.txt), tokenizer.json or a directory."""
    def encode(self, text: _Text, allowed_special: _Allowed = (), add_special_tokens: bool = False) -> list[int]:
        """add_special_tokens: the tokenizer.json post-processor's tokens around the text, as Hugging Face's."""
    def encode_ordinary(self, text: _Text) -> list[int]: ...
    def encode_pair(self, a: _Text, b: _Text, allowed_special: _Allowed = (),
                    add_special_tokens: bool = False) -> tuple[list[int], list[int]]:
        """(ids, type_ids) of a sentence pair laid out by the post-processor's pair template, as Hugging Face's."""
    def encode_batch(self, texts: Iterable[_Text], num_threads: int = 0, allowed_special: _Allowed = (),
                     add_special_tokens: bool = False, *, pairs: Optional[Iterable[_Text]] = None,
                     truncation: Optional[bool] = None, max_length: Optional[int] = None, stride: int = 0,
                     truncation_side: str = "", truncation_strategy: str = "",
                     padding: Union[None, bool, str, int] = None, pad_to_multiple_of: Optional[int] = None,
                     return_tensors: Optional[str] = None) -> Union[list[list[int]], dict[str, npt.NDArray[np.int64]]]:
        """Each text on its own, on num_threads C++ threads (0: one per core); equals encoding one by one.

        With any keyword argument, as Hugging Face's encode_batch: the tokenizer.json's truncation and padding
        (or these), pairs= the second texts; return_tensors="np": a dict of [batch, length] int64 arrays
        input_ids, attention_mask, token_type_ids, special_tokens_mask, word_ids (-1: none)."""
    def encode_ordinary_batch(self, texts: Iterable[_Text], num_threads: int = 0) -> list[list[int]]: ...
    def encode_with_offsets(self, text: _Text, allowed_special: _Allowed = ()) -> tuple[list[int], list[tuple[int, int]]]:
        """Ids and [begin, end) offsets: characters for str input, bytes for bytes input."""
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Invalid UTF-8 (a token holding part of a character) becomes U+FFFD, as in tiktoken."""
    def decode_bytes(self, ids: Sequence[int], skip_special_tokens: bool = False) -> bytes: ...
    def decode_batch(self, batch: Sequence[Sequence[int]], skip_special_tokens: bool = False) -> list[str]: ...
    def token_to_id(self, token: str) -> Optional[int]:
        """The id of a token as id_to_token spells it (`Ġworld`, `er</w>`, `<|endoftext|>`); None if absent."""
    def id_to_token(self, id: int) -> Optional[str]: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def n_vocab(self) -> int: ...
    @property
    def type(self) -> Literal["word", "byte"]: ...
    @property
    def special_tokens(self) -> dict[str, int]: ...
    @property
    def special_tokens_set(self) -> set[str]: ...
    @property
    def eot_token(self) -> Optional[int]:
        """The id of `<|endoftext|>`, or None."""
    def save(self, path: str) -> None:
        """tokvec's model file (what `tokvec train -o` writes)."""
    def save_hf(self, path: str) -> None:
        """Hugging Face tokenizer.json."""
    def save_tiktoken(self, path: str) -> None:
        """tiktoken ranks (byte models)."""

class Model:
    @staticmethod
    def load(path: str, dtype: str = "f32") -> Model:
        """dtype: the big linear layers' precision, f32 | bf16 (AVX-512 BF16) | int8 (AVX-512 VNNI)."""
    @property
    def dtype(self) -> str: ...
    def embed(self, texts: Union[_Text, Iterable[_Text]], pooling: str = "auto", normalize: bool = False,
              batch_size: int = 32, num_threads: int = 0, window: int = 0, stride: int = 0,
              truncate_dim: Optional[int] = None, prompt: Optional[str] = None, prompt_name: Optional[str] = None,
              default_prompt: bool = True, truncate: Union[None, bool, str] = None,
              max_length: Optional[int] = None, precision: str = "float32") -> npt.NDArray:
        """[N, D] float32, one pooled vector per text; the bits of `tokvec embed --lines --format npy`.
        truncate_dim: the first K values of each vector, rescaled to unit length (Matryoshka); prompt / prompt_name:
        sentence-transformers' prompts; truncate: cut long texts (True or "right", "left") to max_length or the
        model's max_seq_length; precision: sentence-transformers' codes (int8, uint8, binary, ubinary)."""
    def token_vectors(self, text: _Text, num_threads: int = 1) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Token spellings and their contextual vectors [T, D]."""
    def attention(self, text: _Text, layer: int, head: int) -> npt.NDArray[np.float32]:
        """One head's attention weights [T, T] (rows: queries)."""
    def tokenize(self, text: _Text) -> list[int]:
        """Ids as the model takes them (RoBERTa: <s> ... </s>)."""
    def rerank(self, query: str, documents: Sequence[str], top_k: Optional[int] = None,
               return_documents: bool = False, raw_scores: bool = False,
               num_threads: int = 0) -> list[dict[str, Any]]:
        """Cross-encoders: [{'corpus_id', 'score'[, 'text']}] best first (sentence-transformers' CrossEncoder.rank)."""
    def predict(self, inputs: Iterable[Union[str, tuple[str, str]]], raw_scores: bool = False,
                num_threads: int = 0) -> npt.NDArray[np.float32]:
        """Classifiers / cross-encoders: [N] (one label, sigmoid) or [N, labels] (softmax) scores."""
    @property
    def labels(self) -> list[str]: ...
    @property
    def d_model(self) -> int:
        """The transformer's width: per-token vectors; pooled ones too unless the directory has sentence-transformers
        Dense modules (then the last Dense's out_features: embed()'s result says its own width)."""
    @property
    def n_layers(self) -> int: ...
    @property
    def n_heads(self) -> int: ...
    @property
    def max_len(self) -> int: ...

def search(queries: npt.ArrayLike, index: Union[_Path, npt.NDArray], k: int = 10, metric: str = "cosine",
           num_threads: int = 0, rescore_multiplier: int = 4) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """(scores [Q, k], indices [Q, k]): exact top-k rows of `index` (float32 [N, D], or uint8/int8 codes) per query,
    best first, ties to the lower index."""
def quantize_embeddings(embeddings: npt.ArrayLike, precision: str, ranges: Optional[npt.ArrayLike] = None,
                        calibration_embeddings: Optional[npt.ArrayLike] = None) -> npt.NDArray:
    """sentence-transformers' quantize_embeddings: int8/uint8 [N, D] or binary/ubinary [N, D/8]."""
def train(files: Union[_Path, Sequence[_Path]], type: str = "byte", vocab_size: Optional[int] = None,
          merges: Optional[int] = None, pattern: Optional[str] = None, special_tokens: Iterable[str] = (),
          min_frequency: int = 0, threads: int = 0, normalize: str = "none",
          split_lines: bool = False) -> Tokenizer: ...
def train_from_iterator(texts: Iterable[_Text], type: str = "byte", vocab_size: Optional[int] = None,
                        merges: Optional[int] = None, pattern: Optional[str] = None,
                        special_tokens: Iterable[str] = (), min_frequency: int = 0, threads: int = 0,
                        normalize: str = "none", split_lines: bool = False) -> Tokenizer: ...
