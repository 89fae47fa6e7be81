"""tokvec.search and tokvec.quantize_embeddings against independent NumPy computations: sentence-transformers'
quantization formulas (sentence_transformers/quantization.py, written here in NumPy), brute-force top-k
(`np.argsort` of float64 scores) and its rescoring recipe; `tokvec embed --dimensions/--precision` and
`tokvec search` give the same arrays as the module."""
import io
import json

import numpy as np
import pytest

import tokvec
from conftest import ROOT, run

RNG = np.random.default_rng(11)


def st_quantize(embeddings, precision, ranges=None, calibration=None):
    """sentence-transformers' quantize_embeddings, as its source defines each precision."""
    if precision in ("int8", "uint8"):
        if ranges is None:
            source = calibration if calibration is not None else embeddings
            ranges = np.vstack((np.min(source, axis=0), np.max(source, axis=0)))
        starts = ranges[0, :]
        steps = (ranges[1, :] - ranges[0, :]) / 255
        if precision == "uint8":
            return ((embeddings - starts) / steps).astype(np.uint8)
        return ((embeddings - starts) / steps - 128).astype(np.int8)
    if precision == "binary":
        return (np.packbits(embeddings > 0).reshape(embeddings.shape[0], -1) - 128).astype(np.int8)
    return np.packbits(embeddings > 0).reshape(embeddings.shape[0], -1)


def brute_force(queries, index, k, metric):
    q, x = queries.astype(np.float64), index.astype(np.float64)
    if metric == "cosine":
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    scores = q @ x.T
    order = np.argsort(-scores, axis=1, kind="stable")[:, :k]  # ties: the lower index first
    return np.take_along_axis(scores, order, 1), order


@pytest.mark.parametrize("precision", ["int8", "uint8", "binary", "ubinary"])
def test_quantize_equals_sentence_transformers(precision):
    e = RNG.standard_normal((300, 64)).astype(np.float32)
    calibration = RNG.standard_normal((500, 64)).astype(np.float32) * 0.8  # narrower: some values fall outside
    got = tokvec.quantize_embeddings(e, precision)
    expected = st_quantize(e, precision)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)
    if precision in ("int8", "uint8"):
        with np.errstate(invalid="ignore"):
            assert np.array_equal(tokvec.quantize_embeddings(e, precision, calibration_embeddings=calibration),
                                  st_quantize(e, precision, calibration=calibration))
            ranges = np.vstack((calibration.min(0), calibration.max(0)))
            assert np.array_equal(tokvec.quantize_embeddings(e, precision, ranges=ranges),
                                  st_quantize(e, precision, ranges=ranges))


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_float_search_equals_brute_force(metric):
    index = RNG.standard_normal((20000, 48)).astype(np.float32)
    index[777] = index[123]  # an exact tie: the lower index ranks first
    queries = RNG.standard_normal((25, 48)).astype(np.float32)
    queries[0] = index[123]
    want_scores, want = brute_force(queries, index, 7, metric)
    for threads in (1, 2):
        scores, indices = tokvec.search(queries, index, k=7, metric=metric, num_threads=threads)
        assert indices.dtype == np.int64 and scores.dtype == np.float32 and indices.shape == (25, 7)
        assert np.array_equal(indices, want)
        assert np.allclose(scores, want_scores, atol=1e-4)
    assert list(indices[0][:2]) == [123, 777]


def test_binary_search_is_hamming_then_rescoring():
    vectors = RNG.standard_normal((5000, 128)).astype(np.float32)
    queries = RNG.standard_normal((9, 128)).astype(np.float32)
    k, multiplier = 5, 3
    for precision in ("ubinary", "binary"):
        codes = tokvec.quantize_embeddings(vectors, precision)
        bits = np.unpackbits(codes.view(np.uint8) ^ (0x80 if precision == "binary" else 0), axis=1)
        query_bits = (queries > 0).astype(np.uint8)
        hamming = (bits[None, :, :] != query_bits[:, None, :]).sum(axis=2)
        scores, indices = tokvec.search(queries, codes, k=k, rescore_multiplier=multiplier)
        plain_scores, plain = tokvec.search(queries, codes, k=k, rescore_multiplier=0)
        for q in range(len(queries)):
            nearest = np.argsort(hamming[q], kind="stable")
            assert list(plain[q]) == list(nearest[:k])
            assert list(plain_scores[q]) == list(128 - hamming[q][nearest[:k]])
            candidates = nearest[:k * multiplier]
            rescored = bits[candidates].astype(np.float64) @ queries[q].astype(np.float64)
            order = np.lexsort((candidates, -rescored))[:k]  # by score, then index
            assert list(indices[q]) == list(candidates[order])
            assert np.allclose(scores[q], rescored[order], atol=1e-4)


def test_search_paths_and_errors(tmp_path):
    index = RNG.standard_normal((100, 16)).astype(np.float32)
    np.save(tmp_path / "index.npy", index)
    queries = index[:3] + 0.01
    assert np.array_equal(tokvec.search(queries, str(tmp_path / "index.npy"), k=1)[1][:, 0], [0, 1, 2])
    assert tokvec.search(queries, index[:4], k=10)[1].shape == (3, 4)  # fewer rows than k
    with pytest.raises(ValueError, match="dimensions"):
        tokvec.search(queries[:, :8], index)
    with pytest.raises(ValueError, match="at least 1"):
        tokvec.search(queries, index, k=0)
    with pytest.raises(ValueError, match="metric"):
        tokvec.search(queries, index, metric="l2")
    with pytest.raises(ValueError, match="dot"):
        tokvec.search(queries, tokvec.quantize_embeddings(index, "int8"))  # codes: dot only
    with pytest.raises(FileNotFoundError):
        tokvec.search(queries, str(tmp_path / "none.npy"))
    with pytest.raises(ValueError, match="precision"):
        tokvec.quantize_embeddings(index, "int4")


def test_truncate_dim_and_cli(tokvec_bin, tiny_model, tmp_path):
    model = tokvec.Model.load(str(tiny_model))
    texts = ["The cat watched the gardener.", "A dog", "héllo wörld", "line four", "the last line"]
    full = model.embed(texts, pooling="mean")
    cut = model.embed(texts, pooling="mean", truncate_dim=8)
    expected = full[:, :8] / np.linalg.norm(full[:, :8], axis=1, keepdims=True)  # OpenAI's dimensions
    assert cut.shape == (5, 8) and np.allclose(cut, expected, atol=1e-6)
    with pytest.raises(ValueError, match="dimensions"):
        model.embed(texts, pooling="mean", truncate_dim=model.d_model + 1)
    stdin = ("\n".join(texts) + "\n").encode()
    cli = np.load(io.BytesIO(run([tokvec_bin, "embed", "-m", str(tiny_model), "--lines", "--pooling", "mean",
                                  "--format", "npy", "--dimensions", "8"], stdin=stdin)))
    assert np.array_equal(cli, cut)
    for precision in ("int8", "uint8", "binary", "ubinary"):
        codes = np.load(io.BytesIO(run([tokvec_bin, "embed", "-m", str(tiny_model), "--lines", "--pooling", "mean",
                                        "--format", "npy", "--precision", precision], stdin=stdin)))
        assert np.array_equal(codes, st_quantize(full, precision))
    for precision in ("int8", "ubinary"):  # encode(precision=...) as sentence-transformers' encode
        assert np.array_equal(model.embed(texts, pooling="mean", precision=precision), st_quantize(full, precision))
    line = json.loads(run([tokvec_bin, "embed", "-m", str(tiny_model), "--lines", "--pooling", "mean",
                           "--precision", "ubinary"], stdin=b"A dog\n"))
    assert line["vectors"] == st_quantize(model.embed(["A dog"], pooling="mean"), "ubinary").tolist()
    # tokvec search: query texts embedded with the model, and query vectors, give the module's hits.
    np.save(tmp_path / "index.npy", full)
    (tmp_path / "queries.txt").write_text("A dog\nthe last line\n")
    tsv = run([tokvec_bin, "search", "-i", str(tmp_path / "index.npy"), "-m", str(tiny_model), "--pooling", "mean",
               "-k", "2", str(tmp_path / "queries.txt")]).decode().splitlines()
    _, want = tokvec.search(model.embed(["A dog", "the last line"], pooling="mean"), full, k=2)
    assert [line.split("\t")[:3] for line in tsv] == [[str(q), str(r), str(want[q][r])]
                                                      for q in range(2) for r in range(2)]
    assert want[0][0] == 1 and want[1][0] == 4


@pytest.fixture()
def st_model(tmp_path):
    """The RoBERTa sentence-transformers test directory (mean + Normalize, 48 text tokens at most), with prompts and
    a max_seq_length of 16 added as sentence-transformers writes them."""
    import shutil
    source = ROOT / "tests" / "attention" / "testdata" / "hf_roberta_f32"
    directory = tmp_path / "st"
    shutil.copytree(source, directory)
    (directory / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": None}))
    (directory / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16, "do_lower_case": False}))
    return directory


def test_prompts_are_text_before_each_input(tokvec_bin, st_model):
    model = tokvec.Model.load(str(st_model))
    texts = ["the cat sat", "a dog ran far away"]
    with_prompt = model.embed(texts, prompt_name="query")
    assert np.array_equal(with_prompt, model.embed(["query: " + t for t in texts]))
    assert np.array_equal(with_prompt, model.embed(texts, prompt="query: "))
    assert not np.allclose(with_prompt, model.embed(texts))
    stdin = ("\n".join(texts) + "\n").encode()
    cli = np.load(io.BytesIO(run([tokvec_bin, "embed", "-m", str(st_model), "--lines", "--format", "npy",
                                  "--prompt-name", "query"], stdin=stdin)))
    assert np.array_equal(cli, with_prompt)
    # tokvec search embeds its query texts with the same prompt.
    index = model.embed(["a cat", "the dog ran", "mat"])
    np.save(st_model / "index.npy", index)
    tsv = run([tokvec_bin, "search", "-i", str(st_model / "index.npy"), "-m", str(st_model), "--prompt-name", "query",
               "-k", "3"], stdin=stdin).decode().splitlines()
    _, want = tokvec.search(with_prompt, index, k=3)
    assert [int(line.split("\t")[2]) for line in tsv] == want.reshape(-1).tolist()
    # default_prompt_name applies unless turned off, as sentence-transformers applies it.
    config = json.loads((st_model / "config_sentence_transformers.json").read_text())
    config["default_prompt_name"] = "passage"
    (st_model / "config_sentence_transformers.json").write_text(json.dumps(config))
    model = tokvec.Model.load(str(st_model))
    assert np.array_equal(model.embed(texts), model.embed(["passage: " + t for t in texts], default_prompt=False))
    assert np.array_equal(model.embed(texts, default_prompt=False), model.embed(texts, prompt=""))
    with pytest.raises(ValueError, match="unknown prompt name 'title'.*passage, query"):
        model.embed(texts, prompt_name="title")


def test_include_prompt_false_leaves_the_prompt_out_of_the_mean(st_model):
    pooling = st_model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config["include_prompt"] = False
    pooling.write_text(json.dumps(config))
    model = tokvec.Model.load(str(st_model))
    text = "the cat sat on the mat"
    got = model.embed([text], prompt="query: ")[0]
    # sentence-transformers: prompt_length = len(tokenize(prompt)) - 1 (its final special token), those first
    # positions masked out of the mean; then Normalize.
    skip = len(model.tokenize("query: ")) - 1
    _, vectors = model.token_vectors("query: " + text)
    mean = vectors[skip:].astype(np.float64).mean(axis=0)
    assert np.allclose(got, mean / np.linalg.norm(mean), atol=1e-6)
    assert not np.allclose(got, model.embed([text], prompt="query: ", pooling="mean", normalize=True)[0])


def test_truncation_keeps_special_tokens_and_cuts_the_text(tokvec_bin, st_model):
    model = tokvec.Model.load(str(st_model))
    words = [f"w{i}" for i in range(60)]
    text = " ".join(words)
    ids = model.tokenize(text)
    assert len(ids) > 50  # longer than the model (50 positions)
    with pytest.raises(ValueError, match="--truncate"):
        model.embed([text])
    # Right: <s> + the first 14 text tokens + </s> = max_seq_length 16; the same as embedding exactly those ids.
    right = model.embed([text], truncate=True)
    cut_ids = ids[:15] + ids[-1:]
    prefix = next(" ".join(words[:n]) for n in range(1, 60) if model.tokenize(" ".join(words[:n]))[:-1] == ids[:15])
    assert model.tokenize(prefix) == cut_ids
    assert np.array_equal(right, model.embed([prefix]))
    assert np.array_equal(model.embed([text], truncate="right", max_length=16), right)
    # Left: <s> + the last 14 text tokens + </s>.
    left = model.embed([text], truncate="left")
    suffix_ids = ids[:1] + ids[-15:]
    cli = json.loads(run([tokvec_bin, "embed", "-m", str(st_model), "--pooling", "none", "--truncate=left"],
                         stdin=text.encode()))
    assert cli["ids"] == suffix_ids
    assert not np.array_equal(left, right)
    cli = json.loads(run([tokvec_bin, "embed", "-m", str(st_model), "--pooling", "none", "--max-length", "10"],
                         stdin=text.encode()))
    assert cli["ids"] == ids[:9] + ids[-1:]
    with pytest.raises(ValueError, match="more than the model"):
        model.embed([text], max_length=51)


def test_dense_modules_after_pooling_give_torchs_vectors():
    """hf_bert_dense: cls pooling, Dense 32 -> 24 (Tanh), Dense 24 -> 16 (Identity), Normalize, against the torch
    vectors of hf_dense_reference.json; an explicit pooling leaves the Dense modules out."""
    import json
    testdata = ROOT / "tests" / "attention" / "testdata"
    reference = json.loads((testdata / "hf_dense_reference.json").read_text())
    model = tokvec.Model.load(str(testdata / "hf_bert_dense"))
    vectors = model.embed(reference["texts"])
    assert vectors.shape == (len(reference["texts"]), 16)
    np.testing.assert_allclose(vectors, np.array(reference["pooled"]), atol=1e-5)
    assert model.embed(reference["texts"][:1], pooling="cls").shape == (1, 32)


def test_mpnet_sentence_vectors_are_torchs():
    """all-mpnet-base-v2's shape (hf_mpnet_f32: relative position bias, mean pooling, Normalize) through
    Model.embed, against the PyTorch reference of scripts/gen_hf_checkpoints.py."""
    import json
    testdata = ROOT / "tests" / "attention" / "testdata"
    reference = json.loads((testdata / "hf_mpnet_reference.json").read_text())
    model = tokvec.Model.load(str(testdata / "hf_mpnet_f32"))
    vectors = model.embed(reference["texts"])
    np.testing.assert_allclose(vectors, np.array(reference["f32"]["pooled"]), atol=1e-5)
