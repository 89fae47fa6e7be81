// GPT-2's original files: vocab.json ({"spelling": id, ...}) and merges.txt (`#version: 0.2` then one
// `LEFT RIGHT` merge per line, in rank order), both in the byte-to-unicode spelling (byte_unicode.h).
// The split pattern is GPT-2's (Hugging Face's ByteLevel regex, tiktoken's gpt2); `<|endoftext|>`, when the
// vocabulary has it, is a special token.
#include "absl/strings/match.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats.h"
#include "tokenizer/spelled_vocab.h"
#include "tokenizer/split_pattern.h"

namespace tokvec {

absl::StatusOr<TokenizerSpec> ReadGpt2VocabAndMerges(const std::string& vocab_json_path,
                                                     const std::string& merges_txt_path) {
  // 1. vocab.json.
  TOKVEC_ASSIGN_OR_RETURN(std::string vocab_text, ReadFile(vocab_json_path));
  nlohmann::json json = nlohmann::json::parse(vocab_text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON (truncated?); expected {{\"token\": id, ...}}", vocab_json_path));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: expected a JSON object {{\"token\": id, ...}}", vocab_json_path));
  }
  SpelledVocab vocab;
  vocab.tokens.reserve(json.size());
  for (const auto& [spelling, id] : json.items()) {
    if (!id.is_number_unsigned()) {
      return absl::InvalidArgumentError(fmt::format("{}: key '{}': the id must be a non-negative integer, got {}",
                                                    vocab_json_path, spelling, id.dump()));
    }
    vocab.tokens.emplace_back(spelling, id.get<uint64_t>());
  }
  // 2. merges.txt.
  TOKVEC_ASSIGN_OR_RETURN(std::string merges_text, ReadFile(merges_txt_path));
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
    vocab.merges.push_back({std::string(row.substr(0, space)), std::string(row.substr(space + 1)),
                            fmt::format("{}:{}", merges_txt_path, line)});
  }
  // 3. The model.
  TOKVEC_ASSIGN_OR_RETURN(BpeModel bpe, BuildSpelledBpe(vocab, vocab_json_path));
  TokenizerSpec spec = ByteLevelSpec(std::move(bpe));
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer, MakeSplitPreTokenizer("gpt2"));
  if (json.contains("<|endoftext|>")) {
    spec.special_tokens.push_back({"<|endoftext|>", json["<|endoftext|>"].get<TokenId>()});
  }
  spec.source = vocab_json_path;
  return spec;
}

}  // namespace tokvec
