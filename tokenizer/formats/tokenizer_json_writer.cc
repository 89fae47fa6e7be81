// Hugging Face tokenizers' `tokenizer.json`, written (formats.h: WriteHfTokenizerJson).
//
// A tokenizer read from a tokenizer.json is written with the sections it was read with (TokenizerSpec::
// hf_sections: normalizer, pre-tokenizer, post-processor and decoder as they were), its added tokens, truncation
// and padding, and its model in the shape Hugging Face 0.23 writes (TokenizerModel::HfModelJson: BPE over code
// points, WordPiece, WordLevel, Unigram; a legacy untyped model gets its "type"). Byte-level models are written
// from any source, in the shapes the reader (tokenizer_json_format.cc) takes back: the pre-tokenizer's own form
// (PreTokenizer::ByteLevelJson: ByteLevel, Sequence [Split, ByteLevel], or an HfPreTokenizer's JSON as it was
// read); an ICU normalizer's NFC/NFKC/Lowercase steps; the ByteLevel decoder. A
// rank model (tiktoken) has no merge list: each token's merge is the split into two tokens that BPE with lower
// ranks gives (RecoverMerges, models/bpe/recover_merges.h), and ignore_merges is set, as tiktoken looks whole
// pieces up.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/formats/formats.h"
#include "tokenizer/models/bpe/recover_merges.h"
#include "tokenizer/processors/length_json.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

namespace {

// The added_tokens array; an error for a special token that is not valid UTF-8.
absl::StatusOr<OrderedJson> AddedTokensJson(const TokenizerSpec& spec) {
  OrderedJson added = OrderedJson::array();
  for (const SpecialToken& special : spec.special_tokens) {
    if (Utf8ValidEnd(special.text, 0) != special.text.size()) {
      return absl::FailedPreconditionError(
          fmt::format("special token {} is not valid UTF-8 and cannot be written to JSON", special.id));
    }
    added.push_back({{"id", special.id},
                     {"content", special.text},
                     {"single_word", special.single_word},
                     {"lstrip", special.lstrip},
                     {"rstrip", special.rstrip},
                     {"normalized", special.normalized},
                     {"special", special.special}});
  }
  return added;
}

// A model that is not byte-level: only from the sections of the tokenizer.json it was read from.
absl::StatusOr<std::string> WriteSpelledModelJson(const Tokenizer& tokenizer) {
  const TokenizerSpec& spec = tokenizer.spec();
  if (!spec.hf_sections) {
    return absl::FailedPreconditionError(fmt::format(
        "a {} model is written as tokenizer.json only when it was read from one (its normalizer, pre-tokenizer and "
        "decoder are written as they were); byte-level models are written from any source ({})",
        ModelTypeName(tokenizer.type()), kTrainByteLevel));
  }
  absl::StatusOr<std::string> model = tokenizer.model().HfModelJson();
  if (!model.ok()) return absl::FailedPreconditionError(model.status().message());
  TOKVEC_ASSIGN_OR_RETURN(const OrderedJson added, AddedTokensJson(spec));
  const HfJsonSections& sections = *spec.hf_sections;
  std::string text = R"({"version":"1.0","truncation":)";
  text += WriteHfTruncation(spec.truncation).dump();
  text += R"(,"padding":)" + WriteHfPadding(spec.padding).dump();
  text += R"(,"added_tokens":)" + added.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  text += R"(,"normalizer":)" + sections.normalizer;
  text += R"(,"pre_tokenizer":)" + sections.pre_tokenizer;
  text += R"(,"post_processor":)" + sections.post_processor;
  text += R"(,"decoder":)" + sections.decoder;
  text += R"(,"model":)" + *model + "}\n";
  return text;
}

}  // namespace

absl::StatusOr<std::string> WriteHfTokenizerJson(const Tokenizer& tokenizer) {
  if (tokenizer.byte_level() == nullptr) return WriteSpelledModelJson(tokenizer);
  const TokenizerSpec& spec = tokenizer.spec();
  const BpeModel& bpe = tokenizer.bpe();
  if (spec.affixes) {
    return absl::FailedPreconditionError(
        "a model with continuing_subword_prefix or end_of_word_suffix cannot be written (not supported yet)");
  }
  // 1. Normalizer steps (an ICU normalizer's); prefix_space becomes ByteLevel's add_prefix_space. A file read from
  // a tokenizer.json keeps its own sections instead (below).
  std::vector<std::string> steps;
  if (spec.normalizer != nullptr && !spec.hf_sections) {
    steps = spec.normalizer->IcuSteps();
    if (steps.empty()) {
      return absl::FailedPreconditionError(
          fmt::format("normalizer '{}' has no tokenizer.json form", spec.normalizer->name()));
    }
  }
  bool add_prefix_space = false;
  OrderedJson normalizers = OrderedJson::array();
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] == "prefix_space") {
      if (i + 1 != steps.size()) {
        return absl::FailedPreconditionError("prefix_space must be the last normalizer step for tokenizer.json");
      }
      add_prefix_space = true;
    } else if (steps[i] == "nfc" || steps[i] == "nfkc") {
      normalizers.push_back({{"type", steps[i] == "nfc" ? "NFC" : "NFKC"}});
    } else if (steps[i] == "lowercase") {
      normalizers.push_back({{"type", "Lowercase"}});
    } else {
      return absl::FailedPreconditionError(fmt::format("normalizer step '{}' has no tokenizer.json form", steps[i]));
    }
  }
  // 2. Pre-tokenizer: its own byte-level form.
  OrderedJson pre_tokenizer;
  if (!spec.hf_sections) {
    TOKVEC_ASSIGN_OR_RETURN(const std::string own, spec.pre_tokenizer->ByteLevelJson(add_prefix_space));
    pre_tokenizer = OrderedJson::parse(own);
  }
  // 3. Model: vocab in id order, merges in rank order.
  // Written as text: ordered_json's object insertion is a linear search, quadratic for 200k tokens.
  // Special tokens are in the vocab too: Hugging Face gives an added token that is not in the vocab the next
  // free id (vocab size + k), ignoring the id written in added_tokens, which breaks gaps like cl100k's 100256.
  std::vector<std::string> spellings(std::max<size_t>(bpe.size(), tokenizer.vocab_size()));
  for (TokenId id = 0; id < bpe.size(); ++id) {
    if (!bpe.token(id).empty()) spellings[id] = BytesToUnicode(bpe.token(id));
  }
  for (const SpecialToken& special : spec.special_tokens) {
    if (spellings[special.id].empty()) spellings[special.id] = special.text;
  }
  std::vector<bool> empty_token(spellings.size(), false);  // An unreachable entry spelled "" is written too.
  for (const UnreachableToken& unreachable : spec.unreachable_tokens) {
    if (unreachable.id >= spellings.size()) continue;
    spellings[unreachable.id] = unreachable.spelling;
    empty_token[unreachable.id] = unreachable.spelling.empty();
  }
  std::string vocab = "{";
  for (size_t id = 0; id < spellings.size(); ++id) {
    if (spellings[id].empty() && !empty_token[id]) continue;
    if (vocab.size() > 1) vocab += ',';
    vocab += Json(spellings[id]).dump(-1, ' ', false, Json::error_handler_t::replace);
    vocab += ':';
    vocab += std::to_string(id);
  }
  vocab += '}';
  std::string merges = "[";
  auto add_merge = [&](const BpeModel::MergePair& pair) {
    if (merges.size() > 1) merges += ',';
    merges += '[';
    merges += Json(BytesToUnicode(bpe.token(pair.left))).dump();
    merges += ',';
    merges += Json(BytesToUnicode(bpe.token(pair.right))).dump();
    merges += ']';
  };
  bool ignore_merges = spec.ignore_merges;
  if (bpe.rule() == BpeModel::Rule::kMergeList) {
    for (const BpeModel::MergePair& pair : bpe.merges()) add_merge(pair);
  } else {
    for (const BpeModel::MergePair& pair : RecoverMerges(bpe)) add_merge(pair);
    ignore_merges = true;
  }
  merges += ']';
  TOKVEC_ASSIGN_OR_RETURN(const OrderedJson added, AddedTokensJson(spec));
  OrderedJson root = {
      {"version", "1.0"},
      {"truncation", WriteHfTruncation(spec.truncation)},
      {"padding", WriteHfPadding(spec.padding)},
      {"added_tokens", added},
      {"normalizer", normalizers.empty()       ? OrderedJson(nullptr)
                     : normalizers.size() == 1 ? normalizers[0]
                                               : OrderedJson{{"type", "Sequence"}, {"normalizers", normalizers}}},
      {"pre_tokenizer", pre_tokenizer},
      {"post_processor", nullptr},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", nullptr},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", false},
        {"byte_fallback", false},
        {"ignore_merges", ignore_merges},
        {"vocab", nullptr},
        {"merges", nullptr}}},
  };
  if (spec.hf_sections) {  // Read from a tokenizer.json: its sections as they were.
    root["normalizer"] = OrderedJson::parse(spec.hf_sections->normalizer);
    root["pre_tokenizer"] = OrderedJson::parse(spec.hf_sections->pre_tokenizer);
    root["post_processor"] = OrderedJson::parse(spec.hf_sections->post_processor);
    root["decoder"] = OrderedJson::parse(spec.hf_sections->decoder);
  }
  // The model is the last key and vocab, merges its last two: put their text in place of the nulls.
  std::string text = root.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  constexpr std::string_view kTail = R"("vocab":null,"merges":null}})";
  if (text.size() < kTail.size() || text.compare(text.size() - kTail.size(), kTail.size(), kTail) != 0) {
    return absl::InternalError("tokenizer.json writer: unexpected layout");
  }
  text.resize(text.size() - kTail.size());
  return text + R"("vocab":)" + vocab + R"(,"merges":)" + merges + "}}\n";
}

}  // namespace tokvec
