// The public trainer (include/tokvec/train.h): a tokvec::TokenizerTrainer run, the one `tokvec train` and the
// Python module's tokvec.train make, so the same options give the same vocabulary.
#include "tokvec/train.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/tokenizer_impl.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec::api {
namespace {

// A trainer for `options`; only word and byte models are trained (the other kinds are read from their files).
absl::StatusOr<tokvec::TokenizerTrainer> MakeTrainer(const TrainOptions& options) {
  if (options.type != ModelType::kByte && options.type != ModelType::kWord) {
    return absl::InvalidArgumentError("TrainOptions::type must be kByte or kWord: tokvec trains BPE vocabularies only");
  }
  return tokvec::TokenizerTrainer::Create({
      .type = options.type == ModelType::kWord ? tokvec::ModelType::kWord : tokvec::ModelType::kByte,
      .pattern = options.pattern,
      .normalize = options.normalize,
      .merges = options.merges,
      .vocab_size = options.vocab_size,
      .min_frequency = options.min_frequency,
      .special_tokens = options.special_tokens,
      .threads = options.threads,
      .split_lines = options.split_lines,
  });
}

absl::StatusOr<Tokenizer> Finish(tokvec::TokenizerTrainer trainer) {
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<tokvec::Tokenizer> trained, std::move(trainer).Train());
  return TokenizerAccess::Make(std::move(trained));
}

}  // namespace

absl::StatusOr<Tokenizer> TrainTokenizer(const std::vector<std::string>& paths, const TrainOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(tokvec::TokenizerTrainer trainer, MakeTrainer(options));
  TOKVEC_RETURN_IF_ERROR(trainer.CountFiles(paths));
  return Finish(std::move(trainer));
}

absl::StatusOr<Tokenizer> TrainTokenizerFromTexts(const std::vector<std::string_view>& texts,
                                                  const TrainOptions& options) {
  TOKVEC_ASSIGN_OR_RETURN(tokvec::TokenizerTrainer trainer, MakeTrainer(options));
  for (size_t i = 0; i < texts.size(); ++i) {
    TOKVEC_RETURN_IF_ERROR(trainer.CountText(texts[i], fmt::format("text {}", i + 1)));
  }
  return Finish(std::move(trainer));
}

}  // namespace tokvec::api
