// GPT-2's original files: vocab.json ({"spelling": id, ...}) and merges.txt (`#version: 0.2` then one
// `LEFT RIGHT` merge per line, in rank order), both in the byte-to-unicode spelling (byte_unicode.h).
// The split pattern is GPT-2's (Hugging Face's ByteLevel regex, tiktoken's gpt2); `<|endoftext|>`, when the
// vocabulary has it, is a special token.
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/formats/spelled_vocab.h"
#include "tokenizer/formats/tokenizer_json_vocab.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"

namespace tokvec {

namespace {

// vocab.json through the JSON DOM: the reader of record for files the scanner does not take, and for repeated
// keys (the DOM keeps the last, as Hugging Face does). Errors name the file.
absl::StatusOr<FlatVocab> ReadVocabJsonViaDom(const std::string& text, const std::string& path) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON (truncated?); expected {{\"token\": id, ...}}", path));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a JSON object {{\"token\": id, ...}}", path));
  }
  FlatVocab vocab;
  for (const auto& [spelling, id] : json.items()) {
    if (!id.is_number_unsigned()) {
      return absl::InvalidArgumentError(fmt::format("{}: key '{}': the id must be a non-negative integer, got {}",
                                                    path, spelling, id.dump()));
    }
    vocab.Add(spelling, id.get<uint64_t>());
  }
  return vocab;
}

// vocab.json by the fast scanner (tokenizer_json_vocab.h); nullopt when it is not a plain object of ids.
std::optional<FlatVocab> ScanVocabJson(std::string_view text) {
  size_t pos = text.find_first_not_of(" \t\r\n");
  if (pos == std::string_view::npos) return std::nullopt;
  absl::StatusOr<FlatVocab> vocab = ScanVocabObject(text, &pos, "(top level)");
  if (!vocab.ok() || text.find_first_not_of(" \t\r\n", pos) != std::string_view::npos) return std::nullopt;
  return std::move(vocab).value();
}

}  // namespace

absl::StatusOr<TokenizerSpec> ReadGpt2VocabAndMerges(const std::string& vocab_json_path,
                                                     const std::string& merges_txt_path) {
  // 1. vocab.json.
  TOKVEC_ASSIGN_OR_RETURN(std::string vocab_text, ReadFile(vocab_json_path));
  SpelledVocab vocab;
  std::optional<FlatVocab> scanned = ScanVocabJson(vocab_text);
  const bool fast = scanned.has_value();
  if (fast) {
    vocab.tokens = std::move(*scanned);
  } else {
    TOKVEC_ASSIGN_OR_RETURN(vocab.tokens, ReadVocabJsonViaDom(vocab_text, vocab_json_path));
  }
  // 2. merges.txt.
  TOKVEC_ASSIGN_OR_RETURN(std::string merges_text, ReadFile(merges_txt_path));
  std::vector<uint32_t> line_of_rank;
  size_t line = 0;
  for (size_t pos = 0; pos < merges_text.size();) {
    size_t eol = merges_text.find('\n', pos);
    if (eol == std::string::npos) eol = merges_text.size();
    std::string_view row(merges_text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line;
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    if (row.empty() || (line == 1 && row.substr(0, 9) == "#version:")) continue;
    const size_t space = row.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == row.size() ||
        row.find(' ', space + 1) != std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: expected `LEFT RIGHT` (two tokens, one space), got '{}'", merges_txt_path, line,
                      std::string(row.substr(0, 80))));
    }
    vocab.merges.Add(row.substr(0, space), row.substr(space + 1));
    line_of_rank.push_back(static_cast<uint32_t>(line));
  }
  vocab.merge_where = [&](size_t rank) { return fmt::format("{}:{}", merges_txt_path, line_of_rank[rank]); };
  // 3. The model. A scanned vocab.json with a repeated key fails here; the DOM's reading (the last id of a
  // repeated key, as Hugging Face) decides then.
  absl::StatusOr<BpeModel> bpe = BuildSpelledBpe(vocab, vocab_json_path);
  if (!bpe.ok() && fast) {
    TOKVEC_ASSIGN_OR_RETURN(vocab.tokens, ReadVocabJsonViaDom(vocab_text, vocab_json_path));
    bpe = BuildSpelledBpe(vocab, vocab_json_path);
  }
  if (!bpe.ok()) return bpe.status();
  TokenizerSpec spec = ByteLevelSpec(std::move(bpe).value());
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer, MakeSplitPreTokenizer("gpt2"));
  if (std::optional<TokenId> end = spec.bpe.Find("<|endoftext|>")) {
    spec.special_tokens.push_back({"<|endoftext|>", *end});
  }
  spec.source = vocab_json_path;
  return spec;
}

}  // namespace tokvec
