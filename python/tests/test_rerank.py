"""tokvec.Model.rerank / predict / labels against the PyTorch goldens of scripts/gen_hf_checkpoints.py
(hf_cross_reference.json: BertForSequenceClassification with one label, DistilBertForSequenceClassification with
three), with the scores computed here as sentence-transformers' CrossEncoder computes them (sigmoid; softmax)."""
import json

import numpy as np
import pytest

import tokvec
from conftest import ROOT

TESTDATA = ROOT / "tests" / "attention" / "testdata"
REFERENCE = json.loads((TESTDATA / "hf_cross_reference.json").read_text())
PAIRS = [tuple(p) for p in REFERENCE["pairs"]]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


def softmax(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_predict_gives_torchs_scores():
    ranker = tokvec.Model.load(str(TESTDATA / "hf_bert_cross"))
    logits = np.array(REFERENCE["bert_cross"]["logits"])[:, 0]
    assert ranker.labels == ["LABEL_0"]
    np.testing.assert_allclose(ranker.predict(PAIRS, raw_scores=True), logits, atol=1e-5)
    scores = ranker.predict(PAIRS)
    assert scores.shape == (len(PAIRS),) and scores.dtype == np.float32
    np.testing.assert_allclose(scores, sigmoid(logits), atol=1e-6)

    nli = tokvec.Model.load(str(TESTDATA / "hf_distilbert_nli"))
    assert nli.labels == REFERENCE["distilbert_nli"]["labels"]
    probabilities = nli.predict(PAIRS, num_threads=2)
    assert probabilities.shape == (len(PAIRS), 3)
    np.testing.assert_allclose(probabilities, softmax(REFERENCE["distilbert_nli"]["logits"]), atol=1e-6)


def test_rerank_orders_as_crossencoder_rank():
    ranker = tokvec.Model.load(str(TESTDATA / "hf_bert_cross"))
    query = PAIRS[0][0]
    documents = [b for a, b in PAIRS if a == query]
    expected = sigmoid(np.array(REFERENCE["bert_cross"]["logits"])[: len(documents), 0])
    order = np.argsort(-expected, kind="stable")
    ranked = ranker.rerank(query, documents, return_documents=True)
    assert [r["corpus_id"] for r in ranked] == list(order)
    for r in ranked:
        assert r["text"] == documents[r["corpus_id"]]
        assert r["score"] == pytest.approx(expected[r["corpus_id"]], abs=1e-6)
    top = ranker.rerank(query, documents, top_k=2)
    assert [r["corpus_id"] for r in top] == list(order[:2]) and "text" not in top[0]


def test_models_without_a_head_and_bad_inputs_are_errors():
    plain = tokvec.Model.load(str(TESTDATA / "hf_bert_f32"))
    with pytest.raises(ValueError, match="names no classification head"):
        plain.rerank("a", ["b"])
    ranker = tokvec.Model.load(str(TESTDATA / "hf_bert_cross"))
    with pytest.raises(ValueError, match="not both"):
        ranker.predict(["a", ("b", "c")])
    with pytest.raises(ValueError, match="pairs"):
        ranker.predict([("a", "b", "c")])
