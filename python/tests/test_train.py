"""tokvec.train / train_from_iterator: the same model file as `tokvec train` with the same options, texts from
memory equal their file, and the saved formats load back with the same ids."""
import pytest

import tokvec
from conftest import ROOT, run

CORPUS = ROOT / "data" / "corpus.txt"


@pytest.mark.parametrize("args,kwargs", [
    (["--type", "byte", "--vocab-size", "600", "--special", "<|endoftext|>"],
     dict(type="byte", vocab_size=600, special_tokens=["<|endoftext|>"])),
    (["--type", "byte", "--pattern", "cl100k", "--merges", "200", "--min-frequency", "3"],
     dict(type="byte", pattern="cl100k", merges=200, min_frequency=3)),
    (["--type", "word", "--merges", "150", "--normalize", "nfkc+lowercase"],
     dict(type="word", merges=150, normalize="nfkc+lowercase")),
    (["--type", "byte", "--vocab-size", "600", "--split-lines"], dict(type="byte", vocab_size=600, split_lines=True)),
])
def test_train_writes_the_cli_model(tokvec_bin, tmp_path, args, kwargs):
    cli = tmp_path / "cli.tokvec"
    run([tokvec_bin, "train", *args, "--threads", "2", "-o", str(cli), str(CORPUS)])
    tok = tokvec.train(CORPUS, threads=2, **kwargs)
    mine = tmp_path / "py.tokvec"
    tok.save(str(mine))
    assert mine.read_bytes() == cli.read_bytes()


def test_train_from_iterator_equals_the_file(tmp_path):
    # Each item is one text, cut as a file is (the whole of it, as encode splits it): the file's text as one item.
    text = CORPUS.read_text(encoding="utf-8")
    from_file = tokvec.train([str(CORPUS)], type="byte", vocab_size=500)
    from_text = tokvec.train_from_iterator(iter([text]), type="byte", vocab_size=500)
    a, b = tmp_path / "a.tokvec", tmp_path / "b.tokvec"
    from_file.save(str(a))
    from_text.save(str(b))
    assert a.read_bytes() == b.read_bytes()
    # split_lines=True: each line on its own, as an iterator of the file's lines gives.
    lines = text.splitlines(keepends=True)
    from_file = tokvec.train([str(CORPUS)], type="byte", vocab_size=500, split_lines=True)
    from_lines = tokvec.train_from_iterator(iter(lines), type="byte", vocab_size=500)
    from_file.save(str(a))
    from_lines.save(str(b))
    assert a.read_bytes() == b.read_bytes()


def test_saved_formats_load_with_the_same_ids(tmp_path):
    tok = tokvec.train_from_iterator(["the cat sat on the mat\n", "the dog sat on the log\n"] * 20, type="byte",
                                     vocab_size=300, special_tokens=["<|endoftext|>"])
    text = "the cat sat on the log<|endoftext|>"
    expected = tok.encode(text, allowed_special="all")
    assert expected[-1] == tok.eot_token == 0
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    tok.save_tiktoken(str(tmp_path / "mine.tiktoken"))
    tok.save(str(tmp_path / "mine.tokvec"))
    for path, pattern in [("tokenizer.json", None), ("mine.tokvec", None)]:
        assert tokvec.Tokenizer.load(str(tmp_path / path), pattern).encode(text, allowed_special="all") == expected
    # The .tiktoken file holds the ranks only (no special tokens): ordinary text gives the same ids.
    ranks = tokvec.Tokenizer.load(str(tmp_path / "mine.tiktoken"), pattern="gpt2")
    assert ranks.decode(ranks.encode("the cat sat")) == "the cat sat"


def test_train_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        tokvec.train(tmp_path / "missing.txt", vocab_size=300)
    with pytest.raises(ValueError, match="exactly one"):
        tokvec.train_from_iterator(["a b"], type="byte")
    with pytest.raises(ValueError, match="byte models only"):
        tokvec.train_from_iterator(["a b"], type="word", merges=2, pattern="gpt2")
    with pytest.raises(ValueError, match="type"):
        tokvec.train_from_iterator(["a b"], type="char", merges=2)
    with pytest.raises(ValueError, match="item 1"):
        tokvec.train_from_iterator(["fine\n", b"caf\xc3 x"], type="word", merges=2)  # invalid UTF-8
    with pytest.raises(TypeError):
        tokvec.train_from_iterator(["a", 5], type="word", merges=2)
    with pytest.raises(TypeError):
        tokvec.train_from_iterator(["a"], type="word", merges=2, special_tokens="<s>")
