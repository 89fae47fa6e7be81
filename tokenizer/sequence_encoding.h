// Sentence pairs, as Hugging Face's tokenizer.encode(a, b, {addSpecialTokens}) makes them for cross-encoders,
// rerankers and BERT's next-sentence inputs: each text is encoded on its own (Tokenizer::Encode, with offset
// trimming but without special tokens), then the post-processor's pair template (PostProcessor::PairTemplate)
// lays them out and gives each token a type id (segment id):
//   TemplateProcessing  its "pair", e.g. [CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1
//   RobertaProcessing   <s> A </s> </s> B </s>, every type id 0
//   BertProcessing      [CLS] A [SEP] B [SEP], type ids 0 up to the first [SEP], 1 after it
//   none / ByteLevel    A B, type ids 0 for A and 1 for B
// Without add_special_tokens the template's special tokens are left out; its sequences keep their order and
// type ids (Hugging Face's behaviour).
//
//   TOKVEC_ASSIGN_OR_RETURN(PairEncoding pair,
//                           EncodePair(*tokenizer, "How old is the moon?", "About 4.5 billion years.",
//                                      {.add_special_tokens = true}));
//   pair.ids;       // [CLS] how old ... [SEP] about 4 ... [SEP]
//   pair.type_ids;  // 0 0 0 ... 0 1 1 ... 1
#ifndef TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_
#define TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct PairEncoding {
  std::vector<TokenId> ids;
  std::vector<uint32_t> type_ids;  // [ids.size()]
  // [ids.size()] which text a token came from: 0 (a), 1 (b), or -1 for a token the template added.
  std::vector<int> sequence_ids;
  // [ids.size()] byte offsets into the token's own text (a or b, by sequence_ids); (0, 0) for added tokens.
  std::vector<Offset> offsets;
};

// Errors: those of Tokenizer::Encode (each naming "text a" or "text b"), and a post-processor that cannot lay
// out pairs (PostProcessor::PairTemplate).
absl::StatusOr<PairEncoding> EncodePair(const Tokenizer& tokenizer, std::string_view a, std::string_view b,
                                        const EncodeOptions& options);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_SEQUENCE_ENCODING_H_
