#!/usr/bin/env python3
"""Writes the small seed corpora of tests/fuzz/corpus/<target>/ (run from anywhere; plain python3, no packages).

   python3 tests/fuzz/make_seeds.py

Seeds are tiny valid (and a few nearly valid) inputs so libFuzzer starts from the interesting parts of each
format. Targets built with FuzzedDataProvider take integers from the END of the input and strings from the
front; a random-length string ends at a backslash followed by any other byte.
"""
import base64
import json
import os
import random
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


def fdp_string(s):
    """Encodes `s` as FuzzedDataProvider::ConsumeRandomLengthString reads it (then ends it)."""
    if isinstance(s, str):
        s = s.encode("utf-8")
    return s.replace(b"\\", b"\\\\") + b"\\x"


def safetensors(tensors, dtype="F32"):
    """tensors: list of (name, shape, values); returns the file bytes."""
    header, data = {}, b""
    for name, shape, values in tensors:
        if dtype == "F32":
            blob = struct.pack("<%df" % len(values), *values)
        else:  # F16
            blob = struct.pack("<%de" % len(values), *values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def tensor_maker(seed):
    """t(name, *shape) -> (name, shape, values uniform in [-0.5, 0.5] rounded to 3 digits), from one seeded stream."""
    rng = random.Random(seed)
    def t(name, *shape):
        n = 1
        for s in shape:
            n *= s
        return (name, list(shape), [round(rng.uniform(-0.5, 0.5), 3) for _ in range(n)])
    return t


def gpt2_tensors(V=8, D=4, F=8, N=8, L=1, seed=0, wpe=True):
    t = tensor_maker(seed)
    out = [t("wte.weight", V, D)] + ([t("wpe.weight", N, D)] if wpe else [])
    for i in range(L):
        p = "h.%d." % i
        out += [t(p + "ln_1.weight", D), t(p + "ln_1.bias", D), t(p + "attn.c_attn.weight", D, 3 * D),
                t(p + "attn.c_attn.bias", 3 * D), t(p + "attn.c_proj.weight", D, D), t(p + "attn.c_proj.bias", D),
                t(p + "ln_2.weight", D), t(p + "ln_2.bias", D), t(p + "mlp.c_fc.weight", D, F),
                t(p + "mlp.c_fc.bias", F), t(p + "mlp.c_proj.weight", F, D), t(p + "mlp.c_proj.bias", D)]
    out += [t("ln_f.weight", D), t("ln_f.bias", D)]
    return out


GPT2_CONFIG = {"model_type": "gpt2", "n_embd": 4, "n_head": 2, "n_layer": 1, "n_positions": 8, "vocab_size": 8,
               "layer_norm_epsilon": 1e-5}
ENCODER_CONFIG = dict(GPT2_CONFIG, model_type="encoder", n_inner=8, activation_function="relu")
ROTARY_CONFIG = dict(GPT2_CONFIG, position_embedding_type="rotary", rope_theta=10000.0)  # init --positions rotary
ROBERTA_CONFIG = {"model_type": "roberta", "hidden_size": 4, "num_attention_heads": 2, "num_hidden_layers": 1,
                  "intermediate_size": 8, "max_position_embeddings": 10, "vocab_size": 8, "type_vocab_size": 1,
                  "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": 1e-5,
                  "hidden_act": "gelu"}

TEXTS = ["hello world", "low lower newest widest", "aaabdaaabac", "  spaces\tand\nnewlines  ",
         "caf\u00e9 \u65e5\u672c\u8a9e \U0001F600!", "<|endoftext|>x<|endoftext|>", "don't 123 4567 ?!...",
         "\xff\xfe bad \x80 utf8"]


# LLaMA-family decoders: GQA (2 query heads, 1 key/value head), qwen3 with head_dim 4 != hidden / heads 2.
LLAMA_CONFIG = {"model_type": "llama", "hidden_size": 4, "intermediate_size": 8, "num_hidden_layers": 1,
                "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 8, "vocab_size": 8,
                "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "rope_scaling": None, "hidden_act": "silu",
                "tie_word_embeddings": False, "attention_bias": False}
QWEN2_CONFIG = dict(LLAMA_CONFIG, model_type="qwen2", rope_theta=1000000.0, tie_word_embeddings=True,
                    use_sliding_window=False, sliding_window=None)
QWEN3_CONFIG = dict(QWEN2_CONFIG, model_type="qwen3", head_dim=4)


def decoder_tensors(config, seed=0):
    """embed_tokens, layers.N.{input_layernorm, self_attn.*, post_attention_layernorm, mlp.*}, norm (no prefix)."""
    t = tensor_maker(seed)
    d, f, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    dh = config.get("head_dim", d // config["num_attention_heads"])
    q, kv = config["num_attention_heads"] * dh, config["num_key_value_heads"] * dh
    out = [t("embed_tokens.weight", v, d)]
    for i in range(config["num_hidden_layers"]):
        p = "layers.%d." % i
        out += [t(p + "input_layernorm.weight", d), t(p + "self_attn.q_proj.weight", q, d),
                t(p + "self_attn.k_proj.weight", kv, d), t(p + "self_attn.v_proj.weight", kv, d),
                t(p + "self_attn.o_proj.weight", d, q), t(p + "post_attention_layernorm.weight", d),
                t(p + "mlp.gate_proj.weight", f, d), t(p + "mlp.up_proj.weight", f, d),
                t(p + "mlp.down_proj.weight", d, f)]
        if config["model_type"] == "qwen2":
            out += [t(p + "self_attn.q_proj.bias", q), t(p + "self_attn.k_proj.bias", kv),
                    t(p + "self_attn.v_proj.bias", kv)]
        if config["model_type"] == "qwen3":
            out += [t(p + "self_attn.q_norm.weight", dh), t(p + "self_attn.k_norm.weight", dh)]
    return out + [t("norm.weight", d)]


def bytes_to_unicode():
    """GPT-2's printable spelling of each byte (printable Latin-1 bytes spell themselves, the rest map to 256+)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def spell(bs):
    table = bytes_to_unicode()
    return "".join(table[b] for b in bs)


MERGES = [(b"h", b"e"), (b"l", b"l"), (b"he", b"ll"), (b"hell", b"o"), (b" ", b"w"), (b" w", b"o"), (b"r", b"l"),
          (b" wo", b"rl"), (b" worl", b"d"), (b"l", b"o"), (b"lo", b"w"), (b"e", b"r")]


def byte_vocab():
    tokens = [bytes([b]) for b in range(256)]
    for left, right in MERGES:
        tokens.append(left + right)
    return tokens, MERGES


def main():
    rng = random.Random(7)
    # bpe_merge: bytes drive the model and the piece directly.
    for i in range(6):
        write("bpe_merge", "seed%d" % i, bytes(rng.randrange(256) for _ in range(8 + 40 * i)))

    # byte_roundtrip: [merge source][text][pattern][allow_special][ranks] (integers from the end).
    for i, text in enumerate(TEXTS):
        raw = text.encode("utf-8", "surrogateescape") if "\xff" not in text else text.encode("latin-1")
        write("byte_roundtrip", "seed%d" % i, fdp_string(raw[:12]) + raw + bytes([i % 3, i % 2, (i // 2) % 2]))

    # train_roundtrip: [text][with_special][merges][preset][type] (integers from the end).
    for i, text in enumerate(TEXTS):
        raw = text.encode("utf-8") if "\xff" not in text else text.encode("latin-1")
        write("train_roundtrip", "seed%d" % i, raw + bytes([i % 2, 10 + i, i % 3, (i // 2) % 2]))

    # tokvec_model: tokvec's model file (tokenizer/formats/tokvec_model_format.cc), a word and a byte model, then a sample.
    _, merges = byte_vocab()
    sample = "\n#\nhello world lower \u00e9".encode("utf-8") + b"\xff"
    word_model = ["tokvec-bpe 1", "type word", "pre_tokenizer whitespace", "normalizer none", "unk 0",
                  "end_of_word 1"]
    letters = "abdeilnorstw\u00e9"
    word_model.append("alphabet %d" % len(letters))
    word_model += ["%d %s" % (2 + i, c) for i, c in enumerate(letters)]
    word_merges = ["e r", "er </w>", "l o", "lo w", "n e", "ne w", "e s", "es t", "est </w>"]
    word_model += ["merges %d" % len(word_merges)] + word_merges + ["end"]
    write("tokvec_model", "word", "\n".join(word_model) + "\n")
    write("tokvec_model", "word_sample", "\n".join(word_model) + "\n\n#\nlow lower newest widest caf\u00e9\n")
    byte_model = ["tokvec-bpe 1", "type byte", "pre_tokenizer gpt2", "normalizer none", "special 0 <|endoftext|>",
                  "alphabet 256"]
    byte_model += ["%d %s" % (1 + b, spell(bytes([b]))) for b in range(256)]
    byte_model += ["merges %d" % len(merges)] + ["%s %s" % (spell(a), spell(b)) for a, b in merges] + ["end"]
    write("tokvec_model", "byte", "\n".join(byte_model) + "\n")
    write("tokvec_model", "byte_sample", ("\n".join(byte_model) + "\n").encode() + sample)
    write("tokvec_model", "truncated", "\n".join(word_model[:10]) + "\n")

    # model_safetensors: valid F32 and F16 files.
    write("model_safetensors", "gpt2_f32", safetensors(gpt2_tensors()))
    write("model_safetensors", "small_f16", safetensors([("a", [2, 2], [1.0, -2.0, 0.5, 65504.0])], "F16"))
    write("model_safetensors", "empty_header", struct.pack("<Q", 8) + b"{}      ")

    # model_config: the three dialects.
    for name, config in [("gpt2", GPT2_CONFIG), ("encoder", ENCODER_CONFIG), ("roberta", ROBERTA_CONFIG),
                         ("gpt2_rotary", ROTARY_CONFIG)]:
        write("model_config", name, json.dumps(config, indent=1))

    # model_load: [config][safetensors][ids...][n_ids] (integers from the end).
    weights = safetensors(gpt2_tensors())
    write("model_load", "gpt2", fdp_string(json.dumps(GPT2_CONFIG)) + weights + bytes([1, 5, 2, 3]))
    write("model_load", "gpt2_rotary", fdp_string(json.dumps(ROTARY_CONFIG)) + safetensors(gpt2_tensors(wpe=False)) +
          bytes([1, 5, 2, 3]))
    # The decoders: config.json alone, and whole directories.
    for name, config in [("llama", LLAMA_CONFIG), ("qwen2", QWEN2_CONFIG), ("qwen3", QWEN3_CONFIG)]:
        write("model_config", name, json.dumps(config, indent=1))
        write("model_load", name, fdp_string(json.dumps(config)) + safetensors(decoder_tensors(config)) +
              bytes([1, 5, 2, 3]))
    # tiktoken: base64(token) rank, ranks 0..n-1.
    tokens, merges = byte_vocab()
    sample = "\n#\nhello world lower \u00e9\xff".encode("utf-8", "surrogatepass")
    tiktoken = "".join("%s %d\n" % (base64.b64encode(t).decode(), r) for r, t in enumerate(tokens))
    write("tiktoken", "valid", tiktoken)
    write("tiktoken", "valid_sample", tiktoken.encode() + sample)
    write("tiktoken", "gap", "YQ== 0\nYg== 2\n")
    write("tiktoken", "bad_base64", "YQ== 0\n!!!! 1\n")

    # vocab.json + merges.txt, joined by "\n#\n" (then an optional sample).
    vocab = {spell(t): i for i, t in enumerate(tokens)}
    merges_txt = "#version: 0.2\n" + "".join("%s %s\n" % (spell(a), spell(b)) for a, b in merges)
    write("gpt2_files", "valid", json.dumps(vocab, ensure_ascii=False) + "\n#\n" + merges_txt)
    write("gpt2_files", "valid_sample",
          (json.dumps(vocab, ensure_ascii=False) + "\n#\n" + merges_txt).encode() + sample)
    write("gpt2_files", "unknown_merge", '{"a": 0, "b": 1}\n#\n#version: 0.2\na c\n')

    # tokenizer.json: a byte-level model (GPT-2 style) and a classic one (end-of-word suffix, whitespace split).
    byte_level = {
        "version": "1.0",
        "added_tokens": [{"id": len(tokens), "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": ["%s %s" % (spell(a), spell(b)) for a, b in merges]},
    }
    write("hf_tokenizer_json", "byte_level", json.dumps(byte_level, ensure_ascii=False))
    write("hf_tokenizer_json", "byte_level_sample", json.dumps(byte_level, ensure_ascii=False).encode() + sample)
    # The fast path's scanner (tokenizer/formats/tokenizer_json_vocab.h): every spelling written with \u escapes, merges as
    # pairs, and a repeated vocab key (the DOM keeps its last id), a lone surrogate and a cut inside the merges.
    pairs = dict(byte_level, model=dict(byte_level["model"], merges=[[spell(a), spell(b)] for a, b in merges]))
    write("hf_tokenizer_json", "escaped_pairs", json.dumps(pairs, ensure_ascii=True))
    text = json.dumps(byte_level, ensure_ascii=False)
    write("hf_tokenizer_json", "repeated_key", text.replace('"vocab": {', '"vocab": {"a": 7, ', 1))
    write("hf_tokenizer_json", "lone_surrogate", text.replace('"vocab": {', '"vocab": {"\\ud800": 7, ', 1))
    write("hf_tokenizer_json", "cut_in_merges", text[:text.index('"merges": [') + 40])
    classic_vocab = {"<unk>": 0}
    for c in "abdehilnorstw":
        classic_vocab[c] = len(classic_vocab)
        classic_vocab[c + "</w>"] = len(classic_vocab)
    classic_merges = [("l", "o"), ("lo", "w</w>"), ("e", "r</w>")]
    for a, b in classic_merges:
        classic_vocab.setdefault(a + b, len(classic_vocab))
    classic = {
        "version": "1.0", "added_tokens": [], "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": {"type": "BPEDecoder", "suffix": "</w>"},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": "</w>", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": classic_vocab, "merges": [[a, b] for a, b in classic_merges]},
    }
    write("hf_tokenizer_json", "classic", json.dumps(classic))
    # WordPiece (BERT-style, as tests/data/wordpiece): an uncased file with a sample, and a Sequence normalizer
    # with WhitespaceSplit and a small max_input_chars_per_word.
    wordpiece_vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    for piece in ["hell", "##o", "world", "low", "##er", "##est", "e", "##e", "\u732b", ",", "!", "'", "s"]:
        wordpiece_vocab[piece] = len(wordpiece_vocab)
    bert = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t, i in list(wordpiece_vocab.items())[:5]],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": wordpiece_vocab},
    }
    bert_sample = "\n#\nHello, World! lower l\u00f6west \u732b\u200b [CLS] don't\x00\t\ufffd".encode("utf-8")
    write("hf_tokenizer_json", "wordpiece_sample", json.dumps(bert, ensure_ascii=False).encode() + bert_sample)
    sequence = dict(bert, normalizer={"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Lowercase"},
                                                                          {"type": "StripAccents"}]},
                    pre_tokenizer={"type": "WhitespaceSplit"}, decoder=None,
                    model=dict(bert["model"], max_input_chars_per_word=5))
    write("hf_tokenizer_json", "wordpiece_sequence", json.dumps(sequence, ensure_ascii=False))
    # Models without "type" (older tokenizers versions): the kind is inferred from the fields; WordLevel's too, and a
    # typed WordLevel whose unk_token is not in the vocabulary (an unknown word is then an error).
    untyped = dict(bert, model={k: v for k, v in bert["model"].items() if k != "type"})
    write("hf_tokenizer_json", "untyped_wordpiece", json.dumps(untyped, ensure_ascii=False).encode() + bert_sample)
    word_level = dict(bert, model={"vocab": wordpiece_vocab, "unk_token": "[UNK]"})
    write("hf_tokenizer_json", "untyped_word_level", json.dumps(word_level, ensure_ascii=False).encode() + bert_sample)
    # Components without "type" (Hugging Face's untagged fallbacks: the fields decide the kind), and a post-processor
    # whose fields say RobertaProcessing under the type BertProcessing (tests/data/legacy, scripts/gen_legacy_files.mjs).
    untyped_components = {key: {k: v for k, v in bert[key].items() if k != "type"}
                          for key in ("normalizer", "post_processor", "decoder")}
    write("hf_tokenizer_json", "untyped_components",
          json.dumps(dict(bert, **untyped_components), ensure_ascii=False).encode() + bert_sample)
    roberta_fields = dict(bert, post_processor=dict(bert["post_processor"], trim_offsets=True, add_prefix_space=False),
                          normalizer=dict(bert["normalizer"], type="Bert"))
    write("hf_tokenizer_json", "legacy_roberta_fields", json.dumps(roberta_fields, ensure_ascii=False).encode() + bert_sample)
    # Truncation and padding sections (current shapes, and the older ones without direction / pad_to_multiple_of).
    lengths = dict(bert, truncation={"direction": "Left", "max_length": 7, "strategy": "LongestFirst", "stride": 2},
                   padding={"strategy": {"Fixed": 9}, "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 0,
                            "pad_type_id": 1, "pad_token": "[PAD]"})
    write("hf_tokenizer_json", "wordpiece_lengths", json.dumps(lengths, ensure_ascii=False).encode() + bert_sample)
    old_lengths = dict(bert, truncation={"max_length": 5, "strategy": "OnlyFirst", "stride": 0},
                       padding={"strategy": "BatchLongest", "direction": "Right", "pad_id": 0, "pad_type_id": 0,
                                "pad_token": "[PAD]"})
    write("hf_tokenizer_json", "wordpiece_old_lengths", json.dumps(old_lengths, ensure_ascii=False).encode() + bert_sample)
    word_level_no_unk = dict(bert, pre_tokenizer={"type": "Whitespace"},
                             model={"type": "WordLevel", "vocab": wordpiece_vocab, "unk_token": "<unk>"})
    write("hf_tokenizer_json", "word_level_no_unk", json.dumps(word_level_no_unk, ensure_ascii=False).encode() + bert_sample)
    # Unigram (T5 / XLM-R shaped, as tests/data/unigram): the custom rules' Precompiled charsmap of custom-first.json,
    # Metaspace, byte_fallback with a few <0xNN> pieces, a sample with unknown characters; a Sequence variant with
    # WhitespaceSplit, prepend "first", no split; one with the Replace/ByteFallback/Fuse/Strip decoder; and a charsmap
    # cut short.
    with open(os.path.join(os.path.dirname(ROOT), "..", "data", "unigram", "custom-first.json"), encoding="utf-8") as f:
        charsmap = json.load(f)["normalizer"]["precompiled_charsmap"]
    unigram_pieces = [["<unk>", 0.0], ["<s>", 0.0], ["</s>", 0.0], ["\u2581", -2.0], ["\u2581he", -3.5], ["llo", -4.0],
                      ["\u2581hello", -7.5], ["l", -5.0], ["o", -5.0], ["h", -5.0], ["e", -5.0], ["<0xE2>", 0.0],
                      ["<0x98>", 0.0], ["<0x83>", 0.0]]
    unigram = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(["<unk>", "<s>", "</s>"])],
        "normalizer": {"type": "Precompiled", "precompiled_charsmap": charsmap},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": None, "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": unigram_pieces, "byte_fallback": True},
    }
    unigram_sample = "\n#\nhello  \uff48\uff45llo \u2603\u2603 e\u0301 <s>\u3000\ufb01".encode("utf-8")
    write("hf_tokenizer_json", "unigram_sample", json.dumps(unigram, ensure_ascii=False).encode() + unigram_sample)
    untyped_unigram = dict(unigram, model={k: v for k, v in unigram["model"].items() if k != "type"})
    write("hf_tokenizer_json", "untyped_unigram", json.dumps(untyped_unigram, ensure_ascii=False).encode() + unigram_sample)
    unigram_sequence = dict(unigram, normalizer={"type": "Sequence", "normalizers": [
        unigram["normalizer"], {"type": "Lowercase"}]}, pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                                      "split": False}]}, model=dict(unigram["model"], byte_fallback=False, unk_id=None))
    write("hf_tokenizer_json", "unigram_sequence", json.dumps(unigram_sequence, ensure_ascii=False))
    # The byte_fallback decoder chain of newer conversions (tests/data/unigram/bytes-llama.json's shape).
    llama = dict(unigram, pre_tokenizer={"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                                         "split": False},
                 decoder={"type": "Sequence", "decoders": [
                     {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
                     {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]})
    write("hf_tokenizer_json", "unigram_byte_fallback_decoder",
          json.dumps(llama, ensure_ascii=False).encode() + unigram_sample)
    cut = dict(unigram, normalizer={"type": "Precompiled", "precompiled_charsmap": charsmap[:40]})
    write("hf_tokenizer_json", "unigram_cut_charsmap", json.dumps(cut, ensure_ascii=False))
    # General pre-tokenizer Sequences for WordPiece and Unigram (tests/data/wordpiece/digits-sequence.json,
    # unigram/punct-metaspace.json shapes): splitters before and after a Metaspace, BertNormalizer clean_text false.
    splitters = dict(bert, normalizer=dict(bert["normalizer"], clean_text=False), pre_tokenizer={
        "type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "Digits", "individual_digits": True},
                                              {"type": "Punctuation", "behavior": "Isolated"}]})
    write("hf_tokenizer_json", "wordpiece_splitters",
          json.dumps(splitters, ensure_ascii=False).encode() + b"\n#\nhello123 world,\x00lower 4.5" + bert_sample[3:])
    unigram_splitters = dict(unigram, pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Punctuation", "behavior": "Isolated"},
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
        {"type": "Digits", "individual_digits": True}]})
    write("hf_tokenizer_json", "unigram_splitters", json.dumps(unigram_splitters, ensure_ascii=False).encode() + unigram_sample)

    write("model_load", "encoder", fdp_string(json.dumps(ENCODER_CONFIG)) + weights + bytes([7, 0, 2]))

    # model_npy: a 2 x 3 float32 matrix as NpyFloat32 writes it, and one cut short.
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<6f", *range(6))
    write("model_npy", "matrix_2x3", npy)
    write("model_npy", "cut_short", npy[:-5])
    # count_file: [word (odd) or byte (even)][the file's text].
    write("count_file", "byte_header", b"\x00tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none\n"
          b"\\sthe\t12\n,\t3\n\\xFF\\x00\t18446744073709551615\n")
    write("count_file", "word_parts", b"\x01low\t5\nlower\t2\r\n\nnewest\t6\nlow\t1\nwid\\\\er\t3")

    bert_seeds()
    heads_seeds()


BERT_CONFIG = {"model_type": "bert", "hidden_size": 4, "num_attention_heads": 2, "num_hidden_layers": 1,
               "intermediate_size": 8, "max_position_embeddings": 8, "vocab_size": 8, "type_vocab_size": 2,
               "pad_token_id": 0, "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute"}


def bert_tensors(V=8, D=4, F=8, N=8, types=2, seed=3, prefix=""):
    """BertModel's names (RoBERTa's), with the pooler tokvec ignores."""
    rng = random.Random(seed)
    def t(name, *shape):
        n = 1
        for s in shape:
            n *= s
        return (prefix + name, list(shape), [round(rng.uniform(-0.5, 0.5), 3) for _ in range(n)])
    out = [t("embeddings.word_embeddings.weight", V, D), t("embeddings.position_embeddings.weight", N, D),
           t("embeddings.token_type_embeddings.weight", types, D), t("embeddings.LayerNorm.weight", D),
           t("embeddings.LayerNorm.bias", D)]
    p = "encoder.layer.0."
    for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
        out += [t(p + name + ".weight", D, D), t(p + name + ".bias", D)]
    out += [t(p + "attention.output.LayerNorm.weight", D), t(p + "attention.output.LayerNorm.bias", D),
            t(p + "intermediate.dense.weight", F, D), t(p + "intermediate.dense.bias", F),
            t(p + "output.dense.weight", D, F), t(p + "output.dense.bias", D),
            t(p + "output.LayerNorm.weight", D), t(p + "output.LayerNorm.bias", D),
            t("pooler.dense.weight", D, D), t("pooler.dense.bias", D)]
    return out


def bert_seeds():
    """BERT configs (model_config, model_load) and sharded-weight indexes (model_safetensors_index)."""
    write("model_config", "bert", json.dumps(BERT_CONFIG, indent=1))
    write("model_config", "bert_relative", json.dumps(dict(BERT_CONFIG, position_embedding_type="relative_key")))
    write("model_load", "bert", fdp_string(json.dumps(BERT_CONFIG)) + safetensors(bert_tensors()) +
          bytes([4, 1, 7, 5, 4]))
    write("model_load", "bert_prefixed", fdp_string(json.dumps(BERT_CONFIG)) +
          safetensors(bert_tensors(prefix="bert.")) + bytes([4, 5, 2]))
    # model_safetensors_index: [index.json][a.safetensors][b.safetensors] (two random-length strings, then the rest).
    tensors = bert_tensors()
    first, second = tensors[:5], tensors[5:]
    index = {"metadata": {"total_size": 0},
             "weight_map": dict([(n, "a.safetensors") for n, _, _ in first] + [(n, "b.safetensors") for n, _, _ in second])}
    write("model_safetensors_index", "two_shards",
          fdp_string(json.dumps(index)) + fdp_string(safetensors(first)) + safetensors(second))
    missing = dict(index, weight_map=dict(index["weight_map"], extra="a.safetensors"))
    write("model_safetensors_index", "names_missing_tensor",
          fdp_string(json.dumps(missing)) + fdp_string(safetensors(first)) + safetensors(second))
    write("model_safetensors_index", "tensor_in_both",
          fdp_string(json.dumps(index)) + fdp_string(safetensors(first)) + safetensors(first + second))
    write("model_safetensors_index", "outside_folder",
          fdp_string(json.dumps({"weight_map": {"a": "../a.safetensors"}})) + fdp_string(b"") + b"")



def heads_seeds():
    """model_heads: sentence-transformers modules with a Dense layer (mode 0), and classification heads (mode 1);
    the mode is the last byte (FuzzedDataProvider reads integers from the end)."""
    t = tensor_maker(11)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
               {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
               {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"}]
    pooling = {"word_embedding_dimension": 4, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}
    for name, activation, bias in (("dense_tanh", "torch.nn.modules.activation.Tanh", True),
                                   ("dense_identity", "torch.nn.modules.linear.Identity", False)):
        dense = {"in_features": 4, "out_features": 3, "bias": bias, "activation_function": activation}
        tensors = [t("linear.weight", 3, 4)] + ([t("linear.bias", 3)] if bias else [])
        write("model_heads", name, fdp_string(json.dumps(modules)) + fdp_string(json.dumps(pooling)) +
              fdp_string(json.dumps(dense)) + safetensors(tensors) + bytes([0]))
    heads = {"BertForSequenceClassification": [t("bert.pooler.dense.weight", 4, 4), t("bert.pooler.dense.bias", 4),
                                               t("classifier.weight", 2, 4), t("classifier.bias", 2)],
             "RobertaForSequenceClassification": [t("classifier.dense.weight", 4, 4), t("classifier.dense.bias", 4),
                                                  t("classifier.out_proj.weight", 3, 4),
                                                  t("classifier.out_proj.bias", 3)]}
    for architecture, tensors in heads.items():
        labels = tensors[-1][1][0]
        config = dict(BERT_CONFIG, architectures=[architecture],
                      id2label={str(i): "L%d" % i for i in range(labels)})
        write("model_heads", architecture, fdp_string(json.dumps(config)) + safetensors(tensors) + bytes([1]))


if __name__ == "__main__":
    main()
