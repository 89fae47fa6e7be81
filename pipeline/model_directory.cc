#include "pipeline/model_directory.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "pipeline/sliding_window.h"

namespace tokvec {
absl::StatusOr<ModelDirectory> ModelDirectory::Load(const std::string& dir, LinearDtype dtype) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) {
    return absl::NotFoundError(fmt::format(
        "model directory '{}' does not exist (expected a folder with config.json, model.safetensors and a "
        "tokenizer; `tokvec init` makes one)",
        dir));
  }
  ModelDirectory out;
  out.path_ = dir;
  TOKVEC_ASSIGN_OR_RETURN(out.model_, Model::Load(dir, dtype));
  TOKVEC_ASSIGN_OR_RETURN(out.tokenizer_, Tokenizer::Load(dir));
  TOKVEC_ASSIGN_OR_RETURN(out.sentence_pooling_, LoadSentenceTransformersPooling(dir));
  if (out.sentence_pooling_.has_value() && out.sentence_pooling_->dense != nullptr) {
    TOKVEC_RETURN_IF_ERROR(CheckDenseWidths(*out.sentence_pooling_->dense, out.model_->config().d_model));
  }
  TOKVEC_ASSIGN_OR_RETURN(out.sentence_config_, LoadSentenceTransformersConfig(dir));
  TOKVEC_ASSIGN_OR_RETURN(out.around_, TextSpecialTokensFor(*out.tokenizer_, out.model_->config(), dir));
  const int64_t vocab_size = out.model_->config().vocab_size;
  if (static_cast<int64_t>(out.tokenizer_->vocab_size()) > vocab_size) {
    return absl::InvalidArgumentError(fmt::format(
        "model directory '{}': the tokenizer has {} tokens but the model's embedding table only {} rows "
        "(vocab_size in config.json); they do not belong together",
        dir, out.tokenizer_->vocab_size(), vocab_size));
  }
  return out;
}

absl::StatusOr<std::vector<uint32_t>> ModelDirectory::Tokenize(std::string_view text) const {
  TOKVEC_ASSIGN_OR_RETURN(Encoding encoding, tokenizer_->Encode(text));
  return WithSpecialTokens(encoding.ids);
}

int ModelDirectory::SpecialTokensBefore() const { return static_cast<int>(around_.before.size()); }
int ModelDirectory::SpecialTokensAfter() const { return static_cast<int>(around_.after.size()); }

std::vector<uint32_t> ModelDirectory::WithSpecialTokens(std::span<const uint32_t> ids) const {
  std::vector<uint32_t> out;
  out.reserve(ids.size() + around_.before.size() + around_.after.size());
  out.insert(out.end(), around_.before.begin(), around_.before.end());
  out.insert(out.end(), ids.begin(), ids.end());
  out.insert(out.end(), around_.after.begin(), around_.after.end());
  return out;
}

absl::StatusOr<EmbeddedText> ModelDirectory::Embed(std::string_view text, const EmbedOptions& options) const {
  TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, Tokenize(text));
  return EmbedIds(std::move(ids), options);
}

absl::StatusOr<EmbeddedText> ModelDirectory::EmbedIds(std::vector<uint32_t> ids, const EmbedOptions& options) const {
  const ModelConfig& config = model_->config();
  EmbeddedText out;
  out.tokens.reserve(ids.size());
  for (uint32_t id : ids) out.tokens.push_back(tokenizer_->TokenSpelling(id));
  const int64_t seq_len = static_cast<int64_t>(ids.size());
  ForwardOptions forward{.threads = options.threads, .keep_weights_of = options.keep_weights_of};

  if (options.window <= 0) {
    if (seq_len > config.max_len) {
      return absl::OutOfRangeError(fmt::format(
          "the input is {} tokens, longer than the model's maximum of {}; pass --truncate to cut it, or --window N "
          "--stride S to embed it in overlapping windows",
          seq_len, config.max_len));
    }
    TOKVEC_ASSIGN_OR_RETURN(ModelOutput result, model_->Forward(ids, forward));
    out.hidden = std::move(result.hidden);
    out.attention_weights = std::move(result.attention_weights);
    out.ids = std::move(ids);
    return out;
  }

  // Sliding windows. RoBERTa / BERT: windows cover the text between <s> and </s> ([CLS] and [SEP]), and each
  // gets its own <s> ... </s>.
  if (!options.keep_weights_of.empty()) {
    return absl::InvalidArgumentError("attention weights are not available with --window");
  }
  if (options.window > config.max_len) {
    return absl::InvalidArgumentError(
        fmt::format("--window {} is longer than the model's maximum of {} tokens", options.window, config.max_len));
  }
  const int64_t first = SpecialTokensBefore(), extra = first + SpecialTokensAfter();
  if (options.window <= extra) {
    return absl::InvalidArgumentError(fmt::format("--window {} leaves no room for text between {}", options.window,
                                                  config.arch == Architecture::kBert ||
                                                          config.arch == Architecture::kModernBert
                                                      ? "[CLS] and [SEP]"
                                                      : "<s> and </s>"));
  }
  const int64_t content_len = seq_len - extra;
  if (content_len < 0) {
    return absl::InvalidArgumentError(fmt::format("{} ids cannot hold the model's {} special tokens", seq_len, extra));
  }
  TOKVEC_ASSIGN_OR_RETURN(std::vector<Window> windows, PlanWindows(content_len, options.window - extra,
                                                                   options.stride));
  const std::vector<int> owner = AssignTokensToWindows(windows, content_len, model_->causal());
  out.hidden = Matrix(seq_len, config.d_model);
  for (size_t w = 0; w < windows.size(); ++w) {
    std::vector<uint32_t> window_ids;
    window_ids.insert(window_ids.end(), ids.begin(), ids.begin() + first);
    window_ids.insert(window_ids.end(), ids.begin() + first + windows[w].begin, ids.begin() + first + windows[w].end);
    window_ids.insert(window_ids.end(), ids.end() - (extra - first), ids.end());
    TOKVEC_ASSIGN_OR_RETURN(ModelOutput result, model_->Forward(window_ids, forward));
    auto copy_row = [&](int64_t from, int64_t to) {
      std::copy(result.hidden.row(from), result.hidden.row(from) + config.d_model, out.hidden.row(to));
    };
    for (int64_t t = windows[w].begin; t < windows[w].end; ++t) {
      if (owner[t] == static_cast<int>(w)) copy_row(first + t - windows[w].begin, first + t);
    }
    for (int64_t t = 0; w == 0 && t < first; ++t) copy_row(t, t);  // <s> from the first window
    for (int64_t t = 1; w + 1 == windows.size() && t <= extra - first; ++t) {
      copy_row(result.hidden.rows() - t, seq_len - t);  // </s> from the last
    }
  }
  out.ids = std::move(ids);
  return out;
}

}  // namespace tokvec
