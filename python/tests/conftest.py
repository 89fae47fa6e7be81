"""Shared fixtures: the tokvec binary (the CLI is the oracle the module must equal), ../shared, a tiny model.

Environment (ctest sets them): PYTHONPATH holds the built module, TOKVEC_BINARY the CLI, TOKVEC_SHARED_DIR
the shared corpora and vocabularies (tests that need them skip with a message when absent).
"""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tokvec_bin():
    path = pathlib.Path(os.environ.get("TOKVEC_BINARY", ROOT / "build" / "tokvec"))
    if not path.exists():
        pytest.skip(f"tokvec binary {path} not built (set TOKVEC_BINARY)")
    return str(path)


@pytest.fixture(scope="session")
def shared():
    path = pathlib.Path(os.environ.get("TOKVEC_SHARED_DIR", ROOT.parent / "shared"))
    if not (path / "corpora").is_dir() or not (path / "vocab").is_dir():
        pytest.skip(f"{path}/corpora or {path}/vocab not found (set TOKVEC_SHARED_DIR)")
    return path


def run(args, stdin=None):
    """Runs a command; returns its stdout as bytes (fails the test with its stderr otherwise)."""
    result = subprocess.run(args, input=stdin, capture_output=True)
    assert result.returncode == 0, f"{args} exited {result.returncode}: {result.stderr.decode(errors='replace')}"
    return result.stdout


@pytest.fixture(scope="session")
def tiny_model(tokvec_bin, tmp_path_factory):
    """A seeded gpt2-style model over a byte tokenizer trained on data/corpus.txt (tokvec train + init)."""
    work = tmp_path_factory.mktemp("tiny")
    run([tokvec_bin, "train", "--type", "byte", "--vocab-size", "400", "--special", "<|endoftext|>",
         "--threads", "1", "-o", str(work / "byte.tokvec"), str(ROOT / "data" / "corpus.txt")])
    run([tokvec_bin, "init", "--tokenizer", str(work / "byte.tokvec"), "--arch", "gpt2", "--d-model", "32",
         "--heads", "4", "--layers", "2", "--max-len", "64", "--seed", "7", "-o", str(work / "model")])
    return work / "model"
