// Small tokenizers built in-process from fuzz input, for the encode/decode fuzz targets.
//
//   std::unique_ptr<Tokenizer> tokenizer = fuzz::ByteTokenizer(/*ranks=*/false, /*pattern=*/0, "abab c");
//
// Byte tokenizers split with one of tiktoken's presets (pattern % 3: gpt2, cl100k, o200k) and know one special
// token, `<|endoftext|>`, with the id after the BPE vocabulary.
//
// Merges are learned from `merge_source` the simple way: for each position, chains left-to-right of up to
// four bytes become tokens (ab, abc, abcd), so texts that repeat the source merge a lot.
#ifndef TOKVEC_TESTS_FUZZ_FUZZ_MODELS_H_
#define TOKVEC_TESTS_FUZZ_FUZZ_MODELS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tokenizer/models/bpe/bpe_model.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/sequence_encoding.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::fuzz {

inline std::unique_ptr<Tokenizer> ByteTokenizer(bool ranks, uint8_t pattern, std::string_view merge_source) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  std::vector<BpeModel::MergePair> merges;
  auto find = [&](const std::string& bytes) -> int {
    for (size_t id = 0; id < tokens.size(); ++id) {
      if (tokens[id] == bytes) return static_cast<int>(id);
    }
    return -1;
  };
  for (size_t i = 0; i < merge_source.size(); ++i) {
    std::string left(1, merge_source[i]);
    for (size_t j = i + 1; j < merge_source.size() && j < i + 4; ++j) {
      std::string right(1, merge_source[j]);
      int left_id = find(left);
      int right_id = find(right);
      std::string joined = left + right;
      if (find(joined) < 0) {
        tokens.push_back(joined);
        merges.push_back({static_cast<TokenId>(left_id), static_cast<TokenId>(right_id)});
      }
      left = joined;
    }
  }
  absl::StatusOr<BpeModel> bpe = ranks ? BpeModel::FromRanks(tokens) : BpeModel::FromMerges(tokens, merges);
  FUZZ_CHECK(bpe.ok());
  static const char* const kPresets[] = {"gpt2", "cl100k", "o200k"};
  absl::StatusOr<std::unique_ptr<PreTokenizer>> split = MakeSplitPreTokenizer(kPresets[pattern % 3]);
  FUZZ_CHECK(split.ok());
  const TokenId special_id = static_cast<TokenId>(bpe->size());
  TokenizerSpec spec{.type = ModelType::kByte,
                     .bpe = std::move(*bpe),
                     .pre_tokenizer = *std::move(split),
                     .special_tokens = {{"<|endoftext|>", special_id}}};
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = Tokenizer::Create(std::move(spec));
  FUZZ_CHECK(tokenizer.ok());
  return std::move(*tokenizer);
}

// Splits a loader target's input at its last "\n#\n" into the file's bytes and a sample text to encode; without
// the separator the whole input is the file and the sample is a fixed mixed text.
inline std::pair<std::string_view, std::string_view> SplitSample(std::string_view input) {
  static constexpr std::string_view kSeparator = "\n#\n";
  static constexpr std::string_view kSample =
      "Hello world, low lower newest! caf\u00e9 \u65e5\u672c 123\n<|endoftext|>";
  const size_t at = input.rfind(kSeparator);
  if (at == std::string_view::npos) return {input, kSample};
  return {input.substr(0, at), input.substr(at + kSeparator.size())};
}

// Encodes `text` with a tokenizer that some loader accepted and checks what must hold for any model: ids inside
// the vocabulary, offsets inside the input and in order, Decode accepting every id Encode gave. Byte models
// without a normalizer that hold all 256 byte tokens must also give the input back exactly.
inline void ExerciseTokenizer(const Tokenizer& tokenizer, std::string_view text) {
  absl::StatusOr<Encoding> encoding = tokenizer.Encode(text);
  if (!encoding.ok()) {
    FUZZ_CHECK(!encoding.status().message().empty());  // e.g. invalid UTF-8 for a word model.
    return;
  }
  FUZZ_CHECK(encoding->ids.size() == encoding->offsets.size());
  size_t last_begin = 0;
  for (size_t i = 0; i < encoding->ids.size(); ++i) {
    FUZZ_CHECK(encoding->ids[i] < tokenizer.vocab_size());
    const Offset& offset = encoding->offsets[i];
    FUZZ_CHECK(offset.begin <= offset.end && offset.end <= text.size() && offset.begin >= last_begin);
    last_begin = offset.begin;
    (void)tokenizer.TokenSpelling(encoding->ids[i]);
  }
  absl::StatusOr<std::string> decoded = tokenizer.Decode(encoding->ids);
  FUZZ_CHECK(decoded.ok());
  // Added tokens that strip white space drop it from the decoded text (as Hugging Face).
  bool all_bytes = tokenizer.type() == ModelType::kByte && tokenizer.spec().normalizer == nullptr;
  for (const SpecialToken& token : tokenizer.special_tokens()) all_bytes = all_bytes && !token.lstrip && !token.rstrip;
  // Every added token and the post-processor's tokens.
  absl::StatusOr<Encoding> with_specials =
      tokenizer.Encode(text, EncodeOptions{.allow_all_special = true, .add_special_tokens = true});
  if (with_specials.ok()) {
    FUZZ_CHECK(with_specials->ids.size() == with_specials->offsets.size());
    for (size_t i = 0; i < with_specials->ids.size(); ++i) {
      FUZZ_CHECK(with_specials->ids[i] < tokenizer.vocab_size());
      FUZZ_CHECK(with_specials->offsets[i].begin <= with_specials->offsets[i].end &&
                 with_specials->offsets[i].end <= text.size());
    }
  }
  for (int b = 0; all_bytes && b < 256; ++b) all_bytes = tokenizer.bpe().Find(std::string(1, char(b))).has_value();
  if (all_bytes) FUZZ_CHECK(*decoded == text);
  // The text as both halves of a sentence pair (the post-processor's pair template), and decoding without the
  // special tokens.
  const std::string_view half_b = text.substr(text.size() / 2);
  absl::StatusOr<EncodedTokens> pair =
      EncodePair(tokenizer, text, half_b, EncodeOptions{.allow_all_special = true, .add_special_tokens = true});
  if (pair.ok()) {
    FUZZ_CHECK(pair->type_ids.size() == pair->ids.size() && pair->sequence_ids.size() == pair->ids.size() &&
               pair->offsets.size() == pair->ids.size());
    for (size_t i = 0; i < pair->ids.size(); ++i) {
      FUZZ_CHECK(pair->ids[i] < tokenizer.vocab_size());
      const int sequence = pair->sequence_ids[i];
      FUZZ_CHECK(sequence >= -1 && sequence <= 1);
      FUZZ_CHECK(pair->offsets[i].begin <= pair->offsets[i].end &&
                 pair->offsets[i].end <= (sequence == 1 ? half_b.size() : text.size()));
    }
    FUZZ_CHECK(tokenizer.Decode(pair->ids, DecodeOptions{.skip_special_tokens = true}).ok());
  }
  // Truncation and padding: the file's, else small ones from the text's length, on the text and on the pair; every
  // window within max_length (after padding: exactly the padded length), the masks and word ids of the same size.
  SequenceLengths lengths = SequenceLengths::Of(tokenizer);
  if (!lengths.truncation) lengths.truncation = TruncationParams{.max_length = 3 + text.size() % 7, .stride = 1};
  if (!lengths.padding) lengths.padding = PaddingParams{.fixed_length = text.size() % 5, .pad_to_multiple_of = 4};
  const std::optional<std::string_view> seconds[] = {std::nullopt, half_b};
  for (const std::optional<std::string_view>& second : seconds) {
    absl::StatusOr<EncodedTokens> sized =
        EncodeSequences(tokenizer, text, second, EncodeOptions{.allow_all_special = true, .add_special_tokens = true},
                        lengths);
    if (!sized.ok()) continue;
    std::vector<const EncodedTokens*> all = {&*sized};
    for (size_t k = 0; k < all.size(); ++k) {
      const EncodedTokens& rows = *all[k];
      FUZZ_CHECK(rows.type_ids.size() == rows.size() && rows.sequence_ids.size() == rows.size() &&
                 rows.word_ids.size() == rows.size() && rows.offsets.size() == rows.size() &&
                 rows.attention_mask.size() == rows.size() && rows.special_tokens_mask.size() == rows.size());
      for (TokenId id : rows.ids) FUZZ_CHECK(id < tokenizer.vocab_size() || id == lengths.padding->pad_id);
      for (const EncodedTokens& window : rows.overflowing) all.push_back(&window);
      if (all.size() > 10000) break;
    }
  }
}

}  // namespace tokvec::fuzz

#endif  // TOKVEC_TESTS_FUZZ_FUZZ_MODELS_H_
