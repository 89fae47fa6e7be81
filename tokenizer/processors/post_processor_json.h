// Reads Hugging Face tokenizer.json's "post_processor" into a PostProcessor (tokenizer/processors/post_processor.h):
//   TemplateProcessing {single, pair, special_tokens: {name: {id, ids, tokens}}}: pieces {"SpecialToken": {id,
//                      type_id}} / {"Sequence": {id: "A" | "B", type_id}}; "pair" into Step::pair (absent: none)
//   RobertaProcessing {sep: [text, id], cls: [text, id], trim_offsets, add_prefix_space}: pair <s> A </s></s> B </s>
//   BertProcessing {sep: [text, id], cls: [text, id]}: pair [CLS] A [SEP] B:1 [SEP]:1
//   ByteLevel {trim_offsets, add_prefix_space}
//   Sequence {processors: [...]}
// The kind is Hugging Face's (its PostProcessorWrapper is untagged): the first of RobertaProcessing, BertProcessing,
// ByteLevel, TemplateProcessing, Sequence whose fields are there; the first two and TemplateProcessing need no "type"
// (older files have none) and ignore it, so the fields decide ("BertProcessing" with trim_offsets and
// add_prefix_space reads as RobertaProcessing).
//
//   TOKVEC_ASSIGN_OR_RETURN(auto post, ReadHfPostProcessor(json["post_processor"], path, vocab_size));
#ifndef TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_JSON_H_
#define TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_JSON_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tokenizer/processors/post_processor.h"

namespace tokvec {

// Null for a JSON null. Errors name `path` and the key; ids must be below `vocab_size` (model and added tokens).
absl::StatusOr<std::shared_ptr<const PostProcessor>> ReadHfPostProcessor(const nlohmann::json& node,
                                                                         const std::string& path, size_t vocab_size);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PROCESSORS_POST_PROCESSOR_JSON_H_
