// Texts to pooled (or per-token) vectors, as `tokvec embed` and the Python module's Model.embed compute them:
// one place for the pooling choice, the batching of texts and the normalisation, so both give
// the same bits.
//
//   TOKVEC_ASSIGN_OR_RETURN(ModelDirectory dir, ModelDirectory::Load("models/tiny"));
//   TOKVEC_ASSIGN_OR_RETURN(PoolingChoice choice, ChoosePooling(dir, "auto", /*normalize=*/false));
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> out,
//                           EmbedTexts(dir, {"a cat", "the dog"}, {.pooling = choice.pooling, .threads = 2}));
//   // out[i].vectors: [1, D] pooled (or [T_i, D] with Pooling::kNone)
//
// Batching: every text is tokenized, then texts run together through Model::ForwardBatch (one GEMM per projection
// over all their rows, attention per text), at most `batch_sequences` texts and 2,048 rows per batch, longest
// first (then by position). Models whose ForwardBatch takes sequences of different lengths (Model::RaggedBatches:
// GPT-2, GPT-Neo, the encoders) batch consecutive texts and run each batch with all threads; the decoders batch
// texts of equal token count, batches spread over the threads. A text's vectors depend on the input only, never
// on its batch mates or `threads`. With windows each text runs on its own.
#ifndef TOKVEC_PIPELINE_EMBED_TEXTS_H_
#define TOKVEC_PIPELINE_EMBED_TEXTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "pipeline/model_directory.h"
#include "pipeline/pooling.h"

namespace tokvec {

// Cutting texts longer than the model takes (sentence-transformers' truncation, opt-in: without it a too-long
// text is an error naming --truncate).
enum class Truncation { kNone, kRight, kLeft };
// "right", "left"; anything else is InvalidArgument.
absl::StatusOr<Truncation> ParseTruncation(std::string_view side);

// The pooling and normalisation to apply.
struct PoolingChoice {
  Pooling pooling = Pooling::kNone;
  bool normalize = false;
  // The directory's sentence-transformers Dense modules, run on each pooled vector before the normalisation
  // (with "auto" only: an explicit pooling gives the transformer's pooled vectors). Null: none.
  std::shared_ptr<const std::vector<SentenceDense>> dense;
};

// `name`: "auto" (the directory's sentence-transformers modules when it has them: its pooling, its Dense modules,
// and its Normalize module turning normalisation on; else none), or a ParsePooling name. `normalize` asks for unit
// vectors in any case.
absl::StatusOr<PoolingChoice> ChoosePooling(const ModelDirectory& dir, std::string_view name, bool normalize);

// The width of the vectors `choice` gives: the last Dense module's out_features, else the model's d_model.
int64_t OutputWidth(const ModelDirectory& dir, const PoolingChoice& choice);

// One text's result.
struct TextVectors {
  std::vector<uint32_t> ids;        // [T], special tokens included
  std::vector<std::string> tokens;  // [T] spellings
  Matrix vectors;                   // [T, D], or [1, D] pooled
};

struct EmbedTextsOptions {
  Pooling pooling = Pooling::kNone;
  bool normalize = false;  // scale each output vector to unit length
  std::shared_ptr<const std::vector<SentenceDense>> dense;  // PoolingChoice::dense
  int threads = 1;
  size_t batch_sequences = 32;  // most texts in one batched forward pass
  int64_t window = 0;           // tokens per window (0: none; a too-long text is an error)
  int64_t stride = 0;           // with window: tokens between window starts
  // Put before every text (sentence-transformers' prompt; ChoosePrompt in sentence_transformers_config.h).
  std::string prompt;
  // Tokens at the start of each text left out of mean and max pooling (PromptPoolingSkip).
  int64_t pool_skip = 0;
  // Truncation: each text's ids cut to max_length (special tokens included, kept; 0: TruncationLength(dir)), the
  // text's tokens dropped from its end (kRight) or start (kLeft). Not with windows.
  Truncation truncate = Truncation::kNone;
  int64_t max_length = 0;
  // Errors say "<item_name> <1-based index>: ...".
  std::string item_name = "line";
  // Called after each text with (texts done, texts in all), from any thread, one call at a time.
  std::function<void(size_t done, size_t total)> progress;
};

// Every text's rows one after another: [sum of the rows, d] (pooled results: [N, d], one row per text).
Matrix StackVectors(const std::vector<TextVectors>& results, int64_t d);

// Pools (unless kNone), runs the `dense` modules (when not null, on a pooled vector) and normalises (if asked) one
// text's hidden states; mean and max pooling leave out the first `pool_skip` tokens.
absl::StatusOr<TextVectors> PoolEmbedded(EmbeddedText embedded, Pooling pooling, bool normalize,
                                         int64_t pool_skip = 0, const std::vector<SentenceDense>* dense = nullptr);

// The length --truncate cuts to by default: sentence_bert_config.json's max_seq_length when the directory has one
// (and it is not above the model's), else the model's maximum.
int64_t TruncationLength(const ModelDirectory& dir);

// How many leading tokens sentence-transformers leaves out of pooling for `prompt` under `choice` (its Pooling
// module's include_prompt false): the prompt's ids alone, special tokens included, less one; else 0.
absl::StatusOr<int64_t> PromptPoolingSkip(const ModelDirectory& dir, const PoolingChoice& choice,
                                          bool sentence_pooling, std::string_view prompt);

// Cuts `ids` (special tokens included) to `max_length` keeping the model's special tokens, as --truncate does.
// InvalidArgument when max_length cannot hold the special tokens and one text token.
absl::Status TruncateIds(const ModelDirectory& dir, Truncation side, int64_t max_length, std::vector<uint32_t>* ids);

// Embeds `texts`; the first failing text's error (in text order) is returned, naming it.
absl::StatusOr<std::vector<TextVectors>> EmbedTexts(const ModelDirectory& dir,
                                                    const std::vector<std::string_view>& texts,
                                                    const EmbedTextsOptions& options);

// The same from ids (ModelDirectory::Tokenize's output, special tokens included), batched the same way, so a
// sequence gives the bits EmbedTexts gives for its text (a server batching requests uses this). Windows are not
// supported here (options.window must be 0). `type_ids`: each sequence's token type ids (BERT's segments of a
// sentence pair, as EncodeClassifierInputs gives them), or empty for all zeros; not with options.truncate.
absl::StatusOr<std::vector<TextVectors>> EmbedIdSequences(const ModelDirectory& dir,
                                                          std::vector<std::vector<uint32_t>> ids,
                                                          const EmbedTextsOptions& options,
                                                          std::vector<std::vector<uint8_t>> type_ids = {});

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_EMBED_TEXTS_H_
