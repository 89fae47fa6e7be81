// tokvec's public vocabulary trainer: learns a BPE tokenizer from text, as `tokvec train` does.
//
//   #include <tokvec/train.h>
//
//   absl::StatusOr<tokvec::api::Tokenizer> tokenizer = tokvec::api::TrainTokenizer(
//       {"corpus.txt"}, {.type = tokvec::api::ModelType::kByte, .vocab_size = 1000});
//   if (!tokenizer.ok()) return tokenizer.status();
//   absl::Status saved = tokenizer->Save("mine.tokvec");  // tokvec init --tokenizer mine.tokvec, word2vec, ...
//
// The same options and text give the same vocabulary as `tokvec train` and the Python module's tokvec.train,
// byte for byte once saved, for any thread count. BPE: Sennrich et al. 2016, https://arxiv.org/abs/1508.07909.
//
// An installed header: the standard library, absl's status types and <tokvec/tokenizer.h> only. Errors are
// absl::Status values naming the option, file or byte offset at fault.
#ifndef TOKVEC_API_TRAIN_H_
#define TOKVEC_API_TRAIN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokvec/tokenizer.h"

namespace tokvec::api {

struct TrainOptions {
  ModelType type = ModelType::kByte;  // kByte or kWord (`tokvec train --type`)
  // Exactly one of the two targets: the number of ids (special tokens, the alphabet and the merged tokens), or
  // the number of merges. Training also stops early when no pair is left to merge.
  std::optional<size_t> vocab_size;
  std::optional<size_t> merges;
  std::string pattern;             // byte models: a split preset ("gpt2", "cl100k_base", ...) or ICU regex; "": gpt2
  std::string normalize = "none";  // "none", "nfc", "nfkc", "lowercase", "nfkc+lowercase"
  std::vector<std::string> special_tokens;  // ids 0, 1, ... in this order (EncodeOptions allows them)
  uint64_t min_frequency = 0;      // a pair seen fewer times is never merged
  size_t threads = 1;              // counting and merge workers; the result does not depend on it
  bool split_lines = false;        // count each line on its own rather than whole texts
};

// Learns a tokenizer from the files at `paths` ("-" is standard input). Errors: options that do not fit
// (InvalidArgument naming the option, e.g. neither or both targets), an unreadable file or invalid UTF-8 for a
// word model (naming the file and byte offset).
absl::StatusOr<Tokenizer> TrainTokenizer(const std::vector<std::string>& paths, const TrainOptions& options);
// The same from texts held in memory, each cut as a file is; messages name them "text <1-based index>".
absl::StatusOr<Tokenizer> TrainTokenizerFromTexts(const std::vector<std::string_view>& texts,
                                                  const TrainOptions& options);

}  // namespace tokvec::api

#endif  // TOKVEC_API_TRAIN_H_
