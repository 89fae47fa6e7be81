// Hugging Face's encode(a, b?, add_special_tokens) with everything its Encoding has per token, for the front ends
// that feed models and other runtimes: each text is encoded on its own (Tokenizer::Encode, with offset trimming
// but without special tokens), truncated (processors/truncation.h; max_length less the tokens the post-processor
// adds, as Hugging Face budgets them), laid out by the post-processor, and padded (processors/padding.h).
//
// The layout: a single text gets the post-processor's tokens around it (PostProcessor::SingleBefore/After); a
// pair is laid out by its pair template (PostProcessor::PairTemplate), which gives each token a type id:
//   TemplateProcessing  its "pair", e.g. [CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1
//   RobertaProcessing   <s> A </s> </s> B </s>, every type id 0
//   BertProcessing      [CLS] A [SEP] B [SEP], type ids 0 up to the first [SEP], 1 after it
//   none / ByteLevel    A B, type ids 0 for A and 1 for B
// Without add_special_tokens the template's special tokens are left out; its sequences keep their order and
// type ids (Hugging Face's behaviour). Overflowing windows (what truncation cut off) are laid out the same way, and
// for a pair combined as Hugging Face's Encoding::merge_with combines them: each window of a with b and with each
// window of b, then a with each window of b.
//
// Truncation and padding are the caller's to choose: SequenceLengths::Of(tokenizer) takes the tokenizer.json's own
// sections (what Hugging Face applies on every encode); {} applies none.
//
//   TOKVEC_ASSIGN_OR_RETURN(EncodedTokens pair,
//                           EncodePair(*tokenizer, "How old is the moon?", "About 4.5 billion years.",
//                                      {.add_special_tokens = true}));
//   pair.ids;       // [CLS] how old ... [SEP] about 4 ... [SEP]
//   pair.type_ids;  // 0 0 0 ... 0 1 1 ... 1
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<EncodedTokens> batch,
//                           EncodeBatch(*tokenizer, texts, {}, {.add_special_tokens = true},
//                                       SequenceLengths::Of(*tokenizer)));   // padded alike, attention_mask set
#ifndef TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_
#define TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tokenizer/processors/padding.h"
#include "tokenizer/processors/encoded_tokens.h"
#include "tokenizer/processors/truncation.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

// The truncation and padding of one call (none when unset).
struct SequenceLengths {
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
  // The tokenizer's own: its tokenizer.json's "truncation" and "padding" sections.
  static SequenceLengths Of(const Tokenizer& tokenizer) {
    return {tokenizer.spec().truncation, tokenizer.spec().padding};
  }
};

// Text a, or the pair (a, b) when `b` is given, as described above; a single text is padded on its own
// (BatchLongest: to its own length rounded up to pad_to_multiple_of). Errors: those of Tokenizer::Encode (for a
// pair, naming "text a" or "text b"), a post-processor that cannot lay out pairs (PostProcessor::PairTemplate),
// truncation's (TruncateSequences), and a max_length below the number of tokens the post-processor adds.
absl::StatusOr<EncodedTokens> EncodeSequences(const Tokenizer& tokenizer, std::string_view a,
                                          std::optional<std::string_view> b, const EncodeOptions& options,
                                          const SequenceLengths& lengths);

// The pair (a, b) without truncation or padding.
inline absl::StatusOr<EncodedTokens> EncodePair(const Tokenizer& tokenizer, std::string_view a, std::string_view b,
                                            const EncodeOptions& options) {
  return EncodeSequences(tokenizer, a, b, options, {});
}

// Each text (or pair: `b` empty, or as long as `a`) as EncodeSequences without padding, then all padded to one
// length (BatchLongest: the longest of the batch; Hugging Face's encode_batch). An error names the text's index.
absl::StatusOr<std::vector<EncodedTokens>> EncodeBatch(const Tokenizer& tokenizer, absl::Span<const std::string_view> a,
                                                   absl::Span<const std::string_view> b, const EncodeOptions& options,
                                                   const SequenceLengths& lengths);

// Pads `batch` (and its overflowing windows) to one length by `padding` (PaddedLength over every main encoding).
void PadBatch(absl::Span<EncodedTokens> batch, const PaddingParams& padding);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_
