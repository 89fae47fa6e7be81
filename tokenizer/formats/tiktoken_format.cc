// tiktoken's rank files: one `base64(token bytes) rank` per line, the rank being the token id and its merge
// priority (https://github.com/openai/tiktoken, load.py `load_tiktoken_bpe`).
//
// The file holds neither the split pattern nor the special tokens; they come from the encoding named by the
// file name (tiktoken 1.0.22 registry.json):
//   gpt2, r50k_base, p50k_base  pattern gpt2    <|endoftext|> 50256
//   p50k_edit                   pattern gpt2    <|endoftext|> 50256, <|fim_prefix|> 50281, <|fim_middle|> 50282,
//                                               <|fim_suffix|> 50283
//   cl100k_base                 pattern cl100k  <|endoftext|> 100257, <|fim_prefix|> 100258,
//                                               <|fim_middle|> 100259, <|fim_suffix|> 100260, <|endofprompt|> 100276
//   o200k_base                  pattern o200k   <|endoftext|> 199999, <|endofprompt|> 200018
// tiktoken looks a whole piece up before merging it, which is Hugging Face's ignore_merges, so it is set.
//
// Loading speed (best of 5, this machine): gpt2 4.6 ms, cl100k_base 13 ms, o200k_base 37 ms. The tokens move
// into the model (copying them cost ~25% of o200k's 75 ms before) and base64 decodes into a presized string;
// building the BpeModel's hash map is most of what is left.
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/formats/spelled_vocab.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer_json.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"

namespace tokvec {
namespace {

struct TiktokenEncoding {
  std::string_view name;
  std::string_view pattern;
  std::vector<SpecialToken> special_tokens;
};

const std::vector<TiktokenEncoding>& KnownEncodings() {
  static const auto* encodings = new std::vector<TiktokenEncoding>{
      {"gpt2", "gpt2", {{"<|endoftext|>", 50256}}},
      {"r50k_base", "gpt2", {{"<|endoftext|>", 50256}}},
      {"p50k_base", "gpt2", {{"<|endoftext|>", 50256}}},
      {"p50k_edit",
       "gpt2",
       {{"<|endoftext|>", 50256}, {"<|fim_prefix|>", 50281}, {"<|fim_middle|>", 50282}, {"<|fim_suffix|>", 50283}}},
      {"cl100k_base",
       "cl100k",
       {{"<|endoftext|>", 100257},
        {"<|fim_prefix|>", 100258},
        {"<|fim_middle|>", 100259},
        {"<|fim_suffix|>", 100260},
        {"<|endofprompt|>", 100276}}},
      {"o200k_base", "o200k", {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
  };
  return *encodings;
}

// Base64 digit values; -1 for characters outside the alphabet.
struct Base64Table {
  int8_t value[256];
  constexpr Base64Table() : value() {
    for (int i = 0; i < 256; ++i) value[i] = -1;
    for (int i = 0; i < 26; ++i) {
      value['A' + i] = static_cast<int8_t>(i);
      value['a' + i] = static_cast<int8_t>(26 + i);
    }
    for (int i = 0; i < 10; ++i) value['0' + i] = static_cast<int8_t>(52 + i);
    value['+'] = 62;
    value['/'] = 63;
  }
};
constexpr Base64Table kBase64;
constexpr char kBase64Digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Standard base64 with '=' padding to a multiple of 4 characters (as tiktoken writes it), into `out`.
bool DecodeBase64(std::string_view text, std::string* out) {
  if (text.empty() || text.size() % 4 != 0) return false;
  size_t padding = 0;
  if (text.back() == '=') {
    ++padding;
    if (text[text.size() - 2] == '=') ++padding;
  }
  out->resize(text.size() / 4 * 3 - padding);
  char* dest = out->data();
  size_t written = 0;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    uint32_t bits = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int v = kBase64.value[static_cast<unsigned char>(c)];
      if (v < 0) {
        if (!(last && c == '=' && k >= 4 - padding)) return false;
        v = 0;
      }
      bits = (bits << 6) | static_cast<uint32_t>(v);
    }
    const char bytes[3] = {static_cast<char>(bits >> 16), static_cast<char>((bits >> 8) & 0xFF),
                           static_cast<char>(bits & 0xFF)};
    const size_t count = last ? 3 - padding : 3;
    for (size_t k = 0; k < count; ++k) dest[written++] = bytes[k];
  }
  return true;
}

std::string EncodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t bits = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kBase64Digits[(bits >> 18) & 63];
    out += kBase64Digits[(bits >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64Digits[(bits >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64Digits[bits & 63] : '=';
  }
  return out;
}

// The encoding name of a rank file: its file name without the `.tiktoken` extension.
std::string EncodingName(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  constexpr std::string_view kExtension = ".tiktoken";
  if (name.size() > kExtension.size() && name.compare(name.size() - kExtension.size(), kExtension.size(),
                                                      kExtension) == 0) {
    name.resize(name.size() - kExtension.size());
  }
  return name;
}

// Parses the lines `base64(token) rank`: tokens by rank (empty for unused ranks) and, per rank, its line.
absl::StatusOr<std::vector<std::string>> ParseRanks(std::string_view text, const std::string& path,
                                                    std::vector<uint32_t>* line_of_rank) {
  std::vector<std::string> tokens;
  tokens.reserve(text.size() / 12);
  line_of_rank->clear();
  line_of_rank->reserve(text.size() / 12);
  size_t line = 0;
  size_t lines_with_tokens = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view row = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line;
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    if (row.empty()) continue;
    const size_t space = row.find(' ');
    if (space == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: expected `base64(token) rank`, got '{}'", path, line, std::string(row.substr(0, 80))));
    }
    std::string token;
    if (!DecodeBase64(row.substr(0, space), &token)) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: '{}' is not valid base64", path, line,
                                                    std::string(row.substr(0, std::min<size_t>(space, 80)))));
    }
    std::string_view digits = row.substr(space + 1);
    uint64_t rank = 0;
    bool ok = !digits.empty() && digits.size() <= 10;
    for (char c : digits) {
      if (c < '0' || c > '9') ok = false;
      rank = rank * 10 + static_cast<uint64_t>(c - '0');
    }
    ++lines_with_tokens;
    // A rank far beyond the size of the file would make a huge, mostly empty table: refuse it.
    if (!ok || rank > text.size() + 1024) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: rank '{}' is not a number between 0 and the number "
                                                    "of tokens", path, line, std::string(digits.substr(0, 20))));
    }
    if (rank >= tokens.size()) {
      tokens.resize(rank + 1);
      line_of_rank->resize(rank + 1, 0);
    }
    if ((*line_of_rank)[rank] != 0) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: rank {} is already given on line {}", path, line, rank, (*line_of_rank)[rank]));
    }
    (*line_of_rank)[rank] = static_cast<uint32_t>(line);
    tokens[rank] = std::move(token);
  }
  if (lines_with_tokens == 0) return absl::InvalidArgumentError(fmt::format("{}: no tokens in rank file", path));
  return tokens;
}

// The byte-level spec of tiktoken ranks: pieces that are tokens skip merging (tiktoken looks them up whole), split
// by `pattern` (a preset or an ICU regex).
absl::StatusOr<TokenizerSpec> RankSpec(BpeModel bpe, const std::string& pattern, const std::string& source) {
  TokenizerSpec spec = ByteLevelSpec(std::move(bpe));
  spec.ignore_merges = true;
  spec.source = source;
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer, MakeSplitPreTokenizer(pattern));
  return spec;
}

}  // namespace

absl::StatusOr<TokenizerSpec> ReadTiktoken(std::string_view text, const std::string& path,
                                           const std::string& pattern) {
  // 1. The encoding: pattern and special tokens from the file name, pattern overridable.
  const std::string name = EncodingName(path);
  const TiktokenEncoding* encoding = nullptr;
  for (const TiktokenEncoding& known : KnownEncodings()) {
    if (known.name == name) encoding = &known;
  }
  if (encoding == nullptr && pattern.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: unknown tiktoken encoding '{}' (known: gpt2, r50k_base, p50k_base, p50k_edit, cl100k_base, "
        "o200k_base); pass --pattern gpt2|cl100k|o200k|REGEX to give its split pattern",
        path, name));
  }
  // 2. Lines `base64 rank`, then the model; on a duplicate token, parse again to find both lines (only on
  // this error path, so that the tokens can move into the model).
  std::vector<uint32_t> line_of_rank;
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseRanks(text, path, &line_of_rank));
  absl::StatusOr<BpeModel> bpe = BpeModel::FromRanks(std::move(tokens));
  if (!bpe.ok()) {
    TOKVEC_ASSIGN_OR_RETURN(tokens, ParseRanks(text, path, &line_of_rank));
    absl::flat_hash_map<std::string, uint32_t> first_line;
    for (size_t rank = 0; rank < tokens.size(); ++rank) {
      if (tokens[rank].empty()) continue;
      auto [it, inserted] = first_line.emplace(tokens[rank], line_of_rank[rank]);
      if (!inserted) {
        return absl::InvalidArgumentError(fmt::format("{}:{}: token '{}' is already given on line {}", path,
                                                      line_of_rank[rank], EncodeBase64(tokens[rank]), it->second));
      }
    }
    return absl::InvalidArgumentError(fmt::format("{}: {}", path, std::string(bpe.status().message())));
  }
  TOKVEC_ASSIGN_OR_RETURN(
      TokenizerSpec spec,
      RankSpec(std::move(bpe).value(), pattern.empty() ? std::string(encoding->pattern) : pattern, path));
  if (encoding != nullptr) {
    for (const SpecialToken& special : encoding->special_tokens) {
      if (special.id < spec.bpe.size() && !spec.bpe.token(special.id).empty()) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: rank {} is the special token {} of {}; is this file really {}?", path, special.id, special.text,
            name, name));
      }
      spec.special_tokens.push_back(special);
    }
  }
  return spec;
}

absl::StatusOr<std::vector<std::string>> ReadTiktokenRanks(std::string_view text, const std::string& path) {
  std::vector<uint32_t> line_of_rank;
  return ParseRanks(text, path, &line_of_rank);
}

absl::StatusOr<TokenizerSpec> TiktokenSpec(std::vector<std::string> tokens, const std::string& pattern,
                                           std::vector<SpecialToken> special_tokens, const std::string& source) {
  absl::StatusOr<BpeModel> bpe = BpeModel::FromRanks(std::move(tokens));
  if (!bpe.ok()) return absl::InvalidArgumentError(fmt::format("{}: {}", source, std::string(bpe.status().message())));
  TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, RankSpec(std::move(bpe).value(), pattern, source));
  for (const SpecialToken& special : special_tokens) {
    if (special.id < spec.bpe.size() && !spec.bpe.token(special.id).empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: special token {} has id {}, the rank of a mergeable token",
                                                    source, special.text, special.id));
    }
  }
  spec.special_tokens = std::move(special_tokens);
  return spec;
}

absl::StatusOr<std::string> WriteTiktoken(const Tokenizer& tokenizer) {
  const BpeModel& bpe = tokenizer.bpe();
  if (tokenizer.byte_level() == nullptr) {
    return absl::FailedPreconditionError(fmt::format("a .tiktoken file holds byte-level ranks; this is a {} model ({})",
                                                     ModelTypeName(tokenizer.type()), kTrainByteLevel));
  }
  if (tokenizer.spec().affixes) {
    return absl::FailedPreconditionError(
        "a .tiktoken file cannot say continuing_subword_prefix or end_of_word_suffix (tiktoken has no word affixes)");
  }
  if (!tokenizer.spec().pre_tokenizer->SplitPattern()) {
    return absl::FailedPreconditionError(
        "a .tiktoken file cannot say this model's Hugging Face pre-tokenizer (a Sequence); write tokenizer.json");
  }
  // tiktoken merges by id: a merge-list model converts exactly when merges produce tokens in increasing id order.
  if (bpe.rule() == BpeModel::Rule::kMergeList) {
    std::optional<TokenId> previous;
    for (size_t rank = 0; rank < bpe.merges().size(); ++rank) {
      const BpeModel::MergePair& pair = bpe.merges()[rank];
      std::optional<TokenId> result = bpe.Find(bpe.token(pair.left) + bpe.token(pair.right));
      if (!result) continue;
      if (previous && *result <= *previous) {
        return absl::FailedPreconditionError(fmt::format(
            "merge {} makes token {}, not above the token {} of the merge before it; tiktoken ranks need merge "
            "order == id order, so this model cannot be written as .tiktoken (write tokenizer.json instead)",
            rank, *result, *previous));
      }
      previous = result;
    }
  }
  // Special tokens are not ranks (a tokenizer.json may hold them in its vocab too).
  std::vector<bool> special(bpe.size(), false);
  for (const SpecialToken& token : tokenizer.special_tokens()) {
    if (token.id < bpe.size()) special[token.id] = true;
  }
  std::string out;
  out.reserve(bpe.size() * 12);
  for (TokenId id = 0; id < bpe.size(); ++id) {
    const std::string& token = bpe.token(id);
    if (token.empty() || special[id]) continue;
    out += EncodeBase64(token);
    out += ' ';
    out += std::to_string(id);
    out += '\n';
  }
  return out;
}

}  // namespace tokvec
