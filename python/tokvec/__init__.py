"""tokvec from Python: BPE tokenizers with tiktoken- and Hugging Face-identical ids, tokenizer training, and
contextual embeddings from model directories, all running in tokvec's C++ (threads inside, the GIL released).

    import tokvec
    enc = tokvec.Tokenizer.load("cl100k_base.tiktoken")      # or vocab.json, tokenizer.json, a .tokvec model
    enc.encode("hello world")                                # [15339, 1917]
    enc.encode_batch(lines, num_threads=2)                   # list of id lists, same as one by one
    enc.decode([15339, 1917])                                # 'hello world'

    tok = tokvec.train(["corpus.txt"], type="byte", vocab_size=1000, special_tokens=["<|endoftext|>"])
    tok.save("mine.tokvec"); tok.save_hf("tokenizer.json"); tok.save_tiktoken("mine.tiktoken")

    model = tokvec.Model.load("models/tiny")
    model.embed(["a cat", "a dog"], pooling="mean")          # numpy float32 [2, D]

    scores, indices = tokvec.search(queries, corpus_vectors, k=10)            # exact top-k, [Q, 10] each
    bits = tokvec.quantize_embeddings(corpus_vectors, "ubinary")               # sentence-transformers' codes
    scores, indices = tokvec.search(queries, bits, k=10)                       # Hamming, then float rescoring

Drop-in modules for existing code (docs/python.md): `import tokvec.tiktoken as tiktoken` (tiktoken's API and
semantics, rank files from TOKVEC_VOCAB_PATH or tiktoken's cache, never downloaded) and
`from tokvec.tokenizers import Tokenizer` (Hugging Face's Tokenizer: Encoding objects, truncation, padding).

Errors: FileNotFoundError (a missing file), ValueError (a bad value: an id outside the vocabulary, a text longer
than the model), tokvec.Error (a corrupt or unsupported file), TypeError (a wrong argument type); the message is
tokvec's own, as the CLI prints it.

Differences from tiktoken: text that spells a special token is ordinary text unless allowed (tiktoken raises by
default); `allowed_special="all"` or a set of texts allows them.
"""
from __future__ import annotations

import os
from typing import Iterable, Optional, Sequence, Union

from ._tokvec import Error, Model, Tokenizer, _train, _train_from_iterator, quantize_embeddings, search

__all__ = ["Error", "Model", "Tokenizer", "quantize_embeddings", "search", "train", "train_from_iterator"]
__version__ = "0.1.0"

PathLike = Union[str, bytes, "os.PathLike[str]"]


def _options(type, vocab_size, merges, pattern, special_tokens, min_frequency, threads, normalize, split_lines):
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a collection of str, not one str")
    return dict(type=type, vocab_size=vocab_size, merges=merges, pattern=pattern,
                special_tokens=list(special_tokens), min_frequency=min_frequency, threads=threads,
                normalize=normalize, split_lines=split_lines)


def train(files: Union[PathLike, Sequence[PathLike]], type: str = "byte", vocab_size: Optional[int] = None,
          merges: Optional[int] = None, pattern: Optional[str] = None, special_tokens: Iterable[str] = (),
          min_frequency: int = 0, threads: int = 0, normalize: str = "none", split_lines: bool = False) -> Tokenizer:
    """Learns a BPE tokenizer from text files, exactly as `tokvec train` does (the same options give the same
    model file). Give exactly one of `vocab_size` and `merges`.

    type: "byte" (byte-level, GPT-2 style; `pattern` is a split preset gpt2/r50k/p50k/cl100k/o200k or an ICU
    regex, default gpt2) or "word" (classic BPE, words at whitespace, `</w>`). special_tokens get ids 0.. in order.
    normalize: none, nfc, nfkc, lowercase or a combination such as "nfkc+lowercase". threads=0: one per core.
    Each file is counted as one text, cut into pieces as encode cuts it; split_lines=True counts each line on its
    own instead (Hugging Face's trainer; `tokvec train --split-lines`).
    """
    if isinstance(files, (str, bytes, os.PathLike)):
        files = [files]
    paths = [os.fsdecode(f) for f in files]
    return _train(paths, **_options(type, vocab_size, merges, pattern, special_tokens, min_frequency, threads,
                                    normalize, split_lines))


def train_from_iterator(texts: Iterable[Union[str, bytes]], type: str = "byte", vocab_size: Optional[int] = None,
                        merges: Optional[int] = None, pattern: Optional[str] = None,
                        special_tokens: Iterable[str] = (), min_frequency: int = 0, threads: int = 0,
                        normalize: str = "none", split_lines: bool = False) -> Tokenizer:
    """Like `train`, from texts in memory (any iterable of str or bytes, consumed once). Each text is counted on
    its own, as a whole as a file is (pieces may span its lines, as encode cuts them); a file's whole text as one
    item gives the model of the file."""
    return _train_from_iterator(texts, **_options(type, vocab_size, merges, pattern, special_tokens, min_frequency,
                                                  threads, normalize, split_lines))
