#include "pipeline/cross_encoder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "pipeline/embed_texts.h"
#include "tokenizer/sequence_encoding.h"

namespace tokvec {

absl::StatusOr<SequenceClassifier> LoadSequenceClassifier(const ModelDirectory& directory) {
  const std::string& dir = directory.path();
  const std::string single = dir + "/model.safetensors";
  const std::string weights = std::filesystem::exists(single) ? single : dir + "/model.safetensors.index.json";
  return SequenceClassifier::Load(dir + "/config.json", weights, directory.model().config().d_model);
}

absl::StatusOr<CrossEncoder> CrossEncoder::Load(const std::string& dir, LinearDtype dtype) {
  TOKVEC_ASSIGN_OR_RETURN(ModelDirectory directory, ModelDirectory::Load(dir, dtype));
  TOKVEC_ASSIGN_OR_RETURN(SequenceClassifier head, LoadSequenceClassifier(directory));
  return CrossEncoder(std::move(directory), std::move(head));
}

absl::StatusOr<std::vector<std::vector<float>>> CrossEncoder::Logits(absl::Span<const std::string_view> a,
                                                                     absl::Span<const std::string_view> b,
                                                                     int threads) const {
  return ClassifierLogits(directory_, head_, a, b, threads);
}

absl::StatusOr<ClassifierInputs> EncodeClassifierInputs(const ModelDirectory& directory,
                                                        absl::Span<const std::string_view> a,
                                                        absl::Span<const std::string_view> b) {
  if (!b.empty() && b.size() != a.size()) {
    return absl::InvalidArgumentError(fmt::format("{} first texts and {} second texts", a.size(), b.size()));
  }
  SequenceLengths lengths;
  lengths.truncation = TruncationParams{.max_length = static_cast<size_t>(directory.model().config().max_len)};
  ClassifierInputs inputs;
  inputs.ids.reserve(a.size());
  inputs.type_ids.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::optional<std::string_view> second;
    if (!b.empty()) second = b[i];
    absl::StatusOr<EncodedTokens> encoded =
        EncodeSequences(directory.tokenizer(), a[i], second, {.add_special_tokens = true}, lengths);
    if (!encoded.ok()) {
      return absl::Status(encoded.status().code(), fmt::format("{} {}: {}", b.empty() ? "text" : "pair", i + 1,
                                                               std::string(encoded.status().message())));
    }
    if (encoded->ids.empty()) {
      return absl::InvalidArgumentError(fmt::format("{} {} has no tokens", b.empty() ? "text" : "pair", i + 1));
    }
    inputs.ids.emplace_back(encoded->ids.begin(), encoded->ids.end());
    inputs.type_ids.emplace_back(encoded->type_ids.begin(), encoded->type_ids.end());
  }
  return inputs;
}

absl::StatusOr<std::vector<std::vector<float>>> ClassifierLogits(const ModelDirectory& directory,
                                                                 const SequenceClassifier& head,
                                                                 absl::Span<const std::string_view> a,
                                                                 absl::Span<const std::string_view> b, int threads) {
  TOKVEC_ASSIGN_OR_RETURN(ClassifierInputs inputs, EncodeClassifierInputs(directory, a, b));
  TOKVEC_ASSIGN_OR_RETURN(std::vector<TextVectors> hidden,
                          EmbedIdSequences(directory, std::move(inputs.ids),
                                           {.threads = threads, .item_name = b.empty() ? "text" : "pair"},
                                           std::move(inputs.type_ids)));
  std::vector<std::vector<float>> out;
  out.reserve(hidden.size());
  for (const TextVectors& h : hidden) out.push_back(head.Logits(h.vectors.view()));
  return out;
}

std::vector<float> ScoresOf(const std::vector<float>& logits, bool raw_scores) {
  if (raw_scores) return logits;
  std::vector<float> scores(logits.size());
  if (logits.size() == 1) {
    scores[0] = static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(logits[0]))));
    return scores;
  }
  const float top = *std::max_element(logits.begin(), logits.end());
  double sum = 0.0;
  for (float l : logits) sum += std::exp(static_cast<double>(l - top));
  for (size_t i = 0; i < logits.size(); ++i) {
    scores[i] = static_cast<float>(std::exp(static_cast<double>(logits[i] - top)) / sum);
  }
  return scores;
}

std::vector<RankedDocument> RankDocuments(const std::vector<std::vector<float>>& logits, bool raw_scores,
                                          size_t top_k) {
  std::vector<RankedDocument> ranked;
  ranked.reserve(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    const std::vector<float> scores = ScoresOf(logits[i], raw_scores);
    ranked.push_back({i, scores.empty() ? 0.0f : scores[0]});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedDocument& x, const RankedDocument& y) { return x.score > y.score; });
  if (top_k > 0 && ranked.size() > top_k) ranked.resize(top_k);
  return ranked;
}

}  // namespace tokvec
