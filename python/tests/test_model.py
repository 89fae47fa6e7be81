"""tokvec.Model: embed equals `tokvec embed --lines --format npy` bit for bit, token_vectors and attention equal
`tokvec embed` / `tokvec attend`, sentence-transformers pooling equals PyTorch's, arrays own their memory, and the
error table."""
import io
import json
import sys

import numpy as np
import pytest

import tokvec
from conftest import ROOT, run

TESTDATA = ROOT / "tests" / "attention" / "testdata"
TEXTS = ["The cat watched the gardener.", "A dog", "The cat watched the gardener.", "x", "", "héllo wörld 東京",
         "A dog"] + [f"line {i} of the batch" for i in range(40)]


def cli_npy(tokvec_bin, model, texts, *args):
    out = run([tokvec_bin, "embed", "-m", str(model), "--lines", "--format", "npy", *args],
              stdin="\n".join(texts).encode() + b"\n")
    return np.load(io.BytesIO(out))


@pytest.mark.parametrize("pooling,normalize", [("mean", False), ("last", True), ("max", False), ("cls", False)])
def test_embed_equals_cli_bit_for_bit(tokvec_bin, tiny_model, pooling, normalize):
    texts = [t for t in TEXTS if t]  # an empty text has nothing to pool
    model = tokvec.Model.load(str(tiny_model))
    expected = cli_npy(tokvec_bin, tiny_model, texts, "--pooling", pooling, *(["--normalize"] if normalize else []))
    for threads in (1, 2):
        got = model.embed(texts, pooling=pooling, normalize=normalize, num_threads=threads)
        assert got.dtype == np.float32 and got.shape == (len(texts), model.d_model)
        assert np.array_equal(got, expected), np.abs(got - expected).max()


def test_sentence_transformers_auto_pooling(tokvec_bin):
    directory = TESTDATA / "hf_roberta_f32"
    reference = json.loads((TESTDATA / "hf_roberta_reference.json").read_text())
    model = tokvec.Model.load(str(directory))
    got = model.embed(reference["texts"])  # pooling="auto": modules.json's mean + Normalize
    assert np.array_equal(got, cli_npy(tokvec_bin, directory, reference["texts"]))
    torch = np.array(reference["f32"]["pooled"], dtype=np.float32)  # sentence-transformers in PyTorch
    assert np.abs(got - torch).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1, atol=1e-6)
    assert model.tokenize(reference["texts"][0]) == reference["ids"][0]


def test_token_vectors_and_attention_equal_cli(tokvec_bin, tiny_model):
    model = tokvec.Model.load(str(tiny_model))
    text = "The cat watched the gardener walk to the city market."
    tokens, vectors = model.token_vectors(text)
    cli = json.loads(run([tokvec_bin, "embed", "-m", str(tiny_model)], stdin=text.encode()))
    assert tokens == cli["tokens"]
    assert np.array_equal(vectors, np.array(cli["vectors"], dtype=np.float32))  # shortest round-trip floats
    weights = model.attention(text, layer=1, head=2)
    cli = json.loads(run([tokvec_bin, "attend", "-m", str(tiny_model), "--layer", "1", "--head", "2",
                          "--format", "json"], stdin=text.encode()))
    assert weights.shape == (len(tokens), len(tokens))
    assert np.allclose(weights, np.array(cli["weights"], dtype=np.float32), atol=1e-6)
    assert np.allclose(weights.sum(axis=1), 1, atol=1e-5)
    assert np.all(np.triu(weights, 1) == 0)  # gpt2: causal


def test_first_embed_on_two_threads_equals_cli(tokvec_bin, tiny_model):
    """A fresh interpreter whose first op runs on worker threads gets the CLI's bits (OpenBLAS's kernels are
    chosen when the model loads, not on whichever thread runs first)."""
    texts = ["The cat watched the gardener.", "A dog", "x"]
    code = ("import sys, numpy as np, tokvec\n"
            "m = tokvec.Model.load(sys.argv[1])\n"
            "sys.stdout.buffer.write(m.embed(sys.argv[2:], pooling='mean', num_threads=2).tobytes())\n")
    out = run([sys.executable, "-c", code, str(tiny_model), *texts])
    got = np.frombuffer(out, dtype=np.float32).reshape(len(texts), -1)
    assert np.array_equal(got, cli_npy(tokvec_bin, tiny_model, texts, "--pooling", "mean"))


@pytest.mark.parametrize("dtype", ["bf16", "int8"])
def test_dtype_equals_cli_and_stays_close_to_f32(tokvec_bin, tiny_model, dtype):
    try:
        model = tokvec.Model.load(str(tiny_model), dtype=dtype)
    except ValueError as e:
        assert "needs a CPU with AVX-512" in str(e)
        pytest.skip(str(e))
    assert model.dtype == dtype and tokvec.Model.load(str(tiny_model)).dtype == "f32"
    texts = [t for t in TEXTS if t]
    expected = cli_npy(tokvec_bin, tiny_model, texts, "--pooling", "mean", "--dtype", dtype)
    got = model.embed(texts, pooling="mean", num_threads=2)
    assert np.array_equal(got, expected), np.abs(got - expected).max()
    f32 = tokvec.Model.load(str(tiny_model)).embed(texts, pooling="mean")
    assert not np.array_equal(got, f32)  # the linear layers really ran in another precision
    cosine = (got * f32).sum(axis=1) / np.linalg.norm(got, axis=1) / np.linalg.norm(f32, axis=1)
    assert cosine.min() > 0.999, cosine.min()


def test_arrays_own_their_memory(tiny_model):
    model = tokvec.Model.load(str(tiny_model))
    a = model.embed(["a cat"], pooling="mean")
    assert not a.flags.owndata and a.base is not None  # the module's buffer, freed with the array
    assert a.flags.c_contiguous and a.flags.writeable
    _, v = model.token_vectors("a cat")
    del model  # arrays outlive the model
    assert np.isfinite(a).all() and np.isfinite(v).all()


def test_error_table(tiny_model, tmp_path):
    model = tokvec.Model.load(str(tiny_model))
    cases = [
        (lambda: tokvec.Model.load(str(tmp_path / "none")), FileNotFoundError, ""),
        (lambda: tokvec.Model.load(str(tiny_model), dtype="fp8"), ValueError, "unknown dtype 'fp8'"),
        (lambda: model.embed(["a"]), ValueError, "needs a pooling"),
        (lambda: model.embed(["a"], pooling="median"), ValueError, "median"),
        (lambda: model.embed(["a", ""], pooling="mean"), ValueError, "text 2"),
        (lambda: model.embed(["a " * 200], pooling="mean"), ValueError, "longer than the model's maximum"),
        (lambda: model.embed([1], pooling="mean"), TypeError, "str or bytes"),
        (lambda: model.embed(["a"], pooling="mean", batch_size=0), ValueError, "batch_size"),
        (lambda: model.attention("a cat", layer=2, head=0), ValueError, "layers 0..1"),
        (lambda: model.attention("a cat", layer=0, head=-1), ValueError, "heads 0..3"),
        (lambda: model.attention("", layer=0, head=0), ValueError, "no tokens"),
        (lambda: model.token_vectors(None), TypeError, "str or bytes"),
    ]
    for call, error, text in cases:
        with pytest.raises(error) as info:
            call()
        assert text in str(info.value)
    # Long texts work with windows.
    long = model.embed(["a " * 200], pooling="mean", window=32)
    assert long.shape == (1, model.d_model)
