// Hugging Face tokenizers' `tokenizer.json` for byte-level BPE models (https://github.com/huggingface/tokenizers,
// tokenizers/src/tokenizer/serialization.rs). What is read:
//   model             {"type": "BPE", "vocab": {spelling: id}, "merges": ["a b", ...] or [["a", "b"], ...],
//                      "ignore_merges": bool, "continuing_subword_prefix", "end_of_word_suffix" (CLIP's "</w>";
//                      bpe_affixes.h: then also unk_token, fuse_unk, byte_fallback, and the decoder)
//   pre_tokenizer     ByteLevel {add_prefix_space, use_regex}  (use_regex: GPT-2's pattern, our preset gpt2), or
//                     a Sequence of one ByteLevel and Split {pattern: {Regex | String}, behavior, invert}, Digits,
//                     Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, UnicodeScripts,
//                     BertPreTokenizer in any order (pre_tokenizer_json.h: Hugging Face's semantics, fast shapes)
//   normalizer        null, NFC, NFKC, Lowercase, or a Sequence of them (add_prefix_space joins as prefix_space)
//   added_tokens      [{id, content, special, single_word, lstrip, rstrip, normalized}]: special ones are matched
//                     only when allowed (EncodeOptions, --allow-special), the others always, as Hugging Face does
//                     (tokenizer/added_token_matcher.h; normalized ones in the normalized text)
//   post_processor    TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel, Sequence
//                     (tokenizer/processors/post_processor_json.h): tokens added with EncodeOptions::add_special_tokens,
//                     offsets trimmed always; the pair template and type ids lay out sentence pairs
//                     (tokenizer/sequence_encoding.h)
//   truncation,       Hugging Face's max_length / stride / strategy / direction and padding strategy / direction /
//   padding           pad_to_multiple_of / pad_id (tokenizer/processors/length_json.h), kept in the spec and applied
//                     by EncodeSequences (tokenizer/sequence_encoding.h) and `tokvec encode`, not by Tokenizer::Encode
// Vocabulary entries spelled outside the byte alphabet (or empty) load as unreachable tokens (no input reaches
// them; TokenizerSpec::unreachable_tokens), as Hugging Face loads them.
// The decoder of a byte-level model without affixes does not change what Decode gives and is not read.
// Offsets are Hugging Face's: every spec read here sets whole_character_offsets (tokenizer/text/character_offsets.h),
// so a token holding part of a multi-byte character covers the whole character.
//
// WordPiece models (BERT, all-MiniLM):
//   model             {"type": "WordPiece", "vocab": {spelling: id}, "unk_token": "[UNK]",
//                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100}
//   normalizer        as above, plus BertNormalizer {clean_text, handle_chinese_chars, strip_accents (null:
//                     as lowercase), lowercase}, NFD, NFKD, StripAccents
//   pre_tokenizer     BertPreTokenizer, WhitespaceSplit (fast, cut before ASCII white space for chunked encodes),
//                     or any pre_tokenizer a BPE model over code points takes (below: null, Metaspace, a Sequence of
//                     splitters with at most one Metaspace; the text is then encoded in one piece)
//   decoder           null (spellings joined by spaces) or WordPiece {prefix, cleanup}
//   added_tokens      as above; post_processor as above ([CLS] ... [SEP])
//
// SentencePiece-style BPE over code points (Llama-2, Mistral v0.1 / v0.3, Mixtral, Yi; ModelType::kChar), chosen
// when the pre-tokenizer is not ByteLevel (or a Sequence holding one):
//   model             {"type": "BPE", "vocab", "merges" (either form), "unk_token": string or null,
//                      "fuse_unk", "byte_fallback", "ignore_merges", "dropout": null, "continuing_subword_prefix",
//                      "end_of_word_suffix" (bpe_affixes.h)}
//   normalizer        as above, plus Prepend {prepend}, Replace {pattern: {String | Regex}, content},
//                     Strip {strip_left, strip_right} (normalizers/normalizer_json.h), also inside a Sequence
//   pre_tokenizer     null (the normalized text is one piece), Metaspace {replacement, prepend_scheme, split}
//                     (metaspace_pre_tokenizer.h; Mistral v0.3: "first", split false), or a Sequence of the
//                     splitters of pre_tokenizer_json.h (Split, Digits, Punctuation, Whitespace, WhitespaceSplit,
//                     CharDelimiterSplit, UnicodeScripts, BertPreTokenizer) with at most one Metaspace among them
//                     (metaspace_sequence_pre_tokenizer.h); each piece is merged on its own
//   decoder           null (spellings joined by spaces), Replace, ByteFallback, Fuse, Strip {content, start,
//                     stop}, Metaspace {replacement, prepend_scheme}, ByteLevel, WordPiece, BPEDecoder {suffix},
//                     or a Sequence of them
//   added_tokens      as above
//
// Unigram models (T5, XLM-R, ALBERT, Marian; unigram_model.h):
//   model             {"type": "Unigram", "vocab": [["piece", score], ...], "unk_id": N or null, "byte_fallback": bool}
//   normalizer        as above, plus Precompiled {precompiled_charsmap: base64} (precompiled_normalizer.h), also
//                     in the top Sequence
//   pre_tokenizer     Metaspace {replacement, prepend_scheme, split, add_prefix_space}, Sequence [WhitespaceSplit,
//                     Metaspace] (metaspace_pre_tokenizer.h), WhitespaceSplit, or any other pre_tokenizer a BPE model
//                     over code points takes (a Sequence of splitters with at most one Metaspace, null)
//   decoder           as for BPE over code points: Decode runs it on the token spellings (special tokens' text
//                     included), as Hugging Face's decode(ids, skip_special_tokens=false) does; T5 / XLM-R files
//                     have Metaspace, newer conversions Sequence [Replace, ByteFallback, Fuse, Strip]
//   added_tokens      as above
//
// WordLevel models (word-level and custom tokenizers; wordlevel_model.h):
//   model             {"type": "WordLevel", "vocab": {"word": id}, "unk_token": "<unk>"} (both keys required)
//   normalizer, pre_tokenizer, decoder, added_tokens   as for BPE over code points (WhitespaceSplit fast)
//
// The model's kind is its "type"; a model without one (files of older tokenizers versions: bert-base-uncased's, T5's)
// is the first kind whose fields it has, in Hugging Face's order (HfModelKind). Post-processors, normalizers and
// decoders without "type" read likewise as Hugging Face's untagged fallbacks do (their readers' *Kind functions;
// a post-processor's fields decide its kind even over its "type").
//
// Loading: model.vocab (an object) and model.merges are scanned into flat arrays by tokenizer_json_vocab.h and only
// the rest goes to the JSON DOM; readers take them with TakeVocab / TakeMerges, which read the DOM's instead when
// the scanner did not divert them. A file the fast path does not read to a tokenizer is read again through the DOM
// alone (ReadHfTokenizerJsonViaDom), which decides errors and odd shapes (a repeated key keeps its last id).
//
// Each component reads its own form (models/bpe/bpe_json.h, models/wordpiece/wordpiece_json.h,
// models/unigram/unigram_json.h, models/wordlevel/wordlevel_json.h, normalizers/normalizer_json.h, pre_tokenizers/pre_tokenizer_json.h,
// processors/post_processor_json.h, decoders/decoder_json.h); this file takes the vocabulary and merges (scanned or
// from the DOM), picks the model kind, reads the added tokens and assembles the TokenizerSpec. The writer is
// tokenizer_json_writer.cc.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "tokenizer/decoders/decoder_json.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/formats/spelled_vocab.h"
#include "tokenizer/formats/tokenizer_json_vocab.h"
#include "tokenizer/models/bpe/bpe_json.h"
#include "tokenizer/models/unigram/unigram_json.h"
#include "tokenizer/models/wordlevel/wordlevel_json.h"
#include "tokenizer/models/wordpiece/wordpiece_json.h"
#include "tokenizer/processors/length_json.h"
#include "tokenizer/normalizers/normalizer_json.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer_json.h"
#include "tokenizer/processors/post_processor_json.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/tokenizer_json_fields.h"

namespace tokvec {
namespace {

using Json = nlohmann::json;

// model.vocab as flat (spelling, id) pairs: what the fast path scanned (tokenizer_json_vocab.h), else read from the
// DOM. Scanned pairs keep a repeated spelling (the DOM keeps its last id, as Hugging Face does): a reader must
// fail on one, and ReadHfTokenizerJson then reads the file again through the DOM.
absl::StatusOr<FlatVocab> TakeVocab(const Json& model, HfModelTables& tables, const std::string& path) {
  if (tables.vocab) return std::move(*tables.vocab);
  if (!model.contains("vocab") || !model["vocab"].is_object()) {
    return HfKeyError(path, "model.vocab", "missing or not an object {\"spelling\": id}");
  }
  FlatVocab vocab;
  for (const auto& [spelling, id] : model["vocab"].items()) {
    if (!id.is_number_unsigned()) {
      return HfKeyError(path, fmt::format("model.vocab.{}", spelling), "the id must be a non-negative integer");
    }
    vocab.Add(spelling, id.get<uint64_t>());
  }
  return vocab;
}

// model.merges by spelling, in rank order: what the fast path scanned, else read from the DOM.
absl::StatusOr<FlatMerges> TakeMerges(const Json& model, HfModelTables& tables, const std::string& path) {
  if (tables.merges) return std::move(*tables.merges);
  if (!model.contains("merges") || !model["merges"].is_array()) {
    return HfKeyError(path, "model.merges", "missing or not an array");
  }
  const Json& merges = model["merges"];
  FlatMerges flat;
  for (size_t i = 0; i < merges.size(); ++i) {
    const Json& merge = merges[i];
    if (merge.is_string()) {
      const std::string spelled = merge.get<std::string>();
      const size_t space = spelled.find(' ');
      if (space == std::string::npos || spelled.find(' ', space + 1) != std::string::npos) {
        return HfKeyError(path, fmt::format("model.merges[{}]", i),
                        fmt::format("expected \"LEFT RIGHT\" (one space), got '{}'", spelled));
      }
      flat.Add(std::string_view(spelled).substr(0, space), std::string_view(spelled).substr(space + 1));
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      flat.Add(merge[0].get<std::string>(), merge[1].get<std::string>());
    } else {
      return HfKeyError(path, fmt::format("model.merges[{}]", i), "expected \"LEFT RIGHT\" or [\"LEFT\", \"RIGHT\"]");
    }
  }
  return flat;
}

// Where a JSON text stops parsing: the dotted path of the key being read (re-parses with a callback; only
// called on the error path).
std::string FailingKey(std::string_view text) {
  std::vector<std::string> path;
  std::vector<bool> in_array;
  std::string pending_key;
  auto callback = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::key:
        pending_key = parsed.get<std::string>();
        break;
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        path.push_back(pending_key);
        in_array.push_back(event == Json::parse_event_t::array_start);
        pending_key.clear();
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!path.empty()) path.pop_back();
        if (!in_array.empty()) in_array.pop_back();
        break;
      case Json::parse_event_t::value:
        break;
    }
    // Keep no values (only the path matters); containers must start to be walked.
    return event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start ||
           event == Json::parse_event_t::key;
  };
  Json discarded = Json::parse(text, callback, /*allow_exceptions=*/false);
  (void)discarded;
  std::string key;
  for (const std::string& part : path) {
    if (part.empty()) continue;
    if (!key.empty()) key += '.';
    key += part;
  }
  if (!pending_key.empty()) key += (key.empty() ? "" : ".") + pending_key;
  return key.empty() ? "(top level)" : key;
}

// An added token's Hugging Face flags (special, single_word, lstrip, rstrip, normalized); absent ones keep
// tokvec's defaults (special, matched in the input).
absl::Status ReadAddedTokenFlags(const Json& token, const std::string& path, const std::string& key,
                                 SpecialToken* out) {
  for (auto [name, flag] : {std::pair{"special", &out->special}, std::pair{"single_word", &out->single_word},
                            std::pair{"lstrip", &out->lstrip}, std::pair{"rstrip", &out->rstrip},
                            std::pair{"normalized", &out->normalized}}) {
    if (!token.contains(name) || token[name].is_null()) continue;
    if (!token[name].is_boolean()) return HfKeyError(path, fmt::format("{}.{}", key, name), "expected true or false");
    *flag = token[name].get<bool>();
  }
  return absl::OkStatus();
}

// Appends the added tokens to `special_tokens`. `model_size` is one past the model's largest id and `spelling`
// gives a model token's tokenizer.json spelling (empty for an id no token has).
template <typename Spelling>
absl::Status ReadAddedTokens(const Json& json, const std::string& path, size_t model_size, Spelling spelling,
                             std::vector<SpecialToken>* special_tokens) {
  if (!json.contains("added_tokens") || json["added_tokens"].is_null()) return absl::OkStatus();
  const Json& added = json["added_tokens"];
  if (!added.is_array()) return HfKeyError(path, "added_tokens", "expected an array");
  for (size_t i = 0; i < added.size(); ++i) {
    const Json& token = added[i];
    if (!token.is_object() || !token.contains("id") || !token["id"].is_number_unsigned() ||
        !token.contains("content") || !token["content"].is_string() || token["content"].get<std::string>().empty()) {
      return HfKeyError(path, fmt::format("added_tokens[{}]", i), "expected {\"id\": N, \"content\": \"...\"}");
    }
    const uint64_t id = token["id"].get<uint64_t>();
    const std::string content = token["content"].get<std::string>();
    // Ids far beyond the vocabulary would make every per-id table huge: refuse them.
    const uint64_t max_id = model_size + added.size() + 65536;
    if (id > max_id) {
      return HfKeyError(path, fmt::format("added_tokens[{}].id", i),
                      fmt::format("id {} is far beyond the {} vocabulary tokens", id, model_size));
    }
    if (id < model_size) {
      const std::string in_vocab = spelling(static_cast<TokenId>(id));
      if (!in_vocab.empty() && in_vocab != content) {
        return HfKeyError(path, fmt::format("added_tokens[{}]", i),
                        fmt::format("'{}' has id {}, which is the vocabulary token '{}'", content, id, in_vocab));
      }
    }
    SpecialToken read{content, static_cast<TokenId>(id)};
    TOKVEC_RETURN_IF_ERROR(ReadAddedTokenFlags(token, path, fmt::format("added_tokens[{}]", i), &read));
    for (const SpecialToken& earlier : *special_tokens) {
      if (earlier.id == read.id && earlier.text != read.text) {
        return HfKeyError(path, fmt::format("added_tokens[{}].id", i),
                        fmt::format("id {} is given to both '{}' and '{}'", id, earlier.text, read.text));
      }
    }
    special_tokens->push_back(std::move(read));
  }
  return absl::OkStatus();
}

// The post_processor (tokenizer/processors/post_processor_json.h), truncation and padding (processors/length_json.h)
// of `json` into `spec`; post_processor ids must be below its vocabulary.
absl::Status ReadProcessingOf(const Json& json, const std::string& path, size_t model_size, TokenizerSpec* spec) {
  TOKVEC_ASSIGN_OR_RETURN(spec->truncation, ReadHfTruncation(json, path));
  TOKVEC_ASSIGN_OR_RETURN(spec->padding, ReadHfPadding(json, path));
  if (!json.contains("post_processor")) return absl::OkStatus();
  size_t vocab_size = model_size;
  for (const SpecialToken& token : spec->special_tokens) vocab_size = std::max<size_t>(vocab_size, token.id + size_t{1});
  TOKVEC_ASSIGN_OR_RETURN(spec->post_processor, ReadHfPostProcessor(json["post_processor"], path, vocab_size));
  return absl::OkStatus();
}

// The normalizer of `json` (normalizers/normalizer_json.h), with `extra_steps` after it.
absl::StatusOr<std::unique_ptr<Normalizer>> ReadNormalizerOf(const Json& json, const std::string& path,
                                                             const std::vector<std::string>& extra_steps) {
  return ReadHfNormalizer(json.contains("normalizer") ? &json["normalizer"] : nullptr, path, extra_steps);
}

// The pre_tokenizer of `json`, nullptr when absent.
const Json* PreTokenizerOf(const Json& json) {
  return json.contains("pre_tokenizer") ? &json["pre_tokenizer"] : nullptr;
}

// The model kind Hugging Face reads (tokenizers/src/models/mod.rs): the "type" when the model has one (its JSON
// text when it is not a string, for the message); else, as it reads files written before the field existed, the
// first kind whose fields are all there, in its order: BPE (an object vocab and merges), WordPiece (an object vocab,
// unk_token, continuing_subword_prefix, max_input_chars_per_word), WordLevel (an object vocab and unk_token; the
// WordPiece fields are a superset, so it comes after), Unigram (a vocab array). Nullopt when none fits.
std::optional<std::string> HfModelKind(const Json& model, const HfModelTables& tables) {
  if (model.contains("type")) {
    return model["type"].is_string() ? model["type"].get<std::string>() : model["type"].dump();
  }
  auto has = [&](const char* key) { return model.contains(key); };
  const bool object_vocab = tables.vocab.has_value() || (has("vocab") && model["vocab"].is_object());
  if (object_vocab && has("merges")) return "BPE";
  if (object_vocab && has("unk_token") && has("continuing_subword_prefix") && has("max_input_chars_per_word")) {
    return "WordPiece";
  }
  if (object_vocab && has("unk_token")) return "WordLevel";
  if (has("vocab") && model["vocab"].is_array()) return "Unigram";
  return std::nullopt;
}

// A WordPiece model (see the header); `json` is the whole file.
absl::StatusOr<TokenizerSpec> ReadWordPiece(const Json& json, const std::string& path, HfModelTables& tables) {
  const Json& model = json["model"];
  // 1. The model (models/wordpiece/wordpiece_json.h).
  TOKVEC_ASSIGN_OR_RETURN(WordPieceModel::Options options, ReadHfWordPieceOptions(model, path));
  TOKVEC_ASSIGN_OR_RETURN(const FlatVocab flat, TakeVocab(model, tables, path));
  TOKVEC_ASSIGN_OR_RETURN(WordPieceModel wordpiece, MakeHfWordPieceModel(flat, std::move(options), path));
  TOKVEC_ASSIGN_OR_RETURN(BpeModel no_bpe, BpeModel::FromMerges({}, {}));
  TokenizerSpec spec{.type = ModelType::kWordPiece, .bpe = std::move(no_bpe)};
  spec.wordpiece = std::move(wordpiece);
  spec.source = path;
  // 2. Pre-tokenizer (fast: BertPreTokenizer, WhitespaceSplit; any other shape has Hugging Face's semantics and no
  // cut for chunked encodes), normalizer, decoder.
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer,
                          ReadHfCodePointPreTokenizer(PreTokenizerOf(json), path, "WordPiece",
                                                      {.bert = true, .whitespace_split = true}));
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, ReadNormalizerOf(json, path, {}));
  TOKVEC_ASSIGN_OR_RETURN(spec.decoder,
                          ReadHfWordPieceDecoder(json.contains("decoder") ? &json["decoder"] : nullptr, path));
  // 3. Added tokens.
  TOKVEC_RETURN_IF_ERROR(ReadAddedTokens(json, path, spec.wordpiece.size(),
                                         [&](TokenId id) { return spec.wordpiece.token(id); },
                                         &spec.special_tokens));
  TOKVEC_RETURN_IF_ERROR(ReadProcessingOf(json, path, spec.wordpiece.size(), &spec));
  return spec;
}

// A Unigram model (see the header); `json` is the whole file.
absl::StatusOr<TokenizerSpec> ReadUnigram(const Json& json, const std::string& path) {
  // 1. The model (models/unigram/unigram_json.h).
  TOKVEC_ASSIGN_OR_RETURN(UnigramModel unigram, ReadHfUnigramModel(json["model"], path));
  TOKVEC_ASSIGN_OR_RETURN(BpeModel no_bpe, BpeModel::FromMerges({}, {}));
  TokenizerSpec spec{.type = ModelType::kUnigram, .bpe = std::move(no_bpe)};
  spec.unigram = std::move(unigram);
  spec.source = path;
  // 2. Pre-tokenizer (fast: Metaspace, WhitespaceSplit, [WhitespaceSplit, Metaspace]; else any splitters around at
  // most one Metaspace, or null, as for BPE over code points), normalizer, decoder.
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer,
                          ReadHfCodePointPreTokenizer(PreTokenizerOf(json), path, "Unigram",
                                                      {.whitespace_split = true, .whitespace_metaspace = true}));
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, ReadNormalizerOf(json, path, {}));
  TOKVEC_ASSIGN_OR_RETURN(spec.token_decoder, ReadHfDecoder(json.contains("decoder") ? json["decoder"] : Json(), path));
  // 3. Added tokens.
  TOKVEC_RETURN_IF_ERROR(ReadAddedTokens(json, path, spec.unigram.size(),
                                         [&](TokenId id) { return spec.unigram.token(id); },
                                         &spec.special_tokens));
  TOKVEC_RETURN_IF_ERROR(ReadProcessingOf(json, path, spec.unigram.size(), &spec));
  return spec;
}

// A WordLevel model (see the header); `json` is the whole file.
absl::StatusOr<TokenizerSpec> ReadWordLevel(const Json& json, const std::string& path, HfModelTables& tables) {
  const Json& model = json["model"];
  // 1. The model (models/wordlevel/wordlevel_json.h).
  TOKVEC_ASSIGN_OR_RETURN(std::string unk_token, ReadHfWordLevelUnk(model, path));
  TOKVEC_ASSIGN_OR_RETURN(const FlatVocab flat, TakeVocab(model, tables, path));
  TOKVEC_ASSIGN_OR_RETURN(WordLevelModel wordlevel, MakeHfWordLevelModel(flat, std::move(unk_token), path));
  TOKVEC_ASSIGN_OR_RETURN(BpeModel no_bpe, BpeModel::FromMerges({}, {}));
  TokenizerSpec spec{.type = ModelType::kWordLevel, .bpe = std::move(no_bpe)};
  spec.wordlevel = std::move(wordlevel);
  spec.source = path;
  // 2. Pre-tokenizer (fast: WhitespaceSplit; null: the normalized text is one word), normalizer, decoder (null:
  // spellings joined by spaces).
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer, ReadHfCodePointPreTokenizer(PreTokenizerOf(json), path, "WordLevel",
                                                                          {.whitespace_split = true}));
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, ReadNormalizerOf(json, path, {}));
  TOKVEC_ASSIGN_OR_RETURN(spec.token_decoder, ReadHfDecoder(json.contains("decoder") ? json["decoder"] : Json(), path));
  // 3. Added tokens.
  TOKVEC_RETURN_IF_ERROR(ReadAddedTokens(json, path, spec.wordlevel.size(),
                                         [&](TokenId id) { return spec.wordlevel.token(id); },
                                         &spec.special_tokens));
  TOKVEC_RETURN_IF_ERROR(ReadProcessingOf(json, path, spec.wordlevel.size(), &spec));
  return spec;
}

// A byte-level model with affixes: its unk_token, fuse_unk and byte_fallback (Hugging Face applies them to an
// affixed byte with no token, e.g. CLIP's "x</w>"), and the "<0xNN>" tokens.
absl::Status ReadByteLevelAffixExtras(const Json& json, const std::string& path, const BpeModel& bpe,
                                      BpeAffixes* affixes) {
  TOKVEC_ASSIGN_OR_RETURN(affixes->unknown, ReadHfBpeUnknown(json["model"], path, [&](const std::string& unk) {
                            std::optional<std::string> bytes = UnicodeToBytes(unk);
                            return bytes ? bpe.Find(*bytes) : std::nullopt;
                          }));
  affixes->fallback_ids = FallbackTokenIds(bpe);
  return absl::OkStatus();
}

// The vocabulary, merges and word affixes of a BPE model spelled in the byte alphabet (byte_level) or in code
// points, built into a BpeModel; `unreachable` (byte-level only) receives the entries no input reaches.
struct SpelledBpe {
  BpeModel bpe;
  std::optional<BpeAffixes> affixes;
};
absl::StatusOr<SpelledBpe> ReadSpelledBpe(const Json& model, HfModelTables& tables, const std::string& path,
                                          bool byte_level, std::vector<UnreachableToken>* unreachable) {
  TOKVEC_RETURN_IF_ERROR(CheckHfBpeDropout(model, path));
  SpelledVocab vocab;
  TOKVEC_ASSIGN_OR_RETURN(vocab.tokens, TakeVocab(model, tables, path));
  TOKVEC_ASSIGN_OR_RETURN(vocab.merges, TakeMerges(model, tables, path));
  vocab.merge_where = [&](size_t rank) { return fmt::format("{}: key 'model.merges[{}]'", path, rank); };
  TOKVEC_ASSIGN_OR_RETURN(std::optional<BpeAffixes> affixes, ReadHfBpeAffixes(model, vocab.merges, path, byte_level));
  TOKVEC_ASSIGN_OR_RETURN(BpeModel bpe, BuildSpelledBpe(vocab, fmt::format("{}: key 'model.vocab'", path),
                                                        unreachable, byte_level, affixes ? affixes->prefix.size() : 0));
  return SpelledBpe{.bpe = std::move(bpe), .affixes = std::move(affixes)};
}

// A BPE model over code points (SentencePiece-style: Llama-2, Mistral, Yi; see the header); `json` is the whole
// file.
absl::StatusOr<TokenizerSpec> ReadCharBpe(const Json& json, const std::string& path, HfModelTables& tables) {
  const Json& model = json["model"];
  // 1. Options.
  if (model.contains("ignore_merges") && !model["ignore_merges"].is_null() && !model["ignore_merges"].is_boolean()) {
    return HfKeyError(path, "model.ignore_merges", "expected true or false");
  }
  const bool ignore_merges = model.contains("ignore_merges") && model["ignore_merges"].is_boolean() &&
                             model["ignore_merges"].get<bool>();
  TOKVEC_ASSIGN_OR_RETURN(SpelledBpe spelled, ReadSpelledBpe(model, tables, path, /*byte_level=*/false, nullptr));
  BpeModel& bpe = spelled.bpe;
  std::optional<BpeAffixes>& affixes = spelled.affixes;
  TOKVEC_ASSIGN_OR_RETURN(const CharBpeOptions options,
                          ReadHfBpeUnknown(model, path, [&](const std::string& unk) { return bpe.Find(unk); }));
  if (affixes) {
    affixes->unknown = options;
    affixes->fallback_ids = FallbackTokenIds(bpe);
  }
  TokenizerSpec spec{.type = ModelType::kChar, .bpe = std::move(bpe)};
  spec.char_bpe = options;
  spec.affixes = std::move(affixes);
  spec.ignore_merges = ignore_merges;
  spec.source = path;
  // 2. Pre-tokenizer (null: the normalized text is one piece; each piece is merged on its own), normalizer, decoder.
  TOKVEC_ASSIGN_OR_RETURN(spec.pre_tokenizer, ReadHfCodePointPreTokenizer(PreTokenizerOf(json), path, "BPE"));
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, ReadNormalizerOf(json, path, {}));
  TOKVEC_ASSIGN_OR_RETURN(spec.token_decoder, ReadHfDecoder(json.contains("decoder") ? json["decoder"] : Json(), path));
  // 3. Added tokens.
  TOKVEC_RETURN_IF_ERROR(ReadAddedTokens(json, path, spec.bpe.size(),
                                         [&](TokenId id) { return spec.bpe.token(id); }, &spec.special_tokens));
  TOKVEC_RETURN_IF_ERROR(ReadProcessingOf(json, path, spec.bpe.size(), &spec));
  return spec;
}

// The reader of a parsed file (an object); model.vocab and model.merges come from `tables` when it holds them.
absl::StatusOr<TokenizerSpec> ReadParsedTokenizerJson(const Json& json, const std::string& path,
                                                      HfModelTables& tables) {
  // 1. The model.
  if (!json.contains("model") || !json["model"].is_object()) return HfKeyError(path, "model", "missing");
  const Json& model = json["model"];
  const std::optional<std::string> kind = HfModelKind(model, tables);
  if (!kind) {
    return HfKeyError(path, "model",
                      "no \"type\", and not the fields of a model Hugging Face reads without one (BPE: vocab and "
                      "merges; WordPiece: vocab, unk_token, continuing_subword_prefix, max_input_chars_per_word; "
                      "WordLevel: vocab and unk_token; Unigram: vocab as [piece, score] pairs)");
  }
  if (*kind == "WordPiece") return ReadWordPiece(json, path, tables);
  if (*kind == "Unigram") return ReadUnigram(json, path);
  if (*kind == "WordLevel") return ReadWordLevel(json, path, tables);
  if (*kind != "BPE") {
    return HfKeyError(path, model.contains("type") ? "model.type" : "model",
                      fmt::format("only BPE, WordPiece, WordLevel and Unigram models are supported, got {}",
                                  model.contains("type") ? model["type"].dump() : Json(*kind).dump()));
  }
  if (!HfPreTokenizerIsByteLevel(PreTokenizerOf(json))) return ReadCharBpe(json, path, tables);
  std::vector<UnreachableToken> unreachable;  // Hugging Face loads entries no input reaches: so do we.
  TOKVEC_ASSIGN_OR_RETURN(SpelledBpe spelled,
                          ReadSpelledBpe(model, tables, path, /*byte_level=*/true, &unreachable));
  BpeModel& bpe = spelled.bpe;
  std::optional<BpeAffixes>& affixes = spelled.affixes;
  if (affixes) TOKVEC_RETURN_IF_ERROR(ReadByteLevelAffixExtras(json, path, bpe, &*affixes));
  TokenizerSpec spec = ByteLevelSpec(std::move(bpe));
  if (affixes && json.contains("decoder")) {
    TOKVEC_ASSIGN_OR_RETURN(spec.token_decoder, ReadHfDecoder(json["decoder"], path));
  }
  spec.affixes = std::move(affixes);
  spec.unreachable_tokens = std::move(unreachable);
  spec.source = path;
  spec.ignore_merges = model.contains("ignore_merges") && model["ignore_merges"].is_boolean() &&
                       model["ignore_merges"].get<bool>();
  // 2. Pre-tokenizer and normalizer.
  if (!json.contains("pre_tokenizer")) return HfKeyError(path, "pre_tokenizer", "missing");
  TOKVEC_ASSIGN_OR_RETURN(HfPreTokenizerChoice choice, ReadHfByteLevelPreTokenizer(json["pre_tokenizer"], path));
  spec.pre_tokenizer = std::move(choice.pre_tokenizer);
  std::vector<std::string> prefix_step;
  if (choice.add_prefix_space) prefix_step.push_back("prefix_space");
  TOKVEC_ASSIGN_OR_RETURN(spec.normalizer, ReadNormalizerOf(json, path, prefix_step));
  // 3. Added tokens.
  TOKVEC_RETURN_IF_ERROR(ReadAddedTokens(json, path, spec.bpe.size(),
                                         [&](TokenId id) {
                                           for (const UnreachableToken& u : spec.unreachable_tokens) {
                                             if (u.id == id) return u.spelling;
                                           }
                                           return BytesToUnicode(spec.bpe.token(id));
                                         },
                                         &spec.special_tokens));
  TOKVEC_RETURN_IF_ERROR(ReadProcessingOf(json, path, spec.bpe.size(), &spec));
  return spec;
}

// The reader: `text` goes to the DOM; model.vocab and model.merges come from `tables` when it holds them. The
// spec keeps the file's sections as they were (HfJsonSections).
absl::StatusOr<TokenizerSpec> ReadTokenizerJson(std::string_view text, const std::string& path,
                                                HfModelTables& tables) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: not valid JSON (truncated?); parsing stopped inside key '{}'{}", path, FailingKey(text),
        tables.scan_error.empty() ? "" : fmt::format(" ({})", tables.scan_error)));
  }
  if (!json.is_object()) return HfKeyError(path, "(top level)", "expected a JSON object");
  absl::StatusOr<TokenizerSpec> spec = ReadParsedTokenizerJson(json, path, tables);
  if (!spec.ok()) return spec;
  auto section = [&](const char* key) {
    return json.contains(key) ? json[key].dump(-1, ' ', false, Json::error_handler_t::replace) : std::string("null");
  };
  spec->hf_sections = HfJsonSections{.normalizer = section("normalizer"),
                                     .pre_tokenizer = section("pre_tokenizer"),
                                     .post_processor = section("post_processor"),
                                     .decoder = section("decoder")};
  return spec;
}

// Hugging Face's offsets cover whole characters of the input (tokenizer/text/character_offsets.h).
absl::StatusOr<TokenizerSpec> WithHfOffsets(absl::StatusOr<TokenizerSpec> spec) {
  if (spec.ok()) spec->whole_character_offsets = true;
  return spec;
}

}  // namespace

// The fast path first (tokenizer_json_vocab.h); whatever it does not read to a tokenizer, the DOM reads whole, so
// odd shapes, repeated keys and every error message are the DOM reader's.
absl::StatusOr<TokenizerSpec> ReadHfTokenizerJson(std::string_view text, const std::string& path) {
  HfModelTables tables = DivertModelTables(text);
  if (tables.diverted()) {
    absl::StatusOr<TokenizerSpec> spec = ReadTokenizerJson(tables.rest, path, tables);
    if (spec.ok()) return WithHfOffsets(std::move(spec));
    tables = HfModelTables{};
  }
  return WithHfOffsets(ReadTokenizerJson(text, path, tables));
}

absl::StatusOr<TokenizerSpec> ReadHfTokenizerJsonViaDom(std::string_view text, const std::string& path) {
  HfModelTables none;
  return WithHfOffsets(ReadTokenizerJson(text, path, none));
}

}  // namespace tokvec
