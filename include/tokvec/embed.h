// tokvec's public embedding model: texts -> contextual vectors, pooled to one vector per text or one per token.
//
//   #include <tokvec/embed.h>
//
//   absl::StatusOr<tokvec::api::Model> model = tokvec::api::Model::Load("all-distilroberta-v1");
//   if (!model.ok()) return model.status();
//   absl::StatusOr<std::vector<tokvec::api::TextVectors>> out =
//       model->Embed({"Your cat is a lovely cat", "A dog"}, {.pooling = tokvec::api::Pooling::kMean});
//   // (*out)[i].Row(0): text i's vector, (*out)[i].cols floats (d_model, or with kAuto the width of the
//   // directory's last sentence-transformers Dense module)
//
// A model directory holds a tokenizer file, config.json and model.safetensors (or its shards), and for a
// sentence-transformers model modules.json with its pooling (the layout `tokvec init` writes and Hugging Face
// models use). The vectors are the bits `tokvec embed --lines` writes and the Python module's Model.embed returns
// for the same directory, texts and options, whatever `threads` is.
//
// Like <tokvec/tokenizer.h> this installed header includes only the standard library and absl's status types;
// errors are absl::Status values naming the text or file at fault, never exceptions or aborts.
//
// A Model is an immutable, cheaply copied handle: copies share the loaded weights, and any number of threads may
// call Embed on the same one at once.
#ifndef TOKVEC_API_EMBED_H_
#define TOKVEC_API_EMBED_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tokvec/tokenizer.h"

namespace tokvec::api {

// How one text's token vectors [T, D] become its result:
//   kAuto  the directory's sentence-transformers pooling (and its Dense and Normalize modules) when it has
//          modules.json, else kNone (`tokvec embed --pooling auto`, the default)
//   kNone  every token's vector, [T, D]        kMean  the average over tokens, [1, D]
//   kCls   the first token's vector, [1, D]    kLast  the last token's (a causal model's summary), [1, D]
//   kMax   the element-wise maximum over tokens, [1, D]
enum class Pooling { kAuto, kNone, kMean, kCls, kLast, kMax };

struct EmbedOptions {
  Pooling pooling = Pooling::kAuto;
  bool normalize = false;       // scale each output vector to unit length (with any pooling)
  int threads = 1;              // at least 1; the vectors do not depend on it
  size_t batch_sequences = 32;  // at most this many texts in one forward pass (at least 1)
  // A text longer than the model's maximum is an error unless windows are asked for: `window` tokens per
  // window, a new one every `stride` tokens (`tokvec embed --window --stride`). 0: no windows.
  int64_t window = 0;
  int64_t stride = 0;
};

// One text's result: its tokens (the model's special tokens included, e.g. RoBERTa's <s> ... </s>) and vectors.
struct TextVectors {
  std::vector<uint32_t> ids;        // [T]
  std::vector<std::string> tokens;  // [T] spellings (Tokenizer::TokenSpelling)
  size_t rows = 0;                  // T with Pooling::kNone, else 1
  size_t cols = 0;                  // D: the model's d_model, or its last Dense module's out_features (kAuto)
  std::vector<float> values;        // [rows, cols], row-major

  // Row `row` (< rows) of `values`: [cols] floats.
  std::span<const float> Row(size_t row) const { return std::span<const float>(values).subspan(row * cols, cols); }
};

class Model {
 public:
  // Reads the model directory `dir` (see above). Errors name the file and the key or tensor at fault.
  static absl::StatusOr<Model> Load(const std::string& dir);

  // Embeds every text (tokenized as Tokenize does, batched through the model). The first failing text's error,
  // in text order, is returned, naming it ("text 2: ..."), e.g. OutOfRange for a text longer than the model's
  // maximum without a window.
  absl::StatusOr<std::vector<TextVectors>> Embed(const std::vector<std::string>& texts,
                                                 const EmbedOptions& options = {}) const;

  // Text -> ids as the model takes them: the tokenizer's ids with the model's special tokens around them
  // (RoBERTa: <s> ... </s>; BERT: [CLS] ... [SEP]; GPT-2: none).
  absl::StatusOr<std::vector<uint32_t>> Tokenize(std::string_view text) const;
  // The directory's tokenizer (without the model's special tokens: Tokenizer::Encode's ids); it shares the
  // loaded model, which stays alive while the Tokenizer does.
  Tokenizer tokenizer() const;
  // D: the width of the transformer's vectors (per-token, and pooled without Dense modules; TextVectors::cols says
  // each result's width).
  size_t d_model() const;
  // The most tokens (special ones included) one pass takes; longer texts need EmbedOptions::window.
  size_t max_len() const;

  struct Impl;  // Defined by the library (api/embed.cc); opaque here.

 private:
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  // Never null in a Model that Load returned; a moved-from one may only be assigned to or destroyed.
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tokvec::api

#endif  // TOKVEC_API_EMBED_H_
