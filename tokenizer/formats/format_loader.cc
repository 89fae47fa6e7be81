// Tokenizer::Load: recognises the format from the path, then from the contents.
#include <sys/stat.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

namespace fs = std::filesystem;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A model directory holds one tokenizer file; the first of these names that exists is used.
absl::StatusOr<std::string> FindInDirectory(const std::string& dir) {
  for (const char* name : {"tokenizer.tokvec", "tokenizer.json", "vocab.json", "vocab.txt"}) {
    fs::path candidate = fs::path(dir) / name;
    if (fs::is_regular_file(candidate)) return candidate.string();
  }
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_regular_file() && EndsWith(entry.path().string(), ".tiktoken")) return entry.path().string();
  }
  return absl::NotFoundError(fmt::format(
      "directory '{}' holds no tokenizer (looked for tokenizer.tokvec, tokenizer.json, vocab.json, vocab.txt, "
      "*.tiktoken)",
      dir));
}

absl::StatusOr<TokenizerSpec> ReadAny(const std::string& path, const Tokenizer::LoadOptions& options) {
  if (EndsWith(path, "vocab.json")) {
    std::string merges = (fs::path(path).parent_path() / "merges.txt").string();
    if (!fs::exists(merges)) {
      return absl::NotFoundError(fmt::format("'{}' needs merges.txt beside it; '{}' does not exist", path, merges));
    }
    return ReadGpt2VocabAndMerges(path, merges);
  }
  if (EndsWith(path, "vocab.txt")) return ReadBertVocabTxt(path);  // BERT's WordPiece vocabulary
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  if (text.empty()) return absl::InvalidArgumentError(fmt::format("tokenizer file '{}' is empty", path));
  if (absl::StartsWith(text, std::string(kTokvecModelMagic))) return ReadTokvecModel(text, path);
  if (EndsWith(path, ".json") || text.front() == '{') return ReadHfTokenizerJson(text, path);
  if (EndsWith(path, ".tiktoken") || !options.pattern.empty()) return ReadTiktoken(text, path, options.pattern);
  return absl::InvalidArgumentError(fmt::format(
      "cannot tell the format of '{}': expected a tokvec model file (first line '{} ...'), a .tiktoken rank "
      "file, GPT-2's vocab.json (with merges.txt), or a Hugging Face tokenizer.json",
      path, kTokvecModelMagic));
}

}  // namespace

absl::StatusOr<TokenizerSpec> Tokenizer::LoadSpec(const std::string& path, const LoadOptions& options) {
  std::string file = path;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    TOKVEC_ASSIGN_OR_RETURN(file, FindInDirectory(path));
  }
  TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, ReadAny(file, options));
  if (spec.source.empty()) spec.source = file;
  return spec;
}

absl::StatusOr<std::unique_ptr<Tokenizer>> Tokenizer::Load(const std::string& path, const LoadOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, LoadSpec(path, options));
  return Create(std::move(spec));
}

}  // namespace tokvec
