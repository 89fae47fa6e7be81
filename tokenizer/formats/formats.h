// Readers and writers of every tokenizer file format tokvec understands. Tokenizer::Load picks the reader.
//
//   format                        reader                   writer                    file
//   tokvec model file (text)      ReadTokvecModel          WriteTokvecModel          tokvec_model_format.cc
//   tiktoken ranks                ReadTiktoken             WriteTiktoken             tiktoken_format.cc
//   GPT-2 vocab.json+merges.txt   ReadGpt2VocabAndMerges   -                         gpt2_format.cc
//   Hugging Face tokenizer.json   ReadHfTokenizerJson      WriteHfTokenizerJson      tokenizer_json_format.cc, _writer.cc
//   BERT vocab.txt (+ config)     ReadBertVocabTxt         -                         bert_vocab_format.cc
//
// Readers return a TokenizerSpec for Tokenizer::Create; errors name the file and the line or JSON key.
#ifndef TOKVEC_TOKENIZER_FORMATS_FORMATS_H_
#define TOKVEC_TOKENIZER_FORMATS_FORMATS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

// The first line of a tokvec model file starts with this word (then the version).
inline constexpr std::string_view kTokvecModelMagic = "tokvec-bpe";
// The file name of a tokvec model inside a model directory.
inline constexpr std::string_view kTokvecModelFileName = "tokenizer.tokvec";

// What the writers of byte-level formats say to the owner of another kind of model.
inline constexpr std::string_view kTrainByteLevel = "tokvec train --type byte makes one";

// `text` is the file's contents and `path` its name for messages.
absl::StatusOr<TokenizerSpec> ReadTokvecModel(std::string_view text, const std::string& path);
// The file of a word or byte model with a merge list; SaveTokvecModel checks that first.
std::string WriteTokvecModel(const Tokenizer& tokenizer);
// The model file of `tokenizer`, once it reads back to a tokenizer that encodes alike: FailedPrecondition for a
// tokenizer the format cannot hold (another model kind, tiktoken ranks, a post-processor, added tokens that are
// not plain special tokens, a spec the reader refuses or reads differently). `path` names it in messages.
absl::StatusOr<std::string> CheckedTokvecModel(const Tokenizer& tokenizer, const std::string& path);
// CheckedTokvecModel written to `path` (atomically); no file on an error.
absl::Status SaveTokvecModel(const Tokenizer& tokenizer, const std::string& path);

// `pattern` overrides the split pattern named by the file name (gpt2, r50k_base, p50k_base, cl100k_base,
// o200k_base); it is required for other names.
absl::StatusOr<TokenizerSpec> ReadTiktoken(std::string_view text, const std::string& path,
                                           const std::string& pattern);
absl::StatusOr<std::string> WriteTiktoken(const Tokenizer& tokenizer);
// The tokens of a rank file by rank ("" for a rank no line gives), for callers that bring their own pattern and
// special tokens (tiktoken's Encoding, python/tokvec/tiktoken.py).
absl::StatusOr<std::vector<std::string>> ReadTiktokenRanks(std::string_view text, const std::string& path);
// tiktoken's Encoding(pat_str, mergeable_ranks, special_tokens) in memory: `tokens` by rank ("" for a rank no
// token has), a split preset or ICU regex, and special tokens whose ids are not ranks of tokens.
absl::StatusOr<TokenizerSpec> TiktokenSpec(std::vector<std::string> tokens, const std::string& pattern,
                                           std::vector<SpecialToken> special_tokens, const std::string& source);

absl::StatusOr<TokenizerSpec> ReadGpt2VocabAndMerges(const std::string& vocab_json_path,
                                                     const std::string& merges_txt_path);

absl::StatusOr<TokenizerSpec> ReadHfTokenizerJson(std::string_view text, const std::string& path);
// The same without the fast path (tokenizer_json_vocab.h): the whole file through the JSON DOM. For tests.
absl::StatusOr<TokenizerSpec> ReadHfTokenizerJsonViaDom(std::string_view text, const std::string& path);
absl::StatusOr<std::string> WriteHfTokenizerJson(const Tokenizer& tokenizer);

// vocab.txt, with the tokenizer_config.json beside it when there is one (do_lower_case, ...).
absl::StatusOr<TokenizerSpec> ReadBertVocabTxt(const std::string& vocab_txt_path);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FORMATS_FORMATS_H_
