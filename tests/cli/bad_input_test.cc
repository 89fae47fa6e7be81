// The bad-input table: every subcommand, fed missing, empty, binary, truncated and malformed files, bad ids,
// bad counts, unwritable outputs and unknown flags, must say `error: ...` on stderr and exit 1 (usage errors:
// exit 2) within a time bound, without crashing and without leaving any file behind. docs/errors.md lists
// the same table with the messages.
//
// Each row runs the real binary (TOKVEC_BINARY). `{dir}` in an argument is the row's scratch folder, which
// holds the fixture files written by SetUpTestSuite; after the row the folder must hold exactly the fixtures.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/npz.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_tokvec_testutil.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunOptions;
using testing::RunResult;
using testing::RunTokvec;

struct BadInput {
  BadInput(std::string name, std::vector<std::string> args, int exit_code, std::string message)
      : name(std::move(name)), args(std::move(args)), exit_code(exit_code), message(std::move(message)) {}
  BadInput Stdin(std::string data) const {
    BadInput row = *this;
    row.stdin_data = std::move(data);
    return row;
  }
  BadInput Env(std::string name, std::string value) const {
    BadInput row = *this;
    row.env_name = std::move(name);
    row.env_value = std::move(value);
    return row;
  }
  BadInput Stdout(std::string path) const {
    BadInput row = *this;
    row.stdout_path = std::move(path);
    return row;
  }

  std::string name;               // Test name suffix.
  std::vector<std::string> args;  // `{dir}` is replaced by the fixture folder.
  int exit_code;                  // 1, or 2 for usage errors.
  std::string message;            // A substring stderr must contain after "error: ".
  std::string stdin_data;         // Standard input.
  std::string stdout_path;        // e.g. "/dev/full"; empty: a pipe.
  double time_limit = 10;         // Seconds.
  std::string env_name, env_value;  // An environment variable set for the run, when env_name is not empty.
};

std::ostream& operator<<(std::ostream& os, const BadInput& row) { return os << row.name; }

void WriteFixture(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string ReadFixture(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Fixture files made with the binary itself (a trained tokenizer, an initialized model).
void RunFixtureCommand(const std::vector<std::string>& args) {
  RunResult r = RunTokvec(args);
  ASSERT_EQ(r.exit_code, 0) << "fixture command failed: " << args[0] << "\n" << r.Describe();
}

// A cross-encoder (tests/attention/testdata/hf_bert_cross), a DistilBERT classifier whose config.json names
// BERT's head, whose tensors it lacks, a ModernBERT reranker with an unknown classifier_pooling and a ModernBERT
// directory without layers.0.mlp.Wi.weight.
void WriteClassifierFixtures(const fs::path& d) {
  const fs::path testdata = fs::path(TOKVEC_SOURCE_DIR) / "tests" / "attention" / "testdata";
  fs::copy(testdata / "hf_bert_cross", d / "cross_model", fs::copy_options::recursive);
  fs::copy(testdata / "hf_distilbert_nli", d / "wrong_head_model", fs::copy_options::recursive);
  std::string config = ReadFixture(d / "wrong_head_model" / "config.json");
  const std::string from = "DistilBertForSequenceClassification";
  config.replace(config.find(from), from.size(), "BertForSequenceClassification");
  WriteFixture(d / "wrong_head_model" / "config.json", config);
  fs::copy(testdata / "hf_modernbert_cross", d / "modernbert_max_pool", fs::copy_options::recursive);
  std::string mb_config = ReadFixture(d / "modernbert_max_pool" / "config.json");
  const std::string mean = "\"classifier_pooling\": \"mean\"";
  mb_config.replace(mb_config.find(mean), mean.size(), "\"classifier_pooling\": \"max\"");
  WriteFixture(d / "modernbert_max_pool" / "config.json", mb_config);
  fs::copy(testdata / "hf_modernbert_f32", d / "modernbert_no_wi", fs::copy_options::recursive);
  std::string weights = ReadFixture(d / "modernbert_no_wi" / "model.safetensors");
  const std::string wi = "layers.0.mlp.Wi.weight";
  weights.replace(weights.find(wi), wi.size(), "layers.0.mlp.Xi.weight");  // same length: the header stays valid
  WriteFixture(d / "modernbert_no_wi" / "model.safetensors", weights);
}

// A sentence-transformers model (tests/attention/testdata/hf_bert_dense) whose second Dense module is a copy of the
// first: it takes 32 values but gets the first one's 24.
void WriteDenseFixtures(const fs::path& d) {
  const fs::path testdata = fs::path(TOKVEC_SOURCE_DIR) / "tests" / "attention" / "testdata";
  fs::copy(testdata / "hf_bert_dense", d / "dense_width_model", fs::copy_options::recursive);
  fs::remove_all(d / "dense_width_model" / "3_Dense");
  fs::copy(d / "dense_width_model" / "2_Dense", d / "dense_width_model" / "3_Dense", fs::copy_options::recursive);
}

// LLaMA / Qwen directories (tests/attention/testdata's random checkpoints) with one thing wrong each: key/value
// heads that do not divide the query heads, rope_scaling set, a qwen3 config over weights without q_norm, a GELU
// feed-forward, Qwen2's sliding windows; and a valid llama directory (fit refuses it).
void WriteDecoderFixtures(const fs::path& d) {
  const fs::path testdata = fs::path(TOKVEC_SOURCE_DIR) / "tests" / "attention" / "testdata";
  auto copy = [&](const std::string& from, const std::string& to, const std::string& key, const std::string& value) {
    fs::create_directories(d / to);
    for (const char* name : {"model.safetensors", "vocab.json", "merges.txt"}) {
      WriteFixture(d / to / name, ReadFixture(testdata / from / name));
    }
    std::string config = ReadFixture(testdata / from / "config.json");
    const size_t at = config.find("\"" + key + "\":");
    ASSERT_NE(at, std::string::npos) << key;
    const size_t end = config.find_first_of(",}", at);
    config.replace(at, end - at, "\"" + key + "\": " + value);
    WriteFixture(d / to / "config.json", config);
  };
  copy("hf_llama_f32", "llama_kv_heads_model", "num_key_value_heads", "3");
  copy("hf_llama_f32", "llama_rope_scaling_model", "rope_scaling", "{\"rope_type\": \"linear\", \"factor\": 2.0}");
  copy("hf_qwen2_f32", "qwen3_no_q_norm_model", "model_type", "\"qwen3\"");
  copy("hf_llama_f32", "llama_gelu_model", "hidden_act", "\"gelu\"");
  copy("hf_qwen2_f32", "qwen2_sliding_window_model", "use_sliding_window", "true");
  copy("hf_llama_f32", "llama_model", "model_type", "\"llama\"");  // unchanged: a valid llama directory
}

// MPNet directories (tests/attention/testdata/hf_mpnet_f32): one whose checkpoint lacks
// encoder.relative_attention_bias.weight (renamed in the header, same length), and a valid one (fit refuses it).
void WriteMpnetFixtures(const fs::path& d) {
  const fs::path testdata = fs::path(TOKVEC_SOURCE_DIR) / "tests" / "attention" / "testdata";
  fs::copy(testdata / "hf_mpnet_f32", d / "mpnet_model", fs::copy_options::recursive);
  fs::copy(testdata / "hf_mpnet_f32", d / "mpnet_no_bias_model", fs::copy_options::recursive);
  std::string weights = ReadFixture(d / "mpnet_no_bias_model" / "model.safetensors");
  const std::string name = "encoder.relative_attention_bias.weight";
  const size_t at = weights.find(name);
  ASSERT_NE(at, std::string::npos);
  weights.replace(at, name.size(), "encoder.relative_attention_bias.wXight");
  WriteFixture(d / "mpnet_no_bias_model" / "model.safetensors", weights);
}

// The fixture folder, shared by every row (rows must not change it).
class BadInputTest : public ::testing::TestWithParam<BadInput> {
 public:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("tokvec_bad_input_" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    const fs::path& d = *dir_;
    // Text inputs.
    WriteFixture(d / "empty.txt", "");
    std::string binary;
    for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 131 + 7) % 256);
    WriteFixture(d / "binary.bin", binary);
    WriteFixture(d / "corpus.txt", "low lower newest widest\nlow lower newest widest\n");
    WriteFixture(d / "bad_utf8.txt", "low lo\xC3\x28wer \xFF\xFE newest\n");
    std::string long_text;
    while (long_text.size() < 8000) long_text += "low lower newest widest ";
    WriteFixture(d / "long.txt", long_text);
    fs::create_directories(d / "subdir");
    // word2vec vector files and questions.
    WriteFixture(d / "good.vec", "2 2\nab 1 2\ncd 3 4\n");
    WriteFixture(d / "truncated.vec", "3 2\nab 1 2\n");
    WriteFixture(d / "nan.vec", "1 2\nab 1 nan\n");
    WriteFixture(d / "huge_dim.vec", "1 99999999\nab 1\n");
    WriteFixture(d / "questions.txt", ": section\nab cd ab\n");
    WriteFixture(d / "new_tokens_bad.txt", "tokvec\n{\"content\": \"<x>\", \"special\": \"yes\"}\n");
    WriteFixture(d / "new_tokens_blank.txt", "\n\n");
    WriteFixture(d / "new_tokens.txt", "tokvec\n");
    // Tokenizers made by the binary itself, then damaged copies.
    RunFixtureCommand({"train", "--type", "word", "--merges", "10", "-o", (d / "word.tokvec").string(),
                       (d / "corpus.txt").string()});
    RunFixtureCommand({"train", "--type", "byte", "--pattern", "gpt2", "--merges", "10", "--special",
                       "<|endoftext|>", "-o", (d / "byte.tokvec").string(), (d / "corpus.txt").string()});
    RunFixtureCommand({"count", "--type", "byte", "-o", (d / "byte_counts.tsv").string(), (d / "corpus.txt").string()});
    RunFixtureCommand({"count", "--type", "byte", "--split-lines", "-o", (d / "byte_line_counts.tsv").string(),
                       (d / "corpus.txt").string()});
    WriteFixture(d / "zero_counts.tsv", "ab\t3\ncd\t0\n");
    WriteFixture(d / "huge_counts.tsv", "ab\t6000000000000000000\ncd\t6000000000000000000\n");
    const std::string word_model = ReadFixture(d / "word.tokvec");
    WriteFixture(d / "truncated.tokvec", word_model.substr(0, word_model.size() / 2));
    WriteFixture(d / "malformed.tokvec", "tokvec-bpe 1\ntype word\nthis line is not a setting\n");
    WriteFixture(d / "empty.tokvec", "");
    WriteFixture(d / "bad.tiktoken", "YQ== 0\n!!!! not-a-rank\n");
    WriteFixture(d / "empty.tiktoken", "");
    fs::create_directories(d / "hf");
    WriteFixture(d / "hf" / "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": [1, 2");
    WriteFixture(d / "hf" / "surrogate.json", R"({"model": {"type": "BPE", "vocab": {"a": 0, "\ud800": 1}, "merges": []}})");
    WriteFixture(d / "hf" / "cut_merges.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b", "a)");
    fs::create_directories(d / "gpt2_no_merges");
    WriteFixture(d / "gpt2_no_merges" / "vocab.json", "{\"a\": 0, \"b\": 1}");
    fs::create_directories(d / "gpt2_bad");
    WriteFixture(d / "gpt2_bad" / "vocab.json", "[\"a\", \"b\"]");
    WriteFixture(d / "gpt2_bad" / "merges.txt", "#version: 0.2\na b\n");
    // WordPiece tokenizer.json files: a good one (tests/data/wordpiece), then one thing broken in each.
    fs::create_directories(d / "wordpiece");
    WriteFixture(d / "wordpiece" / "uncased.json",
                 ReadFixture(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data" / "wordpiece" / "uncased.json"));
    const std::string bert = R"("pre_tokenizer": {"type": "BertPreTokenizer"}, "normalizer": {"type": "BertNormalizer"},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true}, )";
    auto wordpiece = [&](const std::string& name, const std::string& parts, const std::string& model) {
      WriteFixture(d / "wordpiece" / name, "{" + parts + R"("model": {"type": "WordPiece", )" + model + "}}");
    };
    wordpiece("no_vocab_key.json", bert, R"("unk_token": "[UNK]")");
    wordpiece("bad_unk.json", bert, R"("unk_token": "<unk>", "vocab": {"[UNK]": 0, "a": 1})");
    wordpiece("string_id.json", bert, R"("unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": "1"})");
    wordpiece("dup_ids.json", bert, R"("unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "b": 1})");
    // Truncation and padding sections, broken; a WordLevel model without an unk token in its vocabulary.
    WriteFixture(d / "wordpiece" / "bad_truncation.json",
                 "{" + bert + R"("truncation": {"max_length": 8, "strategy": "Shortest", "stride": 0},
                 "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}})");
    WriteFixture(d / "wordpiece" / "bad_padding.json",
                 "{" + bert + R"("padding": {"strategy": "BatchLongest", "direction": "Right", "pad_type_id": 0,
                 "pad_token": "[PAD]"}, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}})");
    WriteFixture(d / "wordpiece" / "only_second.json",
                 "{" + bert + R"("truncation": {"max_length": 2, "strategy": "OnlySecond", "stride": 0},
                 "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}})");
    WriteFixture(d / "wordpiece" / "wordlevel_no_unk.json",
                 "{" + bert + R"("model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {"a": 0, "b": 1}}})");
    wordpiece("bad_decoder.json", R"("pre_tokenizer": {"type": "BertPreTokenizer"}, "decoder": {"type": "Metaspace"}, )",
              R"("unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1})");
    wordpiece("bad_pre_tokenizer.json", R"("pre_tokenizer": {"type": "ByteLevel"}, )",
              R"("unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1})");
    // Byte-level tokenizer.json files with a broken Hugging Face pre-tokenizer (from tests/data/pretok/falcon.json).
    fs::create_directories(d / "pretok");
    const std::string falcon = ReadFixture(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data" / "pretok" / "falcon.json");
    auto pretok = [&](const std::string& name, const std::string& step) {
      const std::string punctuation = R"({"type":"Punctuation","behavior":"Contiguous"})";
      std::string text = falcon;
      text.replace(text.find(punctuation), punctuation.size(), step);
      WriteFixture(d / "pretok" / name, text);
    };
    pretok("unknown_type.json", R"({"type":"Mystery"})");
    pretok("numeric_type.json", R"({"type":5})");  // value("type", "") threw for it (fuzz_hf_tokenizer_json)
    {
      std::string text = falcon;
      const std::string no_dropout = R"("dropout":null)";
      text.replace(text.find(no_dropout), no_dropout.size(), R"("dropout":0.25)");
      WriteFixture(d / "pretok" / "dropout.json", text);
    }
    pretok("bad_behavior.json", R"({"type":"Punctuation","behavior":"Sideways"})");
    pretok("bad_regex.json", R"({"type":"Split","pattern":{"Regex":"(["},"behavior":"Removed","invert":false})");
    // SentencePiece-style BPE files (no ByteLevel pre-tokenizer): one thing broken in each.
    fs::create_directories(d / "spm_bpe");
    WriteFixture(d / "spm_bpe" / "llama.json",
                 ReadFixture(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data" / "spm_bpe" / "llama.json"));
    auto spm_bpe = [&](const std::string& name, const std::string& parts, const std::string& model) {
      WriteFixture(d / "spm_bpe" / name,
                   "{" + parts + R"("pre_tokenizer": null, "model": {"type": "BPE", "byte_fallback": true, )" + model +
                       R"(, "vocab": {"<unk>": 0, "a": 1, "b": 2, "ab": 3}}})");
    };
    spm_bpe("dropout.json", "", R"("dropout": 0.1, "merges": ["a b"])");
    spm_bpe("unknown_merge.json", "", R"("merges": ["a c"])");
    // A post_processor without "type" whose fields are no kind Hugging Face reads untyped (it refuses it too).
    spm_bpe("untyped_post.json", R"("post_processor": {"add_prefix_space": true, "trim_offsets": false}, )",
            R"("merges": ["a b"])");
    spm_bpe("bad_unk.json", "", R"("unk_token": "<UNK>", "merges": [])");
    spm_bpe("suffix.json", "", R"("end_of_word_suffix": 3, "merges": [])");
    WriteFixture(d / "spm_bpe" / "clip.json",
                 ReadFixture(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data" / "affix_bpe" / "clip.json"));
    spm_bpe("prefix.json", "", R"("continuing_subword_prefix": "##", "merges": ["a b"])");
    spm_bpe("bad_bpe_decoder.json", R"("decoder": {"type": "BPEDecoder", "suffix": ""}, )", R"("merges": [])");
    spm_bpe("bad_decoder.json", R"("decoder": {"type": "Strip", "content": "  ", "start": 1, "stop": 0}, )",
            R"("merges": [])");
    spm_bpe("bad_regex.json", R"("normalizer": {"type": "Replace", "pattern": {"Regex": "("}, "content": "x"}, )",
            R"("merges": [])");
    // A char model's pre-tokenizer: a type it cannot run, two Metaspaces.
    auto spm_pretok = [&](const std::string& name, const std::string& pre) {
      WriteFixture(d / "spm_bpe" / name, R"({"pre_tokenizer": )" + pre +
                                             R"(, "model": {"type": "BPE", "merges": [], "vocab": {"<unk>": 0, "a": 1}}})");
    };
    spm_pretok("pretok_fixed.json", R"({"type": "FixedLength", "length": 5})");
    spm_pretok("pretok_two_metaspaces.json", R"({"type": "Sequence", "pretokenizers": [{"type": "Metaspace"}, )"
                                             R"({"type": "Digits"}, {"type": "Metaspace"}]})");
    // Unigram tokenizer.json files: a good one (tests/data/unigram), then one thing broken in each.
    fs::create_directories(d / "unigram");
    WriteFixture(d / "unigram" / "custom-first.json",
                 ReadFixture(fs::path(TOKVEC_SOURCE_DIR) / "tests" / "data" / "unigram" / "custom-first.json"));
    auto unigram = [&](const std::string& name, const std::string& parts, const std::string& model) {
      WriteFixture(d / "unigram" / name, "{" + parts + R"("model": {"type": "Unigram", )" + model + "}}");
    };
    const std::string metaspace = R"("pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581"}, )";
    const std::string vocab = R"("vocab": [["<unk>", 0], ["a", -1.5], ["\u2581", -2]])";
    unigram("bad_base64.json", metaspace + R"("normalizer": {"type": "Precompiled", "precompiled_charsmap": "!!"}, )",
            R"("unk_id": 0, )" + vocab);
    unigram("truncated_charsmap.json",
            metaspace + R"("normalizer": {"type": "Precompiled", "precompiled_charsmap": "EAAAAGFi"}, )",
            R"("unk_id": 0, )" + vocab);
    unigram("bad_vocab_entry.json", metaspace, R"("unk_id": 0, "vocab": [["<unk>", 0], ["a"]])");
    unigram("unk_out_of_range.json", metaspace, R"("unk_id": 3, )" + vocab);
    unigram("no_unk.json", metaspace, R"("unk_id": null, )" + vocab);
    unigram("bad_decoder.json",
            metaspace + R"("decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "sometimes"}, )",
            R"("unk_id": 0, )" + vocab);
    unigram("bad_pre_tokenizer.json",
            R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "ByteLevel"}]}, )",
            R"("unk_id": 0, )" + vocab);
    unigram("prefix_mismatch.json",
            R"("pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": false}, )",
            R"("unk_id": 0, )" + vocab);
    // Added tokens and post-processors (tokenizer/processors/post_processor_json.h), on a small WordPiece file.
    const std::string small_vocab = R"("unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1})";
    wordpiece("added_empty.json", bert + R"("added_tokens": [{"id": 2, "content": ""}], )", small_vocab);
    wordpiece("added_collision.json",
              bert + R"("added_tokens": [{"id": 2, "content": "<x>"}, {"id": 2, "content": "<y>"}], )", small_vocab);
    wordpiece("post_unknown.json", bert + R"("post_processor": {"type": "Foo"}, )", small_vocab);
    wordpiece("post_template_unknown.json", bert + R"("post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "special_tokens": {}}, )", small_vocab);
    // Sentence pairs: the pair template (tokenizer/sequence_encoding.h).
    const std::string cls = R"("special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["a"]}}}, )";
    const std::string single = R"("single": [{"SpecialToken": {"id": "[CLS]"}}, {"Sequence": {"id": "A"}}], )";
    wordpiece("post_pair_unknown.json", bert + R"("post_processor": {"type": "TemplateProcessing", )" + single +
        R"("pair": [{"Sequence": {"id": "A"}}, {"SpecialToken": {"id": "[SEP]"}}, {"Sequence": {"id": "B"}}], )" + cls,
        small_vocab);
    wordpiece("post_pair_type_id.json", bert + R"("post_processor": {"type": "TemplateProcessing", )" + single +
        R"("pair": [{"Sequence": {"id": "A"}}, {"Sequence": {"id": "B", "type_id": "one"}}], )" + cls, small_vocab);
    wordpiece("post_no_pair.json", bert + R"("post_processor": {"type": "TemplateProcessing", )" + single + cls,
              small_vocab);
    // Model directories: a good one, then one with truncated weights and one with a malformed config.json.
    RunFixtureCommand({"init", "--tokenizer", (d / "byte.tokvec").string(), "--arch", "gpt2", "--d-model", "16",
                       "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                       (d / "model").string()});
    // Vector files for search: a float32 index of width 4, queries of width 3, uint8 codes of width 4.
    const std::vector<float> four(8, 0.5f), three(3, 0.25f);
    const std::vector<uint8_t> codes(8, 7);
    WriteFixture(d / "index4.npy", NpyArray("<f4", {2, 4}, AsBytes(four)));
    WriteFixture(d / "queries3.npy", NpyArray("<f4", {1, 3}, AsBytes(three)));
    WriteFixture(d / "queries4.npy", NpyArray("<f4", {2, 4}, AsBytes(four)));
    WriteFixture(d / "codes4.npy", NpyArray("|u1", {2, 4}, AsBytes(codes)));
    WriteFixture(d / "ints4.npy", NpyArray("<i8", {1, 1}, AsBytes(std::vector<int64_t>{4})));
    fs::create_directories(d / "truncated_model");
    fs::create_directories(d / "bad_config_model");
    for (const char* name : {"config.json", "model.safetensors", "tokenizer.tokvec"}) {
      const std::string bytes = ReadFixture(d / "model" / name);
      WriteFixture(d / "truncated_model" / name,
                   std::string(name) == "model.safetensors" ? bytes.substr(0, bytes.size() / 2) : bytes);
      WriteFixture(d / "bad_config_model" / name, std::string(name) == "config.json" ? "{\"model_type\": " : bytes);
    }
    // Position settings config.json cannot hold: an unknown kind, a RoPE base of 1 or less.
    const std::string config = ReadFixture(d / "model" / "config.json");
    const size_t close = config.rfind('}');
    const std::pair<const char*, const char*> position_fixtures[] = {
        {"alibi_model", "\"position_embedding_type\": \"alibi\""},
        {"rope_theta_model", "\"position_embedding_type\": \"rotary\", \"rope_theta\": 0.5"},
        {"unknown_attention_model", "\"attention\": \"sparse:4\""},
        {"causal_linformer_model", "\"attention\": \"linformer:4\""}};
    for (const auto& [folder, extra] : position_fixtures) {
      fs::create_directories(d / folder);
      for (const char* name : {"model.safetensors", "tokenizer.tokvec"}) {
        WriteFixture(d / folder / name, ReadFixture(d / "model" / name));
      }
      WriteFixture(d / folder / "config.json", config.substr(0, close) + ", " + extra + "}\n");
    }
    // sentence-transformers files with wrong fields: a prompt that is no string, a default naming no prompt, a
    // max_seq_length of 0, an include_prompt that is no boolean.
    const std::pair<const char*, std::pair<const char*, const char*>> st_fixtures[] = {
        {"st_prompt_not_string_model", {"config_sentence_transformers.json", R"({"prompts": {"query": 5}})"}},
        {"st_default_unknown_model",
         {"config_sentence_transformers.json", R"({"prompts": {"query": "q: "}, "default_prompt_name": "doc"})"}},
        {"st_zero_length_model", {"sentence_bert_config.json", R"({"max_seq_length": 0})"}},
        {"st_bad_config_model", {"config_sentence_transformers.json", "{\"prompts\": "}}};
    for (const auto& [folder, file] : st_fixtures) {
      fs::create_directories(d / folder);
      for (const char* name : {"config.json", "model.safetensors", "tokenizer.tokvec"}) {
        WriteFixture(d / folder / name, ReadFixture(d / "model" / name));
      }
      WriteFixture(d / folder / file.first, file.second);
    }
    // A GPT-Neo config (training does not run GPT-Neo yet): fit refuses it before reading any tensor.
    const size_t vocab_at = config.find("\"vocab_size\":");
    const std::string vocab_size =
        config.substr(vocab_at + 13, config.find_first_of(",}", vocab_at) - vocab_at - 13);
    fs::create_directories(d / "gpt_neo_model");
    WriteFixture(d / "gpt_neo_model" / "tokenizer.tokvec", ReadFixture(d / "model" / "tokenizer.tokvec"));
    WriteFixture(d / "gpt_neo_model" / "model.safetensors", ReadFixture(d / "model" / "model.safetensors"));
    WriteFixture(d / "gpt_neo_model" / "config.json",
                 "{\"model_type\": \"gpt_neo\", \"hidden_size\": 16, \"num_heads\": 2, \"num_layers\": 1, "
                 "\"max_position_embeddings\": 32, \"vocab_size\": " + vocab_size +
                 ", \"window_size\": 4, \"attention_types\": [[[\"local\"], 1]], \"layer_norm_epsilon\": 1e-05, "
                 "\"activation_function\": \"gelu_new\"}\n");
    WriteBertFixtures(d);
    WriteDecoderFixtures(d);
    WriteMpnetFixtures(d);
    WriteClassifierFixtures(d);
    WriteDenseFixtures(d);
  }
  // BERT directories (copies of tests/attention/testdata/hf_bert_sharded and hf_bert_bf16), each broken one way.
  static void WriteBertFixtures(const fs::path& d) {
    const fs::path sharded = fs::path(TOKVEC_SOURCE_DIR) / "tests/attention/testdata/hf_bert_sharded";
    const fs::path vocab_only = fs::path(TOKVEC_SOURCE_DIR) / "tests/attention/testdata/hf_bert_bf16";
    const std::string first = "model-00001-of-00002.safetensors", second = "model-00002-of-00002.safetensors";
    for (const char* name : {"bert_missing_shard", "bert_two_shards", "bert_index_missing_tensor",
                             "bert_relative_model", "bert_pickle_model"}) {
      fs::copy(sharded, d / name, fs::copy_options::recursive);
    }
    fs::remove(d / "bert_missing_shard" / second);
    fs::copy_file(d / "bert_two_shards" / first, d / "bert_two_shards" / second, fs::copy_options::overwrite_existing);
    const std::string index = ReadFixture(sharded / "model.safetensors.index.json");
    const size_t map_at = index.find("\"weight_map\": {") + 15;
    WriteFixture(d / "bert_index_missing_tensor" / "model.safetensors.index.json",
                 index.substr(0, map_at) + "\"encoder.layer.7.output.dense.bias\": \"" + first + "\", " +
                     index.substr(map_at));
    const std::string config = ReadFixture(sharded / "config.json");
    const size_t close = config.rfind('}');
    WriteFixture(d / "bert_relative_model" / "config.json",
                 config.substr(0, close) + ", \"position_embedding_type\": \"relative_key\"}\n");
    fs::remove(d / "bert_pickle_model" / first);
    fs::remove(d / "bert_pickle_model" / second);
    fs::remove(d / "bert_pickle_model" / "model.safetensors.index.json");
    WriteFixture(d / "bert_pickle_model" / "pytorch_model.bin", std::string("PK\x03\x04", 4) + "torch pickle");
    fs::copy(vocab_only, d / "bert_vocab_twice", fs::copy_options::recursive);
    WriteFixture(d / "bert_vocab_twice" / "vocab.txt", ReadFixture(vocab_only / "vocab.txt") + "[CLS]\n");
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }

 protected:
  static std::set<std::string> Listing() {
    std::set<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(*dir_)) names.insert(entry.path().string());
    return names;
  }
  static fs::path* dir_;
};

fs::path* BadInputTest::dir_ = nullptr;

TEST_P(BadInputTest, SaysErrorAndExitsCleanly) {
  const BadInput& row = GetParam();
  std::vector<std::string> args;
  for (std::string arg : row.args) {
    for (size_t at = arg.find("{dir}"); at != std::string::npos; at = arg.find("{dir}")) {
      arg.replace(at, 5, dir_->string());
    }
    args.push_back(arg);
  }
  const std::set<std::string> before = Listing();
  RunOptions options;
  options.stdin_data = row.stdin_data;
  options.timeout_seconds = row.time_limit + 20;
  if (!row.stdout_path.empty()) options.stdout_path = row.stdout_path;
  if (!row.env_name.empty()) setenv(row.env_name.c_str(), row.env_value.c_str(), 1);  // inherited by the child
  RunResult r = RunTokvec(args, options);
  if (!row.env_name.empty()) unsetenv(row.env_name.c_str());
  std::string command = "tokvec";
  for (const std::string& arg : args) command += " " + arg;
  SCOPED_TRACE(command + "\n" + r.Describe());
  EXPECT_EQ(r.term_signal, 0) << "crashed";
  EXPECT_FALSE(r.timed_out);
  EXPECT_LE(r.seconds, row.time_limit);
  EXPECT_EQ(r.exit_code, row.exit_code);
  EXPECT_THAT(r.err, HasSubstr("error: "));
  EXPECT_THAT(r.err, HasSubstr(row.message));
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << "uncaught exception";
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos);
  EXPECT_EQ(Listing(), before) << "a file was left behind (or removed)";
}

const std::string kOut = "{dir}/out.tokvec";  // Must not exist after any row.

// Command-line usage errors: exit 2.
const BadInput kUsageRows[] = {
    BadInput("NoSubcommand", {}, 2, "A subcommand is required"),
    BadInput("UnknownSubcommand", {"frobnicate"}, 2, "unknown subcommand 'frobnicate'; the subcommands are train"),
    BadInput("UnknownFlag", {"--no-such-flag"}, 2, "unknown option '--no-such-flag'"),
    BadInput("UnknownSubcommandFlag", {"encode", "-m", "{dir}/word.tokvec", "--no-such-flag"}, 2, "--no-such-flag"),
    BadInput("MissingRequiredFlag", {"encode", "{dir}/corpus.txt"}, 2, "--model is required"),
    BadInput("EncodeNoTruncationWithMaxLength",
             {"encode", "-m", "{dir}/wordpiece/uncased.json", "--no-truncation", "--max-length", "8"}, 2,
             "--no-truncation and --max-length contradict"),
    BadInput("EncodeStrideWithoutTruncation", {"encode", "-m", "{dir}/wordpiece/uncased.json", "--stride", "2"}, 2,
             "give --max-length N (this tokenizer has none)"),
    BadInput("EncodePadIdWithoutPadding", {"encode", "-m", "{dir}/wordpiece/uncased.json", "--pad-id", "0"}, 2,
             "give --padding longest|N"),
    BadInput("EncodePaddingNotANumber", {"encode", "-m", "{dir}/wordpiece/uncased.json", "--padding", "lots"}, 2,
             "must be 'longest' or a number of tokens"),
    BadInput("EncodeOverflowingWithoutTruncation",
             {"encode", "-m", "{dir}/wordpiece/uncased.json", "--overflowing"}, 2, "--overflowing writes truncation's"),
    BadInput("TrainSpBpeWithMerges", {"train", "--type", "spbpe", "--merges", "5", "-o", "{dir}/sp.json",
                                      "{dir}/corpus.txt"}, 2, "--type spbpe takes --vocab-size N"),
    BadInput("TrainSpBpeNotJson", {"train", "--type", "spbpe", "--vocab-size", "500", "-o", "{dir}/sp.tokvec",
                                   "{dir}/corpus.txt"}, 2, "-o must end in .json"),
    BadInput("TrainSpBpeWithPattern", {"train", "--type", "spbpe", "--vocab-size", "500", "--pattern", "gpt2", "-o",
                                       "{dir}/sp.json", "{dir}/corpus.txt"}, 2, "do not apply"),
    BadInput("TrainCoverageForByte", {"train", "--type", "byte", "--merges", "5", "--character-coverage", "0.9", "-o",
                                      kOut, "{dir}/corpus.txt"}, 2, "--character-coverage applies to --type spbpe"),
    BadInput("TrainWordPieceWithMerges", {"train", "--type", "wordpiece", "--merges", "5", "-o", "{dir}/wp.json",
                                          "{dir}/corpus.txt"}, 2, "--type wordpiece takes --vocab-size N"),
    BadInput("TrainWordPieceNotJson", {"train", "--type", "wordpiece", "--vocab-size", "500", "-o", "{dir}/wp.tokvec",
                                       "{dir}/corpus.txt"}, 2, "-o must end in .json"),
    BadInput("TrainWordPieceWithPattern", {"train", "--type", "wordpiece", "--vocab-size", "500", "--pattern", "gpt2",
                                           "-o", "{dir}/wp.json", "{dir}/corpus.txt"}, 2, "do not apply"),
    BadInput("TrainCriterionForByte", {"train", "--type", "byte", "--merges", "5", "--criterion", "bpe", "-o", kOut,
                                       "{dir}/corpus.txt"}, 2, "apply to --type wordpiece"),
    BadInput("TrainCasedForSpBpe", {"train", "--type", "spbpe", "--vocab-size", "500", "--cased", "-o",
                                    "{dir}/sp.json", "{dir}/corpus.txt"}, 2, "apply to --type wordpiece"),
    BadInput("TrainWordPieceUnknownCriterion", {"train", "--type", "wordpiece", "--vocab-size", "500", "--criterion",
                                                "frequency", "-o", "{dir}/wp.json", "{dir}/corpus.txt"}, 2,
             "--criterion: frequency not in {likelihood,ratio,bpe}"),
    BadInput("TrainWordPieceVocabTooSmall", {"train", "--type", "wordpiece", "--vocab-size", "20", "-o",
                                             "{dir}/wp.json", "{dir}/corpus.txt"}, 1, "is smaller than the"),
    BadInput("TrainWordPieceSpecialTwice", {"train", "--type", "wordpiece", "--vocab-size", "500", "--special",
                                            "[CLS]", "-o", "{dir}/wp.json", "{dir}/corpus.txt"}, 1,
             "special token '[CLS]' is given twice"),
    BadInput("TrainUnigramWithMerges", {"train", "--type", "unigram", "--merges", "5", "-o", "{dir}/ug.json",
                                        "{dir}/corpus.txt"}, 2, "--type unigram takes --vocab-size N"),
    BadInput("TrainUnigramNotJson", {"train", "--type", "unigram", "--vocab-size", "500", "-o", "{dir}/ug.tokvec",
                                     "{dir}/corpus.txt"}, 2, "-o must end in .json"),
    BadInput("TrainUnigramWithPattern", {"train", "--type", "unigram", "--vocab-size", "500", "--pattern", "gpt2",
                                         "-o", "{dir}/ug.json", "{dir}/corpus.txt"}, 2, "do not apply"),
    BadInput("TrainSeedSizeForByte", {"train", "--type", "byte", "--merges", "5", "--seed-size", "100", "-o", kOut,
                                      "{dir}/corpus.txt"}, 2, "apply to --type unigram"),
    BadInput("TrainUnigramShrinkingFactorOne", {"train", "--type", "unigram", "--vocab-size", "500",
                                                "--shrinking-factor", "1", "-o", "{dir}/ug.json", "{dir}/corpus.txt"},
             2, "--shrinking-factor must be above 0 and below 1, not 1"),
    BadInput("TrainUnigramCased", {"train", "--type", "unigram", "--vocab-size", "500", "--cased", "-o",
                                   "{dir}/ug.json", "{dir}/corpus.txt"}, 2, "apply to --type wordpiece"),
    BadInput("TrainUnigramVocabTooSmall", {"train", "--type", "unigram", "--vocab-size", "4", "-o", "{dir}/ug.json",
                                           "{dir}/corpus.txt"}, 1, "use a larger --vocab-size"),
    BadInput("TrainUnigramSpecialTwice", {"train", "--type", "unigram", "--vocab-size", "500", "--special", "<s>",
                                          "-o", "{dir}/ug.json", "{dir}/corpus.txt"}, 1,
             "special token '<s>' is given twice"),
    BadInput("TrainUserDefinedForWordPiece", {"train", "--type", "wordpiece", "--vocab-size", "500", "--user-defined",
                                              "@-@", "-o", "{dir}/wp.json", "{dir}/corpus.txt"}, 2,
             "--user-defined apply to --type unigram"),
    BadInput("TrainUnigramUserDefinedWithSpace", {"train", "--type", "unigram", "--vocab-size", "500",
                                                  "--user-defined", "a b", "-o", "{dir}/ug.json", "{dir}/corpus.txt"},
             1, "the user-defined symbol 'a b' holds white space"),
    BadInput("TrainUnigramUserDefinedIsSpecial", {"train", "--type", "unigram", "--vocab-size", "500",
                                                  "--user-defined", "</s>", "-o", "{dir}/ug.json", "{dir}/corpus.txt"},
             1, "'</s>' is given twice"),
    BadInput("TrainMaxPieceLengthForWordPiece", {"train", "--type", "wordpiece", "--vocab-size", "500",
                                                 "--max-piece-length", "8", "-o", "{dir}/wp.json", "{dir}/corpus.txt"},
             2, "--max-piece-length applies to --type spbpe and unigram"),
    BadInput("TrainUnigramEmpty", {"train", "--type", "unigram", "--vocab-size", "500", "-o", "{dir}/ug.json",
                                   "{dir}/empty.txt"}, 1, "no text to learn from"),
    BadInput("TrainSplitDigitsForWordPiece", {"train", "--type", "wordpiece", "--vocab-size", "500", "--split-digits",
                                              "-o", "{dir}/wp.json", "{dir}/corpus.txt"}, 2,
             "--split-digits applies to --type spbpe and unigram"),
    BadInput("TrainSpBpeVocabTooSmall", {"train", "--type", "spbpe", "--vocab-size", "100", "-o", "{dir}/sp.json",
                                         "{dir}/corpus.txt"}, 1, "is smaller than the"),
    BadInput("TrainSpBpeEmpty", {"train", "--type", "spbpe", "--vocab-size", "500", "-o", "{dir}/sp.json",
                                 "{dir}/empty.txt"}, 1, "no text to learn from"),
    BadInput("TrainNoTarget", {"train", "--type", "word", "-o", kOut, "{dir}/corpus.txt"}, 2,
             "exactly one of --merges N and --vocab-size N"),
    BadInput("TrainBothTargets", {"train", "--merges", "5", "--vocab-size", "50", "-o", kOut, "{dir}/corpus.txt"}, 2,
             "excludes"),
    BadInput("TrainNegativeMerges", {"train", "--merges", "-5", "-o", kOut, "{dir}/corpus.txt"}, 2, "'-5'"),
    BadInput("TrainZeroMerges", {"train", "--merges", "0", "-o", kOut, "{dir}/corpus.txt"}, 2, "at least 1"),
    BadInput("TrainNonNumericMerges", {"train", "--merges", "ten", "-o", kOut, "{dir}/corpus.txt"}, 2, "ten"),
    BadInput("TrainZeroVocabSize", {"train", "--vocab-size", "0", "-o", kOut, "{dir}/corpus.txt"}, 2, "at least 1"),
    BadInput("TrainNegativeMinFrequency",
             {"train", "--merges", "5", "--min-frequency", "-1", "-o", kOut, "{dir}/corpus.txt"}, 2, "'-1'"),
    BadInput("TrainNegativeThreads", {"train", "--merges", "5", "--threads", "-2", "-o", kOut, "{dir}/corpus.txt"},
             2, "'-2'"),
    BadInput("TrainUnknownType", {"train", "--type", "bogus", "--merges", "5", "-o", kOut, "{dir}/corpus.txt"}, 2,
             "bogus"),
    BadInput("TrainNoOutput", {"train", "--merges", "5", "{dir}/corpus.txt"}, 2, "--output"),
    BadInput("EncodeUnknownFormat", {"encode", "-m", "{dir}/word.tokvec", "--format", "bogus", "{dir}/corpus.txt"}, 2,
             "bogus"),
    BadInput("EncodeZeroThreads", {"encode", "-m", "{dir}/word.tokvec", "--lines", "--threads", "0",
                                   "{dir}/corpus.txt"}, 2, "--threads"),
    BadInput("EncodeNegativeThreads", {"encode", "-m", "{dir}/word.tokvec", "--lines", "--threads", "-1",
                                       "{dir}/corpus.txt"}, 2, "--threads"),
    BadInput("DecodeNoModel", {"decode", "{dir}/corpus.txt"}, 2, "--model"),
    BadInput("InitUnknownArch", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "bogus", "--d-model", "16",
                                 "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                 "{dir}/new_model"}, 2, "bogus"),
    BadInput("InitZeroWidth", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "gpt2", "--d-model", "0",
                               "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                               "{dir}/new_model"}, 2, "--d-model"),
    BadInput("InitNegativeLayers", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "gpt2", "--d-model", "16",
                                    "--heads", "2", "--layers", "-1", "--max-len", "32", "--seed", "1", "-o",
                                    "{dir}/new_model"}, 2, "--layers"),
    BadInput("EmbedZeroWindow", {"embed", "-m", "{dir}/model", "--window", "0", "{dir}/corpus.txt"}, 2, "--window"),
    BadInput("EmbedZeroThreads", {"embed", "-m", "{dir}/model", "--threads", "0", "{dir}/corpus.txt"}, 2,
             "--threads"),
    BadInput("ConvertUnknownTarget", {"convert", "-m", "{dir}/byte.tokvec", "--to", "bogus", "-o", "{dir}/converted"},
             2, "--to must be json, tiktoken or both, got 'bogus'"),
    BadInput("AttendZeroThreads", {"attend", "-m", "{dir}/model", "--threads", "0", "{dir}/corpus.txt"}, 2,
             "--threads"),
    BadInput("ServeNoModel", {"serve", "--port", "0"}, 2, "--model is required"),
    BadInput("ServeIndexOfAnotherWidth", {"serve", "-m", "{dir}/model", "--port", "0", "--index", "{dir}/index4.npy"},
             1, "fits no served model's vectors: the queries have 16 dimensions, the float32 index 4"),
    BadInput("ServeUnknownPromptName", {"serve", "-m", "{dir}/model", "--port", "0", "--prompt-name", "query"}, 1,
             "unknown prompt name 'query'"),
    BadInput("ServeUnknownMetric", {"serve", "-m", "{dir}/model", "--port", "0", "--metric", "l2"}, 2, "--metric"),
    BadInput("ServeBadPort", {"serve", "-m", "{dir}/model", "--port", "70000"}, 2, "--port"),
    BadInput("ServeZeroThreads", {"serve", "-m", "{dir}/model", "--threads", "0"}, 2, "--threads"),
    BadInput("ServeZeroBatchTokens", {"serve", "-m", "{dir}/model", "--max-batch-tokens", "0"}, 2,
             "--max-batch-tokens"),
    BadInput("ServeNegativeInputTokens", {"serve", "-m", "{dir}/model", "--max-input-tokens", "-1"}, 2,
             "--max-input-tokens must be 0 (the model's maximum) or more, not -1"),
    BadInput("ServeBadPooling", {"serve", "-m", "{dir}/model", "--pooling", "median"}, 2, "median not in"),
    BadInput("ServeUnknownDtype", {"serve", "-m", "{dir}/model", "--port", "0", "--dtype", "fp8"}, 2,
             "--dtype: fp8 not in {f32,bf16,int8}"),
    BadInput("ServeDtypeUnsupportedCpu", {"serve", "-m", "{dir}/model", "--port", "0", "--dtype", "int8"}, 1,
             "--dtype int8 needs a CPU with AVX-512 VNNI (avx512vnni)")
        .Env("TOKVEC_DISABLE_CPU_FEATURES", "avx512vnni"),
    BadInput("BenchGemmBadShape", {"bench", "gemm", "--shapes", "768x"}, 2,
             "bad --shapes entry '768x'; expected INxOUT"),
    BadInput("BenchGemmZeroRows", {"bench", "gemm", "--rows", "0"}, 2, "every --rows value must be in 1..16384"),
    BadInput("BenchGemmHugeShape", {"bench", "gemm", "--shapes", "100000x100000"}, 2,
             "bad --shapes entry '100000x100000'; expected INxOUT, each 1..16384"),
};

// Bad data: exit 1, naming what is wrong.
const BadInput kDataRows[] = {
    // count, train --from-counts
    BadInput("CountNoOutput", {"count", "{dir}/corpus.txt"}, 2, "--output"),
    BadInput("CountMergeNoFiles", {"count", "--merge", "-o", kOut}, 2, "--merge needs the count files"),
    BadInput("CountMergeWithType", {"count", "--merge", "--type", "byte", "-o", kOut, "{dir}/byte_counts.tsv"}, 2,
             "excludes"),
    BadInput("CountPatternOnWord", {"count", "--pattern", "gpt2", "-o", kOut, "{dir}/corpus.txt"}, 2, "--pattern"),
    BadInput("CountMissingCorpus", {"count", "-o", kOut, "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("CountMergeZeroCount", {"count", "--merge", "-o", kOut, "{dir}/zero_counts.tsv"}, 1,
             "line 2: a count of 0"),
    BadInput("TrainFromCountsOfText", {"train", "--from-counts", "--merges", "5", "-o", kOut, "{dir}/corpus.txt"}, 1,
             "must be the header"),
    BadInput("TrainFromCountsOtherPattern", {"train", "--from-counts", "--type", "byte", "--pattern", "cl100k",
                                             "--merges", "5", "-o", kOut, "{dir}/byte_counts.tsv"},
             1, "were counted with type=byte pre_tokenizer=gpt2"),
    BadInput("TrainFromLineCountsWithoutSplitLines", {"train", "--from-counts", "--type", "byte", "--merges", "5",
                                                      "-o", kOut, "{dir}/byte_line_counts.tsv"},
             1, "normalizer=none split=lines, but this training cuts pieces with type=byte pre_tokenizer=gpt2 "
                "normalizer=none;"),
    BadInput("TrainWordFromByteCounts", {"train", "--from-counts", "--type", "word", "--merges", "5", "-o", kOut,
                                         "{dir}/byte_counts.tsv"},
             1, "a word model's piece"),
    BadInput("TrainFromCountsPastPairRange", {"train", "--from-counts", "--type", "word", "--merges", "5", "-o", kOut,
                                              "{dir}/huge_counts.tsv"},
             1, "more than 2^63 - 1 adjacent pairs"),
    // train
    BadInput("TrainMissingCorpus", {"train", "--merges", "5", "-o", kOut, "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("TrainCorpusIsDirectory", {"train", "--merges", "5", "-o", kOut, "{dir}/subdir"}, 1, "subdir"),
    BadInput("TrainEmptyCorpus", {"train", "--type", "byte", "--merges", "5", "-o", kOut, "{dir}/empty.txt",
                                  "{dir}/empty.txt"},
             1, "empty.txt' are empty; give files that hold text"),
    BadInput("TrainWordInvalidUtf8", {"train", "--type", "word", "--merges", "5", "-o", kOut, "{dir}/bad_utf8.txt"},
             1, "invalid UTF-8 at byte offset 6"),
    BadInput("TrainWordBinary", {"train", "--type", "word", "--merges", "5", "-o", kOut, "{dir}/binary.bin"}, 1,
             "invalid UTF-8"),
    BadInput("TrainWordInvalidUtf8Stdin", {"train", "--type", "word", "--merges", "5", "-o", kOut, "-"}, 1,
             "invalid UTF-8")
        .Stdin("caf\xE9 au lait\n"),
    BadInput("TrainWordVocabBelowAlphabet",
             {"train", "--type", "word", "--vocab-size", "3", "-o", kOut, "{dir}/corpus.txt"}, 1,
             "vocabulary size 3 is smaller than"),
    BadInput("TrainByteVocabBelowAlphabet",
             {"train", "--type", "byte", "--vocab-size", "100", "-o", kOut, "{dir}/corpus.txt"}, 1,
             "vocabulary size 100 is smaller than the 256"),
    BadInput("TrainBadPattern", {"train", "--type", "byte", "--pattern", "(", "--merges", "5", "-o", kOut,
                                 "{dir}/corpus.txt"}, 1, "not a valid ICU regex"),
    BadInput("TrainUnknownNormalizer", {"train", "--normalize", "bogus", "--merges", "5", "-o", kOut,
                                        "{dir}/corpus.txt"}, 1, "bogus"),
    BadInput("TrainOutputUnderAFile", {"train", "--merges", "5", "-o", "{dir}/corpus.txt/out.tokvec",
                                       "{dir}/corpus.txt"}, 1, "Not a directory"),
    BadInput("TrainOutputInMissingFolder", {"train", "--merges", "5", "-o", "{dir}/no_such_folder/out.tokvec",
                                            "{dir}/corpus.txt"}, 1, "no_such_folder"),
    BadInput("TrainOutputIsDirectory", {"train", "--merges", "5", "-o", "{dir}/subdir", "{dir}/corpus.txt"}, 1,
             "directory"),
    BadInput("TrainOutputDevFull", {"train", "--merges", "5", "-o", "/dev/full", "{dir}/corpus.txt"}, 1,
             "No space left on device"),
    // encode: every kind of broken tokenizer file, then broken text
    BadInput("EncodeMissingModel", {"encode", "-m", "{dir}/missing.tokvec", "{dir}/corpus.txt"}, 1,
             "missing.tokvec"),
    BadInput("EncodeEmptyModel", {"encode", "-m", "{dir}/empty.tokvec", "{dir}/corpus.txt"}, 1, "empty"),
    BadInput("EncodeBinaryModel", {"encode", "-m", "{dir}/binary.bin", "{dir}/corpus.txt"}, 1,
             "cannot tell the format"),
    BadInput("EncodeTruncatedModel", {"encode", "-m", "{dir}/truncated.tokvec", "{dir}/corpus.txt"}, 1,
             "truncated.tokvec line"),
    BadInput("EncodeMalformedModel", {"encode", "-m", "{dir}/malformed.tokvec", "{dir}/corpus.txt"}, 1,
             "malformed.tokvec line 3"),
    BadInput("EncodeModelFolderWithoutTokenizer", {"encode", "-m", "{dir}/subdir", "{dir}/corpus.txt"}, 1,
             "holds no tokenizer"),
    BadInput("EncodeMalformedTiktoken", {"encode", "-m", "{dir}/bad.tiktoken", "{dir}/corpus.txt"}, 1,
             "bad.tiktoken"),
    BadInput("EncodeEmptyTiktoken", {"encode", "-m", "{dir}/empty.tiktoken", "{dir}/corpus.txt"}, 1, "empty"),
    BadInput("EncodeTruncatedTokenizerJson", {"encode", "-m", "{dir}/hf/tokenizer.json", "{dir}/corpus.txt"}, 1,
             "tokenizer.json"),
    BadInput("EncodeTokenizerJsonLoneSurrogate", {"encode", "-m", "{dir}/hf/surrogate.json", "{dir}/corpus.txt"}, 1,
             "(key 'model.vocab': byte 45: \\uD800 is a high surrogate without a low surrogate"),
    BadInput("EncodeTokenizerJsonCutInMerges", {"encode", "-m", "{dir}/hf/cut_merges.json", "{dir}/corpus.txt"}, 1,
             "(key 'model.merges[1]': byte 65: the text ends inside a string (truncated?))"),
    BadInput("EncodeVocabJsonWithoutMerges", {"encode", "-m", "{dir}/gpt2_no_merges/vocab.json",
                                              "{dir}/corpus.txt"}, 1, "merges.txt"),
    BadInput("EncodeMalformedVocabJson", {"encode", "-m", "{dir}/gpt2_bad/vocab.json", "{dir}/corpus.txt"}, 1,
             "vocab.json"),
    BadInput("EncodeWordPieceWithoutVocab", {"encode", "-m", "{dir}/wordpiece/no_vocab_key.json", "{dir}/corpus.txt"},
             1, "key 'model.vocab': missing or not an object"),
    BadInput("EncodeWordPieceUnkNotInVocab", {"encode", "-m", "{dir}/wordpiece/bad_unk.json", "{dir}/corpus.txt"}, 1,
             "the unk token '<unk>' is not in the vocabulary"),
    BadInput("EncodeWordPieceStringId", {"encode", "-m", "{dir}/wordpiece/string_id.json", "{dir}/corpus.txt"}, 1,
             "key 'model.vocab.a': the id must be a non-negative integer"),
    BadInput("EncodeWordPieceDuplicateIds", {"encode", "-m", "{dir}/wordpiece/dup_ids.json", "{dir}/corpus.txt"}, 1,
             "id 1 is given to two tokens, 'a' and 'b'"),
    BadInput("EncodeWordPieceOtherDecoder", {"encode", "-m", "{dir}/wordpiece/bad_decoder.json", "{dir}/corpus.txt"},
             1, "is not supported with WordPiece (supported: WordPiece, null)"),
    BadInput("EncodeWordPieceOtherPreTokenizer",
             {"encode", "-m", "{dir}/wordpiece/bad_pre_tokenizer.json", "{dir}/corpus.txt"}, 1,
             "key 'pre_tokenizer.type': pre-tokenizer 'ByteLevel' is not supported with WordPiece (supported: null, "
             "Metaspace, Split"),
    BadInput("EncodeAddedTokenEmpty", {"encode", "-m", "{dir}/wordpiece/added_empty.json", "{dir}/corpus.txt"}, 1,
             "key 'added_tokens[0]': expected {\"id\": N, \"content\": \"...\"}"),
    BadInput("EncodeAddedTokenIdCollision",
             {"encode", "-m", "{dir}/wordpiece/added_collision.json", "{dir}/corpus.txt"}, 1,
             "key 'added_tokens[1].id': id 2 is given to both '<x>' and '<y>'"),
    BadInput("EncodePostProcessorUnknown", {"encode", "-m", "{dir}/wordpiece/post_unknown.json", "{dir}/corpus.txt"},
             1, "key 'post_processor.type': post-processor 'Foo' is not supported"),
    BadInput("EncodePostProcessorTemplateUnknownToken",
             {"encode", "-m", "{dir}/wordpiece/post_template_unknown.json", "{dir}/corpus.txt"}, 1,
             "'[CLS]' is not in the post-processor's special_tokens"),
    BadInput("EncodePairTemplateUnknownToken",
             {"encode", "-m", "{dir}/wordpiece/post_pair_unknown.json", "{dir}/corpus.txt"}, 1,
             "key 'post_processor.pair[1].SpecialToken.id': '[SEP]' is not in the post-processor's special_tokens"),
    BadInput("EncodePairTemplateBadTypeId",
             {"encode", "-m", "{dir}/wordpiece/post_pair_type_id.json", "{dir}/corpus.txt"}, 1,
             "key 'post_processor.pair[1].Sequence.type_id': expected a whole number, got \"one\""),
    BadInput("EncodePairsWithoutPairTemplate",
             {"encode", "-m", "{dir}/wordpiece/post_no_pair.json", "--pairs", "--add-special-tokens"}, 1,
             "line 1: the post-processor 'TemplateProcessing' has no pair template")
        .Stdin("a\ta\n"),
    BadInput("EncodePairsLineWithoutTab", {"encode", "-m", "{dir}/wordpiece/uncased.json", "--pairs"}, 1,
             "line 2: --pairs expects text A, a tab, text B; the line has no tab")
        .Stdin("a\tb\nno tab here\n"),
    BadInput("EncodePairsLineWithTwoTabs", {"encode", "-m", "{dir}/wordpiece/uncased.json", "--pairs"}, 1,
             "line 1: --pairs expects text A, a tab, text B; the line has more than one tab")
        .Stdin("a\tb\tlabel\n"),
    // Truncation and padding (tokenizer/processors/length_json.h, tokenizer/sequence_encoding.h).
    BadInput("EncodeBadTruncationStrategy", {"encode", "-m", "{dir}/wordpiece/bad_truncation.json"}, 1,
             "key 'truncation.strategy': expected \"LongestFirst\", \"OnlyFirst\" or \"OnlySecond\", got \"Shortest\"")
        .Stdin("a\n"),
    BadInput("EncodePaddingWithoutPadId", {"encode", "-m", "{dir}/wordpiece/bad_padding.json"}, 1,
             "key 'padding.pad_id': missing")
        .Stdin("a\n"),
    BadInput("EncodeOnlySecondOnASingleText", {"encode", "-m", "{dir}/wordpiece/only_second.json", "--lines"}, 1,
             "line 1: truncation OnlySecond needs a second text (a sentence pair)")
        .Stdin("a a a a\n"),
    BadInput("EncodeStrideNotBelowTheBudget",
             {"encode", "-m", "{dir}/wordpiece/uncased.json", "--lines", "--add-special-tokens", "--max-length", "4",
              "--stride", "2"},
             1, "line 1: the truncation stride (2) must be less than the length it cuts to (2;")
        .Stdin("a b c d e f\n"),
    BadInput("EncodeMaxLengthBelowTheAddedTokens",
             {"encode", "-m", "{dir}/wordpiece/uncased.json", "--add-special-tokens", "--max-length", "1"}, 1,
             "truncation max_length 1 is less than the 2 tokens the post-processor adds")
        .Stdin("a b\n"),
    BadInput("EncodePadIdOutsideTheVocabulary",
             {"encode", "-m", "{dir}/wordpiece/uncased.json", "--padding", "8", "--pad-id", "99999999"}, 1,
             "--pad-id 99999999 is not an id of this tokenizer")
        .Stdin("a\n"),
    BadInput("EncodeWordLevelWordWithoutUnk", {"encode", "-m", "{dir}/wordpiece/wordlevel_no_unk.json", "--lines"}, 1,
             "line 2: byte 2: the word 'c' is not in the WordLevel vocabulary, and neither is its unk_token '<unk>'")
        .Stdin("a b\na c\n"),
    BadInput("DecodeSkipSpecialOutOfRange", {"decode", "-m", "{dir}/wordpiece/uncased.json", "--skip-special"}, 1,
             "id 999999 (position 2, byte offset 2) is outside the vocabulary")
        .Stdin("2 999999"),
    BadInput("EncodeWordPieceInvalidUtf8", {"encode", "-m", "{dir}/wordpiece/uncased.json", "{dir}/bad_utf8.txt"}, 1,
             "invalid UTF-8 at byte offset 6 (byte 0xC3); WordPiece models need UTF-8 text"),
    BadInput("EncodePreTokenizerUnknownType", {"encode", "-m", "{dir}/pretok/unknown_type.json", "{dir}/corpus.txt"},
             1, "key 'pre_tokenizer.pretokenizers[0].type': pre-tokenizer 'Mystery' is not supported for byte-level BPE"),
    BadInput("EncodePreTokenizerNumericType", {"encode", "-m", "{dir}/pretok/numeric_type.json", "{dir}/corpus.txt"},
             1, "key 'pre_tokenizer.pretokenizers[0]"),
    BadInput("EncodePreTokenizerBadBehavior", {"encode", "-m", "{dir}/pretok/bad_behavior.json", "{dir}/corpus.txt"},
             1, "key 'pre_tokenizer.pretokenizers[0].behavior': expected one of Removed, Isolated, MergedWithPrevious"),
    BadInput("EncodePreTokenizerBadRegex", {"encode", "-m", "{dir}/pretok/bad_regex.json", "{dir}/corpus.txt"}, 1,
             "key 'pre_tokenizer.pretokenizers[0].pattern': split pattern '([' is not a valid ICU regex"),
    BadInput("InspectWordPieceMerges", {"inspect", "--merges", "{dir}/wordpiece/uncased.json"}, 1,
             "is a WordPiece model: it has a vocabulary and no merges"),
    BadInput("EncodeByteLevelDropout", {"encode", "-m", "{dir}/pretok/dropout.json", "{dir}/corpus.txt"}, 1,
             "key 'model.dropout': BPE dropout (0.25) is random at encode time and not supported; set it to null"),
    BadInput("EncodeSpmBpeDropout", {"encode", "-m", "{dir}/spm_bpe/dropout.json", "{dir}/corpus.txt"}, 1,
             "key 'model.dropout': BPE dropout (0.1) is random at encode time and not supported; set it to null"),
    BadInput("EncodeUntypedPostProcessorOfNoKind", {"encode", "-m", "{dir}/spm_bpe/untyped_post.json",
                                                    "{dir}/corpus.txt"},
             1, "key 'post_processor': expected null or an object with a \"type\" (or, without one, the fields of "
                "RobertaProcessing, BertProcessing or TemplateProcessing)"),
    BadInput("EncodeSpmBpeMergeOfUnknownToken", {"encode", "-m", "{dir}/spm_bpe/unknown_merge.json", "{dir}/corpus.txt"},
             1, "key 'model.merges[0]': merge 'a c' names token 'c', which is not in the vocabulary"),
    BadInput("EncodeSpmBpeUnkNotInVocab", {"encode", "-m", "{dir}/spm_bpe/bad_unk.json", "{dir}/corpus.txt"}, 1,
             "key 'model.unk_token': '<UNK>' is not in the vocabulary"),
    BadInput("EncodeSpmBpeEndOfWordSuffixNotAString", {"encode", "-m", "{dir}/spm_bpe/suffix.json", "{dir}/corpus.txt"},
             1, "key 'model.end_of_word_suffix': expected a string or null"),
    BadInput("EncodeBpeMergeWithoutContinuingPrefix", {"encode", "-m", "{dir}/spm_bpe/prefix.json", "{dir}/corpus.txt"},
             1, "key 'model.merges[0]': the right side 'b' does not begin with continuing_subword_prefix '##'"),
    BadInput("ConvertAffixBpe", {"convert", "-m", "{dir}/spm_bpe/clip.json", "-o", "{dir}/spm_bpe/out.json"}, 1,
             "cannot write tokenizer.json: a model with continuing_subword_prefix or end_of_word_suffix cannot be "
             "written (not supported yet)"),
    BadInput("DecodeBpeDecoderEmptySuffix", {"decode", "-m", "{dir}/spm_bpe/bad_bpe_decoder.json", "{dir}/corpus.txt"},
             1, "key 'decoder.suffix': expected a non-empty string"),
    BadInput("DecodeSpmBpeBadStripDecoder", {"decode", "-m", "{dir}/spm_bpe/bad_decoder.json", "{dir}/corpus.txt"}, 1,
             "key 'decoder.content': expected one character, got '  '"),
    BadInput("EncodeSpmBpeBadReplaceRegex", {"encode", "-m", "{dir}/spm_bpe/bad_regex.json", "{dir}/corpus.txt"}, 1,
             "key 'normalizer.pattern': regex '(' does not compile"),
    BadInput("EncodeSpmBpeUnsupportedPreTokenizer", {"encode", "-m", "{dir}/spm_bpe/pretok_fixed.json", "{dir}/corpus.txt"},
             1, "key 'pre_tokenizer.type': pre-tokenizer 'FixedLength' is not supported with a BPE model over code points"),
    BadInput("EncodeSpmBpeTwoMetaspaces",
             {"encode", "-m", "{dir}/spm_bpe/pretok_two_metaspaces.json", "{dir}/corpus.txt"}, 1,
             "key 'pre_tokenizer.pretokenizers[2]': a second Metaspace is not supported"),
    BadInput("EncodeSpmBpeInvalidUtf8", {"encode", "-m", "{dir}/spm_bpe/llama.json", "{dir}/bad_utf8.txt"}, 1,
             "invalid UTF-8 at byte offset 6 (byte 0xC3); char models need UTF-8 text"),
    BadInput("ConvertWordPieceToTiktoken", {"convert", "-m", "{dir}/wordpiece/uncased.json", "--to", "tiktoken",
                                            "-o", "{dir}/converted"}, 1, "this is a wordpiece model"),
    BadInput("EncodeUnigramBadBase64", {"encode", "-m", "{dir}/unigram/bad_base64.json", "{dir}/corpus.txt"}, 1,
             "key 'normalizer.precompiled_charsmap': precompiled_charsmap is not valid base64"),
    BadInput("EncodeUnigramTruncatedCharsmap",
             {"encode", "-m", "{dir}/unigram/truncated_charsmap.json", "{dir}/corpus.txt"}, 1,
             "trie size 16 is not a positive multiple of 4 within the 2 bytes that follow (truncated?)"),
    BadInput("EncodeUnigramBadVocabEntry", {"encode", "-m", "{dir}/unigram/bad_vocab_entry.json", "{dir}/corpus.txt"},
             1, "key 'model.vocab[1]': expected a [\"piece\", score] pair"),
    BadInput("EncodeUnigramUnkOutOfRange",
             {"encode", "-m", "{dir}/unigram/unk_out_of_range.json", "{dir}/corpus.txt"}, 1,
             "key 'model.unk_id': expected null or an id below the 3 vocabulary pieces, got 3"),
    BadInput("EncodeUnigramUnknownWithoutUnk", {"encode", "-m", "{dir}/unigram/no_unk.json", "{dir}/corpus.txt"}, 1,
             "is not in the Unigram vocabulary and the model has no unk token"),
    BadInput("EncodeUnigramUnsupportedPreTokenizer",
             {"encode", "-m", "{dir}/unigram/bad_pre_tokenizer.json", "{dir}/corpus.txt"}, 1,
             "key 'pre_tokenizer.pretokenizers[1].type': pre-tokenizer 'ByteLevel' is not supported with Unigram"),
    BadInput("EncodeUnigramPrefixMismatch", {"encode", "-m", "{dir}/unigram/prefix_mismatch.json", "{dir}/corpus.txt"},
             1, "key 'pre_tokenizer.add_prefix_space': false does not match prepend_scheme"),
    BadInput("DecodeUnigramBadDecoder", {"decode", "-m", "{dir}/unigram/bad_decoder.json", "{dir}/corpus.txt"}, 1,
             "key 'decoder.prepend_scheme': expected \"always\", \"first\" or \"never\""),
    BadInput("EncodeUnigramInvalidUtf8", {"encode", "-m", "{dir}/unigram/custom-first.json", "{dir}/bad_utf8.txt"}, 1,
             "invalid UTF-8 at byte offset 6 (byte 0xC3); Unigram models need UTF-8 text"),
    BadInput("InspectUnigramMerges", {"inspect", "--merges", "{dir}/unigram/custom-first.json"}, 1,
             "is a Unigram model: it has a vocabulary and no merges"),
    BadInput("ConvertUnigramToTiktoken", {"convert", "-m", "{dir}/unigram/custom-first.json", "--to", "tiktoken",
                                          "-o", "{dir}/converted"}, 1, "this is a unigram model"),
    BadInput("EncodeMissingInput", {"encode", "-m", "{dir}/word.tokvec", "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("EncodeWordInvalidUtf8", {"encode", "-m", "{dir}/word.tokvec", "{dir}/bad_utf8.txt"}, 1,
             "invalid UTF-8 at byte offset 6"),
    BadInput("EncodeWordInvalidUtf8Lines", {"encode", "-m", "{dir}/word.tokvec", "--lines", "{dir}/bad_utf8.txt"},
             1, "line 1"),
    BadInput("EncodeWordBinary", {"encode", "-m", "{dir}/word.tokvec", "{dir}/binary.bin"}, 1, "invalid UTF-8"),
    BadInput("EncodeWordInvalidUtf8Stdin", {"encode", "-m", "{dir}/word.tokvec"}, 1, "invalid UTF-8")
        .Stdin("ok \xC0\xAF overlong\n"),
    BadInput("EncodeUnknownSpecial", {"encode", "-m", "{dir}/byte.tokvec", "--allow-special=<|nope|>",
                                      "{dir}/corpus.txt"}, 1, "'<|nope|>' is not a special token"),
    BadInput("EncodeToDevFull", {"encode", "-m", "{dir}/word.tokvec", "{dir}/corpus.txt"}, 1,
             "No space left on device")
        .Stdout("/dev/full"),
    BadInput("EncodeLinesToDevFull", {"encode", "-m", "{dir}/byte.tokvec", "--lines", "{dir}/long.txt"}, 1,
             "No space left on device")
        .Stdout("/dev/full"),
    // decode
    BadInput("DecodeIdOutOfRange", {"decode", "-m", "{dir}/word.tokvec"}, 1, "id 99999").Stdin("1 2 99999\n"),
    BadInput("DecodeHugeId", {"decode", "-m", "{dir}/byte.tokvec"}, 1, "99999999999999999999")
        .Stdin("1 99999999999999999999\n"),
    BadInput("DecodeNegativeId", {"decode", "-m", "{dir}/word.tokvec"}, 1, "'-1'").Stdin("3 -1\n"),
    BadInput("DecodeNonNumericId", {"decode", "-m", "{dir}/word.tokvec"}, 1, "'x'").Stdin("1 x 2\n"),
    BadInput("DecodeCommaSeparated", {"decode", "-m", "{dir}/word.tokvec"}, 1, "'1,2'").Stdin("1,2\n"),
    BadInput("DecodeBinaryInput", {"decode", "-m", "{dir}/word.tokvec", "{dir}/binary.bin"}, 1, "not a token id"),
    BadInput("DecodeMissingInput", {"decode", "-m", "{dir}/word.tokvec", "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("DecodeMalformedModel", {"decode", "-m", "{dir}/malformed.tokvec"}, 1, "malformed.tokvec")
        .Stdin("1\n"),
    BadInput("DecodeToDevFull", {"decode", "-m", "{dir}/word.tokvec"}, 1, "No space left on device")
        .Stdin("2 3 4\n")
        .Stdout("/dev/full"),
    // inspect
    BadInput("InspectMissing", {"inspect", "{dir}/missing.tokvec"}, 1, "missing.tokvec"),
    BadInput("InspectEmpty", {"inspect", "{dir}/empty.tokvec"}, 1, "empty"),
    BadInput("InspectBinary", {"inspect", "{dir}/binary.bin"}, 1, "cannot tell the format"),
    BadInput("InspectTruncated", {"inspect", "{dir}/truncated.tokvec"}, 1, "truncated.tokvec"),
    BadInput("InspectToDevFull", {"inspect", "{dir}/word.tokvec", "--merges"}, 1, "No space left on device")
        .Stdout("/dev/full"),
    // convert
    // extend
    BadInput("ExtendOutputFormat", {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens.txt", "-o",
                                    "{dir}/extended.txt"}, 2, "-o must end in .json"),
    BadInput("ExtendBadTokenLine", {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens_bad.txt",
                                    "-o", "{dir}/extended.json"}, 1, "new_tokens_bad.txt:2: key 'special' must be true"),
    BadInput("ExtendNoTokens", {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens_blank.txt",
                                "-o", "{dir}/extended.json"}, 1, "lists no tokens"),
    BadInput("ExtendNormalizedFlag", {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens.txt",
                                      "--normalized", "maybe", "-o", "{dir}/extended.json"}, 2,
             "--normalized must be true or false"),
    BadInput("ExtendTokvecFileWithOrdinaryAddedTokens",
             {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens.txt", "-o", "{dir}/extended.tokvec"},
             1, "(write OUT.json instead)"),
    BadInput("ExtendTokensAndMerges", {"extend", "-m", "{dir}/byte.tokvec", "--add-tokens", "{dir}/new_tokens.txt",
                                       "--more-merges", "5", "{dir}/corpus.txt", "-o", "{dir}/extended.json"}, 2,
             "give one of --add-tokens FILE, --more-merges N FILE..."),
    BadInput("ExtendZeroMerges", {"extend", "-m", "{dir}/byte.tokvec", "--more-merges", "0", "{dir}/corpus.txt", "-o",
                                  "{dir}/extended.json"}, 2, "must be a whole number of at least 1"),
    BadInput("ExtendMergesOfAWordModel", {"extend", "-m", "{dir}/word.tokvec", "--more-merges", "5",
                                          "{dir}/corpus.txt", "-o", "{dir}/extended.json"}, 1,
             "--more-merges continues byte-level BPE"),
    BadInput("ExtendMergesOnEmptyText", {"extend", "-m", "{dir}/byte.tokvec", "--more-merges", "5", "{dir}/empty.txt",
                                         "-o", "{dir}/extended.json"}, 1, "holds no pieces"),
    BadInput("ExtendVocabSizeNotAbove", {"extend", "-m", "{dir}/byte.tokvec", "--vocab-size", "10", "{dir}/corpus.txt",
                                         "-o", "{dir}/extended.json"}, 1, "is not above the"),
    BadInput("ConvertMissingModel", {"convert", "-m", "{dir}/missing.tokvec", "-o", "{dir}/converted"}, 1,
             "missing.tokvec"),
    BadInput("ConvertBinaryModel", {"convert", "-m", "{dir}/binary.bin", "-o", "{dir}/converted"}, 1,
             "cannot tell the format"),
    BadInput("ConvertWordModelToTiktoken", {"convert", "-m", "{dir}/word.tokvec", "--to", "tiktoken", "-o",
                                            "{dir}/converted"}, 1, "this is a word model"),
    BadInput("ConvertWordModelToJson", {"convert", "-m", "{dir}/word.tokvec", "--to", "json", "-o",
                                        "{dir}/converted"}, 1,
             "a word model is written as tokenizer.json only when it was read from one"),
    BadInput("ConvertOutputUnderAFile", {"convert", "-m", "{dir}/byte.tokvec", "-o", "{dir}/corpus.txt/converted"},
             1, "Not a directory"),
    // init
    BadInput("InitHeadsDoNotDivide", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "gpt2", "--d-model",
                                      "16", "--heads", "3", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                      "{dir}/new_model"}, 1, "not divisible"),
    BadInput("InitMissingTokenizer", {"init", "--tokenizer", "{dir}/missing.tokvec", "--arch", "gpt2", "--d-model",
                                      "16", "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                      "{dir}/new_model"}, 1, "missing.tokvec"),
    BadInput("InitBinaryTokenizer", {"init", "--tokenizer", "{dir}/binary.bin", "--arch", "gpt2", "--d-model", "16",
                                     "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                     "{dir}/new_model"}, 1, "cannot tell the format"),
    BadInput("InitOutputExists", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "gpt2", "--d-model", "16",
                                  "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                  "{dir}/model"}, 1, "already exists"),
    BadInput("InitOutputUnderAFile", {"init", "--tokenizer", "{dir}/byte.tokvec", "--arch", "gpt2", "--d-model",
                                      "16", "--heads", "2", "--layers", "1", "--max-len", "32", "--seed", "1", "-o",
                                      "{dir}/corpus.txt/model"}, 1, "corpus.txt"),
    BadInput("InitRotaryOddHeadDim", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "15", "--heads", "3",
                                      "--layers", "1", "--max-len", "32", "--seed", "1", "--positions", "rotary", "-o",
                                      "{dir}/new_model"}, 1, "even head_dim"),
    BadInput("InitUnknownPositions", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "16", "--heads", "2",
                                      "--layers", "1", "--max-len", "32", "--seed", "1", "--positions", "alibi", "-o",
                                      "{dir}/new_model"}, 2, "--positions"),
    BadInput("InitRopeThetaTooSmall", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "16", "--heads", "2",
                                       "--layers", "1", "--max-len", "32", "--seed", "1", "--positions", "rotary",
                                       "--rope-theta", "1", "-o", "{dir}/new_model"}, 1, "--rope-theta"),
    BadInput("EncodeShardWithoutLines", {"encode", "-m", "{dir}/word.tokvec", "--shard", "0/2", "-o",
                                         "{dir}/parts", "{dir}/corpus.txt"},
             2, "a sharded run"),
    BadInput("EncodeOutputWithoutShard", {"encode", "-m", "{dir}/word.tokvec", "-o", "{dir}/ids.txt",
                                          "{dir}/corpus.txt"},
             2, "for sharded runs"),
    BadInput("EncodeGatherMissingParts", {"encode", "--gather", "{dir}/subdir"}, 1, "holds no part records"),
    BadInput("EmbedShardWithoutLines", {"embed", "-m", "{dir}/model", "--shard", "0/2", "-o", "{dir}/parts",
                                        "{dir}/corpus.txt"},
             2, "a sharded run"),
    BadInput("EmbedShardOutOfRange", {"embed", "-m", "{dir}/model", "--lines", "--pooling", "mean", "--format",
                                      "npy", "--shard", "2/2", "-o", "{dir}/parts", "{dir}/corpus.txt"},
             2, "--shard"),
    BadInput("EmbedGatherMissingParts", {"embed", "--gather", "{dir}/subdir", "-o", "{dir}/all.npy"}, 1,
             "holds no part records"),
    BadInput("EmbedGatherWithInputs", {"embed", "--gather", "{dir}/subdir", "-o", "{dir}/all.npy",
                                       "{dir}/corpus.txt"},
             2, "--gather DIR takes no input files"),
    BadInput("EmbedNoModel", {"embed", "{dir}/corpus.txt"}, 2, "--model is required"),
    BadInput("EmbedUnknownPrecision", {"embed", "-m", "{dir}/model", "--precision", "int4", "{dir}/corpus.txt"}, 2,
             "--precision"),
    BadInput("EmbedPrecisionTsv", {"embed", "-m", "{dir}/model", "--lines", "--pooling", "mean", "--format", "tsv",
                                   "--precision", "int8", "{dir}/corpus.txt"},
             2, "--precision int8 needs --format npy or json"),
    BadInput("EmbedRangesWithBinary", {"embed", "-m", "{dir}/model", "--lines", "--pooling", "mean", "--format", "npy",
                                       "--precision", "binary", "--ranges", "{dir}/index4.npy", "{dir}/corpus.txt"},
             2, "--ranges and --calibration go with --precision int8 or uint8"),
    BadInput("EmbedRangesOfAnotherWidth", {"embed", "-m", "{dir}/model", "--lines", "--pooling", "mean", "--format",
                                           "npy", "--precision", "int8", "--ranges", "{dir}/index4.npy",
                                           "{dir}/corpus.txt"},
             1, "the ranges have 4 dimensions, the output 16"),
    BadInput("EmbedCalibrationOfAnotherWidth", {"embed", "-m", "{dir}/model", "--lines", "--pooling", "mean",
                                                "--format", "npy", "--precision", "uint8", "--calibration",
                                                "{dir}/index4.npy", "{dir}/corpus.txt"},
             1, "the calibration embeddings have 4 dimensions, the output 16"),
    BadInput("EmbedPromptAndPromptName", {"embed", "-m", "{dir}/model", "--prompt", "q: ", "--prompt-name", "query",
                                          "{dir}/corpus.txt"},
             2, "give --prompt or --prompt-name, not both"),
    BadInput("EmbedUnknownPromptName", {"embed", "-m", "{dir}/st_default_unknown_model", "{dir}/corpus.txt"}, 1,
             "default_prompt_name 'doc' is not one of the prompts (query)"),
    BadInput("EmbedPromptNameWithoutPrompts", {"embed", "-m", "{dir}/model", "--prompt-name", "query",
                                               "{dir}/corpus.txt"},
             1, "unknown prompt name 'query': the model has no prompts"),
    BadInput("EmbedPromptNotString", {"embed", "-m", "{dir}/st_prompt_not_string_model", "{dir}/corpus.txt"}, 1,
             "prompt 'query' must be a string"),
    BadInput("EmbedMaxSeqLengthZero", {"embed", "-m", "{dir}/st_zero_length_model", "{dir}/corpus.txt"}, 1,
             "key 'max_seq_length' must be a positive integer, not 0"),
    BadInput("EmbedMalformedPromptsFile", {"embed", "-m", "{dir}/st_bad_config_model", "{dir}/corpus.txt"}, 1,
             "config_sentence_transformers.json' is not a JSON object"),
    BadInput("EmbedTruncateUnknownSide", {"embed", "-m", "{dir}/model", "--truncate=middle", "{dir}/corpus.txt"}, 2,
             "--truncate: middle not in {right,left}"),
    BadInput("EmbedTruncateAndWindow", {"embed", "-m", "{dir}/model", "--truncate", "--window", "8",
                                        "{dir}/corpus.txt"},
             2, "--truncate and --window exclude each other"),
    BadInput("EmbedMaxLengthTooLong", {"embed", "-m", "{dir}/model", "--max-length", "33", "{dir}/corpus.txt"}, 1,
             "--max-length 33 is more than the model's maximum of 32 tokens"),
    BadInput("EmbedZeroDimensions", {"embed", "-m", "{dir}/model", "--dimensions", "0", "{dir}/corpus.txt"}, 2,
             "--dimensions"),
    BadInput("EmbedTooManyDimensions", {"embed", "-m", "{dir}/model", "--dimensions", "17", "{dir}/corpus.txt"}, 1,
             "--dimensions 17 is more than the model's 16"),
    // rerank, classify
    BadInput("RerankNoQuery", {"rerank", "-m", "{dir}/cross_model", "{dir}/corpus.txt"}, 2, "--query is required"),
    BadInput("RerankNegativeTopK", {"rerank", "-m", "{dir}/cross_model", "-q", "x", "-k", "-1", "{dir}/corpus.txt"},
             2, "--top-k"),
    BadInput("RerankModelWithoutHead", {"rerank", "-m", "{dir}/model", "-q", "x", "{dir}/corpus.txt"}, 1,
             "names no classification head tokvec reads"),
    BadInput("RerankMissingInput", {"rerank", "-m", "{dir}/cross_model", "-q", "x", "{dir}/missing.txt"}, 1,
             "missing.txt"),
    BadInput("RerankInvalidUtf8", {"rerank", "-m", "{dir}/cross_model", "-q", "x", "{dir}/bad_utf8.txt"}, 1,
             "invalid UTF-8"),
    BadInput("ClassifyPairsWithoutTab", {"classify", "-m", "{dir}/cross_model", "--pairs", "{dir}/corpus.txt"}, 1,
             "line 1: --pairs needs two texts separated by a tab"),
    BadInput("RerankModernBertUnknownPooling", {"rerank", "-m", "{dir}/modernbert_max_pool", "-q", "cat",
                                                "{dir}/corpus.txt"}, 1,
             "key 'classifier_pooling' is \"max\""),
    BadInput("EmbedModernBertMissingWi", {"embed", "-m", "{dir}/modernbert_no_wi", "{dir}/corpus.txt"}, 1,
             "has no tensor 'layers.0.mlp.Wi.weight' (expected shape [96, 32] = [2 * intermediate_size, hidden_size])"),
    BadInput("FitModernBertNotTrainable", {"fit", "-m", "{dir}/modernbert_no_wi", "--data", "{dir}/corpus.txt",
                                           "--seq-len", "8", "--batch", "2", "--steps", "1", "-o", "{dir}/fit_out"}, 1,
             "modernbert model can be embedded and attended but not trained yet"),
    BadInput("ClassifyHeadTensorsMissing", {"classify", "-m", "{dir}/wrong_head_model", "{dir}/corpus.txt"}, 1,
             "has no tensor 'bert.pooler.dense.weight' (the classification head)"),
    BadInput("EmbedDenseWrongWidth", {"embed", "-m", "{dir}/dense_width_model", "{dir}/corpus.txt"}, 1,
             "dense_width_model/3_Dense' takes 32 values (in_features) but gets vectors of 24"),
    // search
    BadInput("SearchNoIndex", {"search", "{dir}/queries4.npy"}, 2, "--index is required"),
    BadInput("SearchTextWithoutModel", {"search", "-i", "{dir}/index4.npy", "{dir}/corpus.txt"}, 2,
             "query texts need --model"),
    BadInput("SearchVectorsWithModel", {"search", "-i", "{dir}/index4.npy", "-m", "{dir}/model",
                                        "{dir}/queries4.npy"},
             2, "--model is for query texts"),
    BadInput("SearchZeroK", {"search", "-i", "{dir}/index4.npy", "-k", "0", "{dir}/queries4.npy"}, 2, "-k"),
    BadInput("SearchUnknownMetric", {"search", "-i", "{dir}/index4.npy", "--metric", "l2", "{dir}/queries4.npy"}, 2,
             "--metric"),
    BadInput("SearchIndexOfAnotherWidth", {"search", "-i", "{dir}/index4.npy", "{dir}/queries3.npy"}, 1,
             "the queries have 3 dimensions, the float32 index 4"),
    BadInput("SearchTextIndexOfAnotherWidth", {"search", "-i", "{dir}/index4.npy", "-m", "{dir}/model", "--pooling",
                                               "mean", "{dir}/corpus.txt"},
             1, "the queries have 16 dimensions, the float32 index 4"),
    BadInput("SearchIndexNotNpy", {"search", "-i", "{dir}/corpus.txt", "{dir}/queries4.npy"}, 1,
             "not a version 1.0 .npy file"),
    BadInput("SearchIndexOfInt64", {"search", "-i", "{dir}/ints4.npy", "{dir}/queries4.npy"}, 1,
             "not a C-order float32, int8 or uint8 array"),
    BadInput("SearchMissingIndex", {"search", "-i", "{dir}/missing.npy", "{dir}/queries4.npy"}, 1, "missing.npy"),
    BadInput("SearchCodesByCosine", {"search", "-i", "{dir}/codes4.npy", "{dir}/queries4.npy"}, 1,
             "ask for metric dot"),
    BadInput("SearchQueriesNotFloat", {"search", "-i", "{dir}/index4.npy", "{dir}/codes4.npy"}, 1,
             "holds uint8 values, not float32"),
    BadInput("SearchPromptAndPromptName", {"search", "-i", "{dir}/index4.npy", "-m", "{dir}/model", "--pooling",
                                           "mean", "--prompt", "q: ", "--prompt-name", "q", "{dir}/corpus.txt"},
             2, "give --prompt or --prompt-name, not both"),
    BadInput("SearchUnknownPromptName", {"search", "-i", "{dir}/index4.npy", "-m", "{dir}/model", "--pooling", "mean",
                                         "--prompt-name", "q", "{dir}/corpus.txt"},
             1, "unknown prompt name 'q'"),
    BadInput("SearchModelWithoutPooling", {"search", "-i", "{dir}/index4.npy", "-m", "{dir}/model",
                                           "{dir}/corpus.txt"},
             2, "no sentence-transformers pooling"),
    BadInput("EmbedUnknownDtype", {"embed", "-m", "{dir}/model", "--dtype", "fp8", "{dir}/corpus.txt"}, 2,
             "--dtype: fp8 not in {f32,bf16,int8}"),
    BadInput("EmbedDtypeUnsupportedCpu", {"embed", "-m", "{dir}/model", "--dtype", "bf16", "{dir}/corpus.txt"}, 1,
             "--dtype bf16 needs a CPU with AVX-512 BF16 (avx512bf16)")
        .Env("TOKVEC_DISABLE_CPU_FEATURES", "avx512bf16"),
    BadInput("BenchLayerDtypeUnsupportedCpu", {"bench", "layer", "--dtype", "int8", "--d-model", "32", "--heads", "4",
                                              "--ff", "64", "--batch", "1", "--seq-len", "4"}, 1,
             "--dtype int8 needs a CPU with AVX-512 VNNI (avx512vnni)")
        .Env("TOKVEC_DISABLE_CPU_FEATURES", "avx512vnni"),
    BadInput("BenchLayerUnknownDtype", {"bench", "layer", "--dtype", "f16"}, 2, "--dtype: f16 not in {f32,bf16,int8}"),
    BadInput("EmbedUnknownPositionType", {"embed", "-m", "{dir}/alibi_model", "{dir}/corpus.txt"}, 1,
             "position_embedding_type"),
    BadInput("EmbedUnknownAttentionKind", {"embed", "-m", "{dir}/unknown_attention_model", "{dir}/corpus.txt"}, 1,
             "attention kind 'sparse:4'"),
    BadInput("EmbedLinformerInCausalModel", {"embed", "-m", "{dir}/causal_linformer_model", "{dir}/corpus.txt"}, 1,
             "bidirectional only"),
    BadInput("FitGptNeoNotTrainable", {"fit", "-m", "{dir}/gpt_neo_model", "--data", "{dir}/corpus.txt", "--seq-len",
                                       "8", "--batch", "2", "--steps", "1", "-o", "{dir}/fit_out"}, 1,
             "this gpt_neo model can be embedded and attended but not trained yet"),
    BadInput("InitUnknownAttentionKind", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "16", "--heads",
                                          "2", "--layers", "1", "--max-len", "32", "--seed", "1", "--attention",
                                          "window:0", "-o", "{dir}/new_model"}, 1, "the window W must be at least 1"),
    BadInput("InitAttentionCountMismatch", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "16", "--heads",
                                            "2", "--layers", "3", "--max-len", "32", "--seed", "1", "--attention",
                                            "linear", "--attention", "full", "-o", "{dir}/new_model"}, 1,
             "one per layer"),
    BadInput("FitRopeThetaTooSmall", {"fit", "-m", "{dir}/rope_theta_model", "--data", "{dir}/corpus.txt", "--seq-len",
                                      "8", "--batch", "2", "--steps", "1", "-o", "{dir}/fit_out"}, 1, "rope_theta"),
    // fit, eval
    BadInput("FitMissingData",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/missing.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "-o", "{dir}/fit_out"},
             1, "missing.txt"),
    BadInput("FitDataTooShort",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/empty.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "-o", "{dir}/fit_out"},
             1, "--data holds 1 tokens"),
    BadInput("FitMissingModel",
             {"fit", "-m", "{dir}/missing_model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "-o", "{dir}/fit_out"},
             1, "missing_model"),
    BadInput("FitTruncatedWeights",
             {"fit", "-m", "{dir}/truncated_model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "-o", "{dir}/fit_out"},
             1, "model.safetensors"),
    BadInput("FitSeqLenTooLong",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "64", "--batch", "2",
              "--steps", "1", "-o", "{dir}/fit_out"},
             1, "exceeds the model's n_positions 32"),
    BadInput("FitStepsAndEpochs",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--epochs", "1", "-o", "{dir}/fit_out"},
             2, "give exactly one of --steps and --epochs"),
    BadInput("FitOutputExists",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "-o", "{dir}/model"},
             1, "already exists and is not an empty directory"),
    BadInput("FitResumeWithoutCheckpoint",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--resume", "-o", "{dir}/subdir"},
             1, "trainer_state.json"),
    BadInput("FitUnknownObjective",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--objective", "simclr", "-o", "{dir}/fit_out"},
             2, "--objective: simclr not in {clm,mlm,simcse}"),
    BadInput("FitSimcseBatchOfOne",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "1",
              "--steps", "1", "--objective", "simcse", "-o", "{dir}/fit_out"},
             1, "--objective simcse needs --batch 2 or more"),
    BadInput("FitSimcseWithoutDropout",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--objective", "simcse", "--dropout", "0", "-o", "{dir}/fit_out"},
             1, "--objective simcse needs --dropout > 0"),
    BadInput("FitSimcseMaxPooling",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--objective", "simcse", "--pooling", "max", "-o", "{dir}/fit_out"},
             2, "--pooling: max not in {auto,mean,cls,last}"),
    BadInput("FitPoolingWithoutSimcse",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--pooling", "mean", "-o", "{dir}/fit_out"},
             1, "--pooling applies to --objective simcse only"),
    BadInput("FitSimcseZeroTemperature",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--objective", "simcse", "--temperature", "0", "-o", "{dir}/fit_out"},
             2, "--temperature"),
    BadInput("FitLinesWithoutText",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/empty.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--lines", "-o", "{dir}/fit_out"},
             1, "empty.txt holds no non-blank line"),
    BadInput("EvalSimcseBatchOfOne",
             {"eval", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--objective", "simcse", "--batch", "1"},
             1, "--objective simcse needs --batch 2 or more"),
    BadInput("FitMlmOnACausalModel",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--objective", "mlm", "-o", "{dir}/fit_out"},
             1, "--objective mlm needs a bidirectional model (tokvec init --arch encoder, or RoBERTa); this model is 'gpt2'"),
    BadInput("FitUnknownSchedule",
             {"fit", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "8", "--batch", "2",
              "--steps", "1", "--schedule", "step", "-o", "{dir}/fit_out"},
             2, "--schedule"),
    BadInput("EvalEmptyData", {"eval", "-m", "{dir}/model", "--data", "{dir}/empty.txt"}, 1,
             "evaluation data holds 1 token(s)"),
    BadInput("EvalSeqLenTooLong", {"eval", "-m", "{dir}/model", "--data", "{dir}/long.txt", "--seq-len", "64"}, 1,
             "exceeds the model's n_positions 32"),
    // embed
    BadInput("EmbedMissingModel", {"embed", "-m", "{dir}/missing_model", "{dir}/corpus.txt"}, 1, "missing_model"),
    BadInput("EmbedFolderWithoutModel", {"embed", "-m", "{dir}/subdir", "{dir}/corpus.txt"}, 1, "subdir"),
    BadInput("EmbedTruncatedWeights", {"embed", "-m", "{dir}/truncated_model", "{dir}/corpus.txt"}, 1,
             "model.safetensors"),
    BadInput("EmbedMalformedConfig", {"embed", "-m", "{dir}/bad_config_model", "{dir}/corpus.txt"}, 1,
             "config.json"),
    BadInput("EmbedMissingInput", {"embed", "-m", "{dir}/model", "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("EmbedTooLong", {"embed", "-m", "{dir}/model", "{dir}/long.txt"}, 1, "--window"),
    BadInput("EmbedOutputUnderAFile", {"embed", "-m", "{dir}/model", "-o", "{dir}/corpus.txt/vectors.json",
                                       "{dir}/corpus.txt"}, 1, "Not a directory"),
    BadInput("EmbedToDevFull", {"embed", "-m", "{dir}/model", "{dir}/corpus.txt"}, 1, "No space left on device")
        .Stdout("/dev/full"),
    BadInput("EmbedLlamaKvHeadsNotDividing", {"embed", "-m", "{dir}/llama_kv_heads_model", "{dir}/corpus.txt"}, 1,
             "key 'num_key_value_heads' is 3, which does not divide num_attention_heads 4"),
    BadInput("EmbedLlamaRopeScaling", {"embed", "-m", "{dir}/llama_rope_scaling_model", "{dir}/corpus.txt"}, 1,
             "tokvec runs plain RoPE only (rope_scaling null)"),
    BadInput("EmbedQwen3WithoutQNorm", {"embed", "-m", "{dir}/qwen3_no_q_norm_model", "{dir}/corpus.txt"}, 1,
             "has no tensor 'model.layers.0.self_attn.q_norm.weight'"),
    BadInput("EmbedLlamaGeluActivation", {"embed", "-m", "{dir}/llama_gelu_model", "{dir}/corpus.txt"}, 1,
             "key 'hidden_act' is \"gelu\"; the llama feed-forward is SwiGLU, \"silu\""),
    BadInput("EmbedQwen2SlidingWindow", {"embed", "-m", "{dir}/qwen2_sliding_window_model", "{dir}/corpus.txt"}, 1,
             "key 'use_sliding_window' is true; tokvec runs every layer with full causal attention"),
    BadInput("EmbedMpnetWithoutRelativeBias", {"embed", "-m", "{dir}/mpnet_no_bias_model", "{dir}/corpus.txt"}, 1,
             "has no tensor 'encoder.relative_attention_bias.weight'"),
    BadInput("FitMpnetNotTrainable", {"fit", "-m", "{dir}/mpnet_model", "--data", "{dir}/corpus.txt", "--seq-len",
                                      "8", "--batch", "2", "--steps", "1", "-o", "{dir}/fit_out"}, 1,
             "this mpnet model (relative position bias) can be embedded and attended but not trained yet"),
    BadInput("FitLlamaNotTrainable", {"fit", "-m", "{dir}/llama_model", "--data", "{dir}/corpus.txt", "--seq-len",
                                      "8", "--batch", "2", "--steps", "1", "-o", "{dir}/fit_out"}, 1,
             "this llama model can be embedded and attended but not trained yet"),
    // attend
    BadInput("AttendLayerOutOfRange", {"attend", "-m", "{dir}/model", "--layer", "5", "{dir}/corpus.txt"}, 1,
             "--layer 5"),
    BadInput("AttendHeadOutOfRange", {"attend", "-m", "{dir}/model", "--head", "9", "{dir}/corpus.txt"}, 1,
             "--head 9"),
    BadInput("AttendMissingModel", {"attend", "-m", "{dir}/missing_model", "{dir}/corpus.txt"}, 1, "missing_model"),
    BadInput("AttendToDevFull", {"attend", "-m", "{dir}/model", "{dir}/corpus.txt"}, 1, "No space left on device")
        .Stdout("/dev/full"),
    // serve (fails before it listens; the HTTP errors are tests/server/server_test.cc's table)
    BadInput("ServeMissingModel", {"serve", "-m", "{dir}/missing_model", "--port", "0"}, 1, "missing_model"),
    BadInput("ServeTruncatedWeights", {"serve", "-m", "{dir}/truncated_model", "--port", "0"}, 1,
             "model.safetensors"),
    BadInput("ServeSameModelTwice", {"serve", "-m", "{dir}/model", "-m", "{dir}/model/", "--port", "0"}, 1,
             "two models are named 'model'"),
    BadInput("ServeBadHost", {"serve", "-m", "{dir}/model", "--host", "256.1.2.3", "--port", "0"}, 1,
             "cannot listen on 256.1.2.3:0"),
    // word2vec
    BadInput("W2vNoSubcommand", {"word2vec"}, 2, "A subcommand is required"),
    BadInput("W2vTrainBadArch", {"word2vec", "train", "--arch", "bogus", "-o", "{dir}/v.txt", "{dir}/corpus.txt"}, 2,
             "bogus not in"),
    BadInput("W2vTrainZeroDim", {"word2vec", "train", "--dim", "0", "-o", "{dir}/v.txt", "{dir}/corpus.txt"}, 2,
             "--dim"),
    BadInput("W2vEvaluateNothing", {"word2vec", "evaluate", "-v", "{dir}/good.vec"}, 2,
             "evaluate needs --analogies FILE and/or --similarity FILE"),
    BadInput("W2vAnalogyTwoWords", {"word2vec", "analogy", "-v", "{dir}/good.vec", "ab", "cd"}, 2, "WORDS"),
    BadInput("W2vTrainMissingInput", {"word2vec", "train", "-o", "{dir}/v.txt", "{dir}/missing.txt"}, 1, "missing.txt"),
    BadInput("W2vTrainNoWords", {"word2vec", "train", "-o", "{dir}/v.txt", "{dir}/empty.txt"}, 1, "--min-count"),
    BadInput("W2vTrainOutputUnderAFile", {"word2vec", "train", "--min-count", "1", "--epochs", "1", "-o",
                                          "{dir}/corpus.txt/v.txt", "{dir}/corpus.txt"}, 1, "Not a directory"),
    BadInput("W2vSimilarTruncated", {"word2vec", "similar", "-v", "{dir}/truncated.vec", "ab"}, 1, "truncated"),
    BadInput("W2vSimilarNaN", {"word2vec", "similar", "-v", "{dir}/nan.vec", "ab"}, 1, "not a finite number"),
    BadInput("W2vSimilarHugeDim", {"word2vec", "similar", "-v", "{dir}/huge_dim.vec", "ab"}, 1, "outside 1..65536"),
    BadInput("W2vSimilarBinaryFile", {"word2vec", "similar", "-v", "{dir}/binary.bin", "ab"}, 1, "header line"),
    BadInput("W2vSimilarMissingFile", {"word2vec", "similar", "-v", "{dir}/missing.vec", "ab"}, 1, "missing.vec"),
    BadInput("W2vSimilarUnknownWord", {"word2vec", "similar", "-v", "{dir}/good.vec", "zz"}, 1, "'zz' is not a word"),
    BadInput("W2vEvaluateBadQuestions", {"word2vec", "evaluate", "-v", "{dir}/good.vec", "--analogies",
                                         "{dir}/questions.txt"}, 1, "line 2"),
    BadInput("InitTokenEmbeddingsWrongDim", {"init", "--tokenizer", "{dir}/byte.tokvec", "--d-model", "16", "--heads",
                                             "2", "--layers", "1", "--max-len", "8", "--seed", "1",
                                             "--token-embeddings", "{dir}/good.vec", "-o", "{dir}/new_model"}, 1,
             "2-dimensional vectors but the model's d_model is 16"),
    BadInput("InitWithoutShape", {"init", "--tokenizer", "{dir}/byte.tokvec", "--seed", "1", "-o", "{dir}/new_model"},
             2, "--d-model, --heads, --layers, --max-len and --seed are required"),
    BadInput("InitFromWithShape", {"init", "--from", "{dir}/model", "--tokenizer", "{dir}/byte.tokvec", "--d-model",
                                   "16", "-o", "{dir}/new_model"}, 2, "--from DIR keeps DIR's shape"),
    BadInput("InitFromMissingDirectory", {"init", "--from", "{dir}/missing_model", "--tokenizer", "{dir}/byte.tokvec",
                                          "-o", "{dir}/new_model"}, 1, "is not a model directory"),
    BadInput("InitFromOutputInside", {"init", "--from", "{dir}/model", "--tokenizer", "{dir}/byte.tokvec", "-o",
                                      "{dir}/model/grown"}, 2, "is inside --from"),
    BadInput("InitFromSmallerTokenizer", {"init", "--from", "{dir}/model", "--tokenizer", "{dir}/word.tokvec", "-o",
                                          "{dir}/new_model"}, 1, "nothing to grow"),
};

// BERT directories: sharded weights, PyTorch pickles, relative positions, vocab.txt (docs/errors.md "BERT").
const std::vector<BadInput> kBertRows = {
    BadInput("EmbedBertMissingShard", {"embed", "-m", "{dir}/bert_missing_shard", "{dir}/corpus.txt"}, 1,
             "names shard 'model-00002-of-00002.safetensors', which does not exist"),
    BadInput("EmbedBertTensorInTwoShards", {"embed", "-m", "{dir}/bert_two_shards", "{dir}/corpus.txt"}, 1,
             "is in two shards"),
    BadInput("EmbedBertIndexNamesMissingTensor", {"embed", "-m", "{dir}/bert_index_missing_tensor",
                                                  "{dir}/corpus.txt"}, 1,
             "maps tensor 'encoder.layer.7.output.dense.bias' to"),
    BadInput("EmbedBertRelativePositions", {"embed", "-m", "{dir}/bert_relative_model", "{dir}/corpus.txt"}, 1,
             "tokvec supports only \"absolute\""),
    BadInput("EmbedPytorchPickleOnly", {"embed", "-m", "{dir}/bert_pickle_model", "{dir}/corpus.txt"}, 1,
             "not PyTorch pickles (pytorch_model.bin"),
    BadInput("EmbedBertVocabTxtTokenTwice", {"embed", "-m", "{dir}/bert_vocab_twice", "{dir}/corpus.txt"}, 1,
             "is listed twice"),
};

INSTANTIATE_TEST_SUITE_P(Bert, BadInputTest, ::testing::ValuesIn(kBertRows),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Usage, BadInputTest, ::testing::ValuesIn(kUsageRows),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Data, BadInputTest, ::testing::ValuesIn(kDataRows),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tokvec
