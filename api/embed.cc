// The public Model (include/tokvec/embed.h): a ModelDirectory behind a shared pointer, and EmbedTexts (the code
// of `tokvec embed` and the Python module's Model.embed) for the vectors, so all three give the same bits.
#include "tokvec/embed.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/tokenizer_impl.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "pipeline/pooling.h"

namespace tokvec::api {

struct Model::Impl {
  tokvec::ModelDirectory dir;
};

namespace {

// The library's pooling and normalisation for `options`: kAuto asks the directory (ChoosePooling's "auto"); the
// other values name tokvec::Pooling's.
absl::StatusOr<tokvec::PoolingChoice> ChooseFor(const tokvec::ModelDirectory& dir, const EmbedOptions& options) {
  tokvec::PoolingChoice choice{.pooling = tokvec::Pooling::kNone, .normalize = options.normalize};
  switch (options.pooling) {
    case Pooling::kAuto:
      return tokvec::ChoosePooling(dir, "auto", options.normalize);
    case Pooling::kNone:
      return choice;
    case Pooling::kMean:
      choice.pooling = tokvec::Pooling::kMean;
      return choice;
    case Pooling::kCls:
      choice.pooling = tokvec::Pooling::kCls;
      return choice;
    case Pooling::kLast:
      choice.pooling = tokvec::Pooling::kLast;
      return choice;
    case Pooling::kMax:
      choice.pooling = tokvec::Pooling::kMax;
      return choice;
  }
  return absl::InvalidArgumentError(
      fmt::format("EmbedOptions::pooling {} is not a Pooling value", static_cast<int>(options.pooling)));
}

// The library's Matrix is copied out into a plain vector: the installed header cannot name Matrix (an internal
// type whose storage may be huge-page buffers), and one copy of [rows, D] floats is small beside the forward pass.
TextVectors PublicVectors(tokvec::TextVectors internal) {
  const tokvec::Matrix& m = internal.vectors;  // [rows, D]
  TextVectors out{.ids = std::move(internal.ids),
                  .tokens = std::move(internal.tokens),
                  .rows = static_cast<size_t>(m.rows()),
                  .cols = static_cast<size_t>(m.cols()),
                  .values = {}};
  out.values.assign(m.data(), m.data() + out.rows * out.cols);
  return out;
}

}  // namespace

absl::StatusOr<Model> Model::Load(const std::string& dir) {
  TOKVEC_ASSIGN_OR_RETURN(tokvec::ModelDirectory loaded, tokvec::ModelDirectory::Load(dir));
  return Model(std::make_shared<const Impl>(Impl{std::move(loaded)}));
}

absl::StatusOr<std::vector<TextVectors>> Model::Embed(const std::vector<std::string>& texts,
                                                      const EmbedOptions& options) const {
  if (options.threads < 1) {
    return absl::InvalidArgumentError(fmt::format("EmbedOptions::threads must be at least 1, not {}", options.threads));
  }
  if (options.window < 0 || options.stride < 0) {
    return absl::InvalidArgumentError(fmt::format("EmbedOptions::window and stride must not be negative, not {} and {}",
                                                  options.window, options.stride));
  }
  TOKVEC_ASSIGN_OR_RETURN(tokvec::PoolingChoice choice, ChooseFor(impl_->dir, options));
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  TOKVEC_ASSIGN_OR_RETURN(std::vector<tokvec::TextVectors> embedded,
                          tokvec::EmbedTexts(impl_->dir, views,
                                             {.pooling = choice.pooling,
                                              .normalize = choice.normalize,
                                              .dense = choice.dense,
                                              .threads = options.threads,
                                              .batch_sequences = options.batch_sequences,
                                              .window = options.window,
                                              .stride = options.stride,
                                              .item_name = "text"}));
  std::vector<TextVectors> out;
  out.reserve(embedded.size());
  for (tokvec::TextVectors& text : embedded) out.push_back(PublicVectors(std::move(text)));
  return out;
}

absl::StatusOr<std::vector<uint32_t>> Model::Tokenize(std::string_view text) const {
  return impl_->dir.Tokenize(text);
}

Tokenizer Model::tokenizer() const {
  // Aliasing: the Tokenizer keeps this model's Impl (and so its directory's tokenizer) alive.
  return TokenizerAccess::Make(std::shared_ptr<const tokvec::Tokenizer>(impl_, &impl_->dir.tokenizer()));
}

size_t Model::d_model() const { return static_cast<size_t>(impl_->dir.model().config().d_model); }

size_t Model::max_len() const { return static_cast<size_t>(impl_->dir.model().config().max_len); }

}  // namespace tokvec::api
