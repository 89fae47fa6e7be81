// A model directory, everything `embed` and `attend` need: the tokenizer, config.json + model.safetensors, and
// (sentence-transformers) the pooling modules. Text in, contextual vectors out.
//
//   DIR/tokenizer.tokvec | tokenizer.json | vocab.json + merges.txt | vocab.txt | *.tiktoken   (Tokenizer::Load)
//   DIR/config.json, DIR/model.safetensors (or model.safetensors.index.json + shards)         (see model.h)
//   DIR/modules.json, DIR/1_Pooling/config.json                                    (optional, see pooling.h)
//   DIR/config_sentence_transformers.json, DIR/sentence_bert_config.json   (optional, sentence_transformers_config.h)
//
//   TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load("models/tiny"));
//   TOKVEC_ASSIGN_OR_RETURN(EmbeddedText text, dir.Embed("Your cat is a lovely cat", {.threads = 2}));
//   // text.tokens: {"Your", "Ġcat", ...}; text.ids: the same, as ids; text.hidden: [T, D]
//
// Each text gets the tokens of the tokenizer.json's post-processor, or the architecture's convention (RoBERTa:
// `<s>` (bos_token_id) before and `</s>` (eos_token_id) after; BERT: `[CLS]` ... `[SEP]` from the vocabulary), as
// Hugging Face's tokenizer adds them (text_special_tokens.h). Input longer than the model's maximum is an error
// unless a window is given (see sliding_window.h); only EmbedTexts truncates, when asked (embed_texts.h).
#ifndef TOKVEC_PIPELINE_MODEL_DIRECTORY_H_
#define TOKVEC_PIPELINE_MODEL_DIRECTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "models/model.h"
#include "pipeline/pooling.h"
#include "pipeline/sentence_transformers_config.h"
#include "pipeline/text_special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

struct EmbedOptions {
  int threads = 1;
  int64_t window = 0;  // 0: no windows (too-long input is an error); else tokens per window
  int64_t stride = 0;  // with window: tokens between window starts
  std::vector<int64_t> keep_weights_of;  // layers whose attention weights to keep (not with windows)
};

struct EmbeddedText {
  std::vector<uint32_t> ids;                                // [T], special tokens included
  std::vector<std::string> tokens;                          // [T] spellings (Tokenizer::TokenSpelling)
  Matrix hidden;                                            // [T, D]
  std::map<int64_t, std::vector<Matrix>> attention_weights;  // layer -> [H] x [T, T]
};

class ModelDirectory {
 public:
  // `dtype`: the linear layers' precision from the start (Model::Load), e.g. `embed --dtype`.
  static absl::StatusOr<ModelDirectory> Load(const std::string& dir, LinearDtype dtype = LinearDtype::kF32);

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const Model& model() const { return *model_; }
  // The model's big linear layers in bf16 / int8 (Model::UseLinearDtype); before sharing the directory.
  absl::Status UseLinearDtype(LinearDtype dtype) { return model_->UseLinearDtype(dtype); }
  const std::string& path() const { return path_; }
  // From modules.json, when the directory is a sentence-transformers model.
  const std::optional<SentenceTransformersPooling>& sentence_pooling() const { return sentence_pooling_; }
  // Prompts and max_seq_length (defaults when the directory has no such files).
  const SentenceTransformersConfig& sentence_config() const { return sentence_config_; }

  // Text -> ids as the model expects them (RoBERTa: <s> ... </s>; BERT: [CLS] ... [SEP]).
  absl::StatusOr<std::vector<uint32_t>> Tokenize(std::string_view text) const;
  // Ids with the model's special tokens added as Tokenize adds them (RoBERTa: <s> ids </s>; GPT-2: unchanged).
  std::vector<uint32_t> WithSpecialTokens(std::span<const uint32_t> ids) const;
  // How many of WithSpecialTokens' ids are added before / after the text's.
  int SpecialTokensBefore() const;
  int SpecialTokensAfter() const;
  // Tokenize + the model (with windows when options.window > 0). Thread-safe (const).
  absl::StatusOr<EmbeddedText> Embed(std::string_view text, const EmbedOptions& options) const;
  // The same from ids (special tokens already included).
  absl::StatusOr<EmbeddedText> EmbedIds(std::vector<uint32_t> ids, const EmbedOptions& options) const;

 private:
  std::string path_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<Model> model_;
  std::optional<SentenceTransformersPooling> sentence_pooling_;
  SentenceTransformersConfig sentence_config_;
  TextSpecialTokens around_;  // tokens put around each text (text_special_tokens.h)
};

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_MODEL_DIRECTORY_H_
