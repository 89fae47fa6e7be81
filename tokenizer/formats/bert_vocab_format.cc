// BERT's vocab.txt (+ tokenizer_config.json beside it), the tokenizer files of a BERT model directory that has no
// tokenizer.json: one token per line, its id the line number (0-based). The tokenizer is the one Hugging Face's
// BertTokenizerFast builds from these files (transformers' BertConverter), so it equals the directory's
// tokenizer.json where there is one:
//   normalizer     BertNormalizer {clean_text, handle_chinese_chars = tokenize_chinese_chars (default true),
//                  strip_accents (null: as lowercase), lowercase = do_lower_case (default true)}
//   pre-tokenizer  BertPreTokenizer;   model  WordPiece {unk_token (default "[UNK]"), "##", 100 chars per word}
//   decoder        WordPiece {"##", cleanup};   special tokens  unk, sep, pad, cls, mask tokens found in vocab.txt
//   post-processor TemplateProcessing [CLS] $A [SEP] / [CLS] $A [SEP] $B:1 [SEP]:1 (when both are in vocab.txt;
//                  tokenizer_config.json's tokenizer_class MPNetTokenizer: pairs [CLS] $A [SEP] [SEP] $B:1 [SEP]:1,
//                  as transformers' MPNetConverter)
//
//   TOKVEC_ASSIGN_OR_RETURN(TokenizerSpec spec, ReadBertVocabTxt("models/minilm/vocab.txt"));
//
// Errors name the file and the line or key: an empty line, a token listed twice, a config key of the wrong type,
// an unk token missing from the vocabulary.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.h"
#include "tokenizer/processors/post_processor.h"

namespace tokvec {
namespace {

using nlohmann::json;

struct BertTokenizerConfig {
  bool lowercase = true;
  bool chinese = true;
  std::optional<bool> strip_accents;  // none: as lowercase
  std::string tokenizer_class;        // "" when the file does not say
  std::vector<std::pair<std::string, std::string>> tokens = {
      {"unk_token", "[UNK]"}, {"sep_token", "[SEP]"}, {"pad_token", "[PAD]"}, {"cls_token", "[CLS]"},
      {"mask_token", "[MASK]"}};
};

absl::Status ConfigError(const std::string& path, std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("{}: key '{}' {}", path, key, what));
}

// tokenizer_config.json; absent: BertTokenizer's defaults.
absl::StatusOr<BertTokenizerConfig> ReadBertTokenizerConfig(const std::string& path) {
  BertTokenizerConfig config;
  if (!std::filesystem::exists(path)) return config;
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{} is not a JSON object", path));
  }
  auto flag = [&](const char* key, bool* out) -> absl::Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return absl::OkStatus();
    if (!it->is_boolean()) return ConfigError(path, key, fmt::format("must be true or false, not {}", it->dump()));
    *out = it->get<bool>();
    return absl::OkStatus();
  };
  TOKVEC_RETURN_IF_ERROR(flag("do_lower_case", &config.lowercase));
  TOKVEC_RETURN_IF_ERROR(flag("tokenize_chinese_chars", &config.chinese));
  if (auto it = j.find("strip_accents"); it != j.end() && !it->is_null()) {
    bool strip = false;
    TOKVEC_RETURN_IF_ERROR(flag("strip_accents", &strip));
    config.strip_accents = strip;
  }
  if (auto it = j.find("tokenizer_class"); it != j.end() && it->is_string()) {
    config.tokenizer_class = it->get<std::string>();
  }
  // "[UNK]" or (newer files) {"content": "[UNK]", ...}.
  for (auto& [key, value] : config.tokens) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    const json* content = it->is_object() && it->contains("content") ? &(*it)["content"] : &*it;
    if (!content->is_string() || content->get<std::string>().empty()) {
      return ConfigError(path, key, fmt::format("must be a token (a non-empty string), not {}", it->dump()));
    }
    value = content->get<std::string>();
  }
  return config;
}

}  // namespace

absl::StatusOr<TokenizerSpec> ReadBertVocabTxt(const std::string& vocab_txt_path) {
  const std::string config_path =
      (std::filesystem::path(vocab_txt_path).parent_path() / "tokenizer_config.json").string();
  TOKVEC_ASSIGN_OR_RETURN(BertTokenizerConfig config, ReadBertTokenizerConfig(config_path));
  TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(vocab_txt_path));
  // 1. One token per line (transformers' load_vocab strips only the "\n").
  std::vector<std::pair<std::string, TokenId>> vocab;
  absl::flat_hash_map<std::string, size_t> line_of;
  for (size_t begin = 0, line = 1; begin < text.size(); ++line) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(begin, end - begin);
    begin = end + 1;
    if (token.empty()) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: empty line; every line is one token", vocab_txt_path,
                                                    line));
    }
    auto [it, added] = line_of.emplace(token, line);
    if (!added) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: token '{}' is listed twice (also on line {})",
                                                    vocab_txt_path, line, token, it->second));
    }
    vocab.emplace_back(std::move(token), static_cast<TokenId>(vocab.size()));
  }
  // 2. The WordPiece model; the unk token must be in the vocabulary.
  WordPieceModel::Options options;
  options.unk_token = config.tokens[0].second;
  absl::StatusOr<WordPieceModel> wordpiece = WordPieceModel::Create(vocab, options);
  if (!wordpiece.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", vocab_txt_path, std::string(wordpiece.status().message())));
  }
  TOKVEC_ASSIGN_OR_RETURN(BpeModel no_bpe, BpeModel::FromMerges({}, {}));
  TokenizerSpec spec{.type = ModelType::kWordPiece, .bpe = std::move(no_bpe)};
  spec.wordpiece = std::move(wordpiece).value();
  spec.source = vocab_txt_path;
  spec.pre_tokenizer = std::make_unique<BertPreTokenizer>();
  spec.decoder = WordPieceDecoder();
  // 3. BertNormalizer's steps, in Hugging Face's order (see tokenizer_json_format.cc).
  std::vector<std::string> steps = {"bert_clean"};
  if (config.chinese) steps.push_back("bert_chinese");
  if (config.strip_accents.value_or(config.lowercase)) {
    steps.push_back("nfd");
    steps.push_back("bert_strip_accents");
  }
  if (config.lowercase) steps.push_back("lowercase");
  std::string name;
  for (const std::string& step : steps) name += (name.empty() ? "" : "+") + step;
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, MakeNormalizer(name));
  // 4. The special tokens the vocabulary has, in id order (as tokenizer.json's added_tokens lists them).
  for (const auto& entry : config.tokens) {
    const std::string& token = entry.second;
    std::optional<TokenId> id = spec.wordpiece.Find(token);
    const bool seen = std::any_of(spec.special_tokens.begin(), spec.special_tokens.end(),
                                  [&](const SpecialToken& s) { return s.text == token; });
    if (id && !seen) spec.special_tokens.push_back({token, *id});
  }
  std::sort(spec.special_tokens.begin(), spec.special_tokens.end(),
            [](const SpecialToken& a, const SpecialToken& b) { return a.id < b.id; });
  // 5. The post-processor transformers' BertConverter gives BertTokenizerFast: "[CLS]:0 $A:0 [SEP]:0", and for a
  //    pair "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1" (cls_token / sep_token of tokenizer_config.json), when the
  //    vocabulary has both (BertConverter's classes and every other vocab.txt class: ConvBert, DPR, LayoutLM,
  //    MobileBert, ...); MPNetConverter's "<s>:0 $A:0 </s>:0 </s>:0 $B:1 </s>:1" for MPNetTokenizer.
  const bool mpnet_class =
      config.tokenizer_class == "MPNetTokenizer" || config.tokenizer_class == "MPNetTokenizerFast";
  std::optional<TokenId> cls, sep;
  for (const auto& [key, token] : config.tokens) {
    if (key == "cls_token") cls = spec.wordpiece.Find(token);
    if (key == "sep_token") sep = spec.wordpiece.Find(token);
  }
  if (cls && sep) {
    PostProcessor::Step add{.kind = PostProcessor::Step::kAddTokens, .before = {*cls}, .after = {*sep}};
    const std::vector<TokenId> middle = mpnet_class ? std::vector<TokenId>{*sep, *sep} : std::vector<TokenId>{*sep};
    add.pair = std::vector<TemplatePiece>{{.kind = TemplatePiece::kTokens, .ids = {*cls}, .type_id = 0},
                                          {.kind = TemplatePiece::kSequenceA, .type_id = 0},
                                          {.kind = TemplatePiece::kTokens, .ids = middle, .type_id = 0},
                                          {.kind = TemplatePiece::kSequenceB, .type_id = 1},
                                          {.kind = TemplatePiece::kTokens, .ids = {*sep}, .type_id = 1}};
    spec.post_processor =
        std::make_shared<const PostProcessor>(PostProcessor{.steps = {std::move(add)}, .name = "TemplateProcessing"});
  }
  return spec;
}

}  // namespace tokvec
