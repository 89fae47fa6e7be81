"""The type stubs (tokvec/__init__.pyi) name exactly the public API the module has, and everything is documented."""
import ast
import inspect
import pathlib

import tokvec

STUBS = pathlib.Path(__file__).resolve().parents[1] / "tokvec" / "__init__.pyi"


def stub_names():
    tree = ast.parse(STUBS.read_text())
    classes, functions = {}, set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            functions.add(node.name)
    return classes, functions


def test_stubs_match_the_module():
    classes, functions = stub_names()
    assert functions == {"train", "train_from_iterator", "search", "quantize_embeddings"}
    assert set(classes) == {"Error", "Tokenizer", "Model"}
    for name in ("Tokenizer", "Model"):
        runtime = {n for n in dir(getattr(tokvec, name)) if not n.startswith("_")}
        assert runtime == classes[name], f"{name}: only at run time {runtime - classes[name]}, " \
                                         f"only in the stubs {classes[name] - runtime}"


def test_public_functions_have_signatures_and_docs():
    assert tokvec.__doc__ and tokvec.train.__doc__ and tokvec.train_from_iterator.__doc__
    assert tokvec.search.__doc__ and tokvec.quantize_embeddings.__doc__
    assert list(inspect.signature(tokvec.train).parameters)[:3] == ["files", "type", "vocab_size"]
    assert "num_threads" in tokvec.Tokenizer.encode_batch.__doc__  # pybind11's signature line
    assert "pooling" in tokvec.Model.embed.__doc__
    for cls in (tokvec.Tokenizer, tokvec.Model):
        for name in dir(cls):
            member = getattr(cls, name)
            if name.startswith("_") or isinstance(member, property):
                continue
            lines = member.__doc__.strip().split("\n")
            assert len(lines) > 1 and lines[-1].strip(), f"{cls.__name__}.{name} has no docstring"
