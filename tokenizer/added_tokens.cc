#include "tokenizer/added_tokens.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

bool SameFlags(const SpecialToken& a, const SpecialToken& b) {
  return a.special == b.special && a.single_word == b.single_word && a.lstrip == b.lstrip && a.rstrip == b.rstrip &&
         a.normalized == b.normalized;
}

}  // namespace

absl::StatusOr<std::vector<NewToken>> ParseNewTokens(std::string_view text, const NewToken& defaults,
                                                     const std::string& path) {
  std::vector<NewToken> tokens;
  size_t line_number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    NewToken token = defaults;
    if (line.front() != '{') {
      token.content = std::string(line);
      tokens.push_back(std::move(token));
      continue;
    }
    const nlohmann::json object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: a line starting with '{{' must be a JSON object like {{\"content\": \"<tok>\", \"special\": true}}",
          path, line_number));
    }
    const auto content = object.find("content");
    if (content == object.end() || !content->is_string()) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: key 'content' must be a string", path, line_number));
    }
    token.content = content->get<std::string>();
    for (const auto& [key, flag] : {std::pair<const char*, bool*>{"special", &token.special},
                                    {"single_word", &token.single_word},
                                    {"lstrip", &token.lstrip},
                                    {"rstrip", &token.rstrip}}) {
      const auto it = object.find(key);
      if (it == object.end()) continue;
      if (!it->is_boolean()) {
        return absl::InvalidArgumentError(fmt::format("{}:{}: key '{}' must be true or false", path, line_number,
                                                      key));
      }
      *flag = it->get<bool>();
    }
    if (const auto it = object.find("normalized"); it != object.end()) {
      if (!it->is_boolean()) {
        return absl::InvalidArgumentError(fmt::format("{}:{}: key 'normalized' must be true or false", path,
                                                      line_number));
      }
      token.normalized = it->get<bool>();
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

absl::StatusOr<AddedTokensReport> AddTokens(const std::vector<NewToken>& tokens, const Tokenizer& tokenizer,
                                            TokenizerSpec* spec) {
  AddedTokensReport report;
  size_t next_id = tokenizer.vocab_size();
  for (const SpecialToken& existing : spec->special_tokens) next_id = std::max<size_t>(next_id, existing.id + 1);
  for (const NewToken& token : tokens) {
    if (token.content.empty()) {
      ++report.unchanged;
      continue;
    }
    SpecialToken added{.text = token.content,
                       .id = 0,
                       .special = token.special,
                       .single_word = token.single_word,
                       .lstrip = token.lstrip,
                       .rstrip = token.rstrip,
                       .normalized = token.normalized.value_or(!token.special)};
    const auto same_text = std::find_if(spec->special_tokens.begin(), spec->special_tokens.end(),
                                        [&](const SpecialToken& s) { return s.text == token.content; });
    if (same_text != spec->special_tokens.end()) {
      added.id = same_text->id;
      if (SameFlags(*same_text, added)) {
        ++report.unchanged;
      } else {
        *same_text = added;
        ++report.updated;
      }
      continue;
    }
    if (std::optional<TokenId> in_vocab = tokenizer.model().FindSpelling(token.content)) {
      added.id = *in_vocab;
      ++report.from_vocab;
    } else {
      if (next_id > static_cast<size_t>(std::numeric_limits<TokenId>::max())) {
        return absl::OutOfRangeError("the vocabulary is full: no id left for another token");
      }
      added.id = static_cast<TokenId>(next_id++);
      ++report.new_ids;
    }
    spec->special_tokens.push_back(std::move(added));
  }
  std::stable_sort(spec->special_tokens.begin(), spec->special_tokens.end(),
                   [](const SpecialToken& a, const SpecialToken& b) { return a.id < b.id; });
  report.vocab_size = next_id;
  return report;
}

}  // namespace tokvec
