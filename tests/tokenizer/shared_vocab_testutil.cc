#include "tests/tokenizer/shared_vocab_testutil.h"

#include <cstdlib>
#include <filesystem>

#include "base/file_io.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec::testing {

std::optional<std::string> SharedVocabPath(const std::string& relative) {
  const char* env = std::getenv("TOKVEC_VOCAB_DIR");
  std::filesystem::path dir = env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                                             : std::filesystem::path(TOKVEC_SHARED_DIR) / "vocab";
  std::filesystem::path path = dir / relative;
  if (!std::filesystem::exists(path)) return std::nullopt;
  return path.string();
}

std::vector<GoldenCase> TiktokenGoldens() {
  absl::StatusOr<std::string> text = ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/tests/data/tiktoken_goldens.json");
  if (!text.ok()) return {};
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  std::vector<GoldenCase> cases;
  if (json.is_discarded()) return cases;
  for (const auto& item : json["cases"]) {
    cases.push_back({item["encoding"].get<std::string>(), item["text"].get<std::string>(),
                     item["ids"].get<std::vector<TokenId>>()});
  }
  return cases;
}

std::string DescribeIdMismatch(const Tokenizer& tokenizer, const std::vector<TokenId>& expected,
                               const std::vector<TokenId>& actual) {
  size_t first = 0;
  while (first < expected.size() && first < actual.size() && expected[first] == actual[first]) ++first;
  if (first == expected.size() && first == actual.size()) return "";
  auto around = [&](const std::vector<TokenId>& ids) {
    std::string out;
    const size_t begin = first >= 3 ? first - 3 : 0;
    for (size_t i = begin; i < ids.size() && i < first + 5; ++i) {
      out += fmt::format("{}{}({}) ", i == first ? ">" : "", ids[i],
                         ids[i] < tokenizer.vocab_size() ? tokenizer.TokenSpelling(ids[i]) : "?");
    }
    return out;
  };
  return fmt::format("first difference at index {} (expected {} ids, got {})\n  expected: {}\n  actual:   {}", first,
                     expected.size(), actual.size(), around(expected), around(actual));
}

}  // namespace tokvec::testing
