#include "attention/embed_texts.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "attention/ops.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// Most rows (B·T) one batched forward pass takes.
constexpr int64_t kBatchRows = 2048;

// Each text's result or error, filled from any thread; the progress callback called one at a time.
class Collector {
 public:
  Collector(size_t n, const EmbedTextsOptions& options) : results_(n), errors_(n), options_(options) {}

  void Fail(size_t i, absl::Status status) { errors_[i] = std::move(status); }
  void Finish(size_t i, absl::StatusOr<TextVectors> r) {
    if (r.ok()) {
      results_[i] = std::move(*r);
    } else {
      errors_[i] = r.status();
    }
    const size_t count = ++done_;
    if (options_.progress) {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      options_.progress(count, results_.size());
    }
  }
  // The first error in text order, naming the text.
  absl::Status FirstError() const {
    for (size_t i = 0; i < errors_.size(); ++i) {
      if (!errors_[i].ok()) {
        return absl::Status(errors_[i].code(), fmt::format("{} {}: {}", options_.item_name, i + 1,
                                                           std::string(errors_[i].message())));
      }
    }
    return absl::OkStatus();
  }
  std::vector<TextVectors> Take() { return std::move(results_); }

 private:
  std::vector<TextVectors> results_;
  std::vector<absl::Status> errors_;
  const EmbedTextsOptions& options_;
  std::atomic<size_t> done_{0};
  std::mutex progress_mutex_;
};

}  // namespace

absl::StatusOr<PoolingChoice> ChoosePooling(const ModelDirectory& dir, std::string_view name, bool normalize) {
  PoolingChoice choice{.pooling = Pooling::kNone, .normalize = normalize};
  if (name == "auto") {
    if (dir.sentence_pooling().has_value()) {
      choice.pooling = dir.sentence_pooling()->pooling;
      choice.normalize = normalize || dir.sentence_pooling()->normalize;
    }
    return choice;
  }
  TOKVEC_ASSIGN_OR_RETURN(choice.pooling, ParsePooling(name));
  return choice;
}

absl::StatusOr<TextVectors> PoolEmbedded(EmbeddedText embedded, Pooling pooling, bool normalize) {
  TextVectors out{std::move(embedded.ids), std::move(embedded.tokens), {}};
  if (pooling == Pooling::kNone) {
    out.vectors = std::move(embedded.hidden);
  } else {
    TOKVEC_ASSIGN_OR_RETURN(std::vector<float> pooled, PoolVectors(embedded.hidden.view(), pooling));  // [D]
    out.vectors = Matrix(1, static_cast<int64_t>(pooled.size()));                                     // [1, D]
    std::copy(pooled.begin(), pooled.end(), out.vectors.data());
  }
  if (normalize) {
    for (int64_t r = 0; r < out.vectors.rows(); ++r) {
      NormalizeL2(std::span<float>(out.vectors.row(r), static_cast<size_t>(out.vectors.cols())));
    }
  }
  return out;
}

absl::StatusOr<std::vector<TextVectors>> EmbedTexts(const ModelDirectory& dir,
                                                    const std::vector<std::string_view>& texts,
                                                    const EmbedTextsOptions& options) {
  const size_t n = texts.size();
  const int threads = std::max(1, options.threads);
  Collector collector(n, options);
  EmbedOptions embed_options{.threads = 1, .window = options.window, .stride = options.stride};
  if (options.window > 0) {
    ParallelFor(static_cast<int64_t>(n), threads, [&](int64_t i) {
      absl::StatusOr<EmbeddedText> embedded = dir.Embed(texts[i], embed_options);
      if (!embedded.ok()) return collector.Finish(i, embedded.status());
      collector.Finish(i, PoolEmbedded(std::move(*embedded), options.pooling, options.normalize));
    });
    TOKVEC_RETURN_IF_ERROR(collector.FirstError());
    return collector.Take();
  }
  // Tokenize, then batch and run (EmbedIdSequences).
  std::vector<std::vector<uint32_t>> ids(n);
  ParallelFor(static_cast<int64_t>(n), threads, [&](int64_t i) {
    absl::StatusOr<std::vector<uint32_t>> r = dir.Tokenize(texts[i]);
    if (r.ok()) {
      ids[i] = std::move(*r);
    } else {
      collector.Fail(i, r.status());
    }
  });
  TOKVEC_RETURN_IF_ERROR(collector.FirstError());
  return EmbedIdSequences(dir, std::move(ids), options);
}

absl::StatusOr<std::vector<TextVectors>> EmbedIdSequences(const ModelDirectory& dir,
                                                          std::vector<std::vector<uint32_t>> ids,
                                                          const EmbedTextsOptions& options) {
  if (options.window > 0) return absl::InvalidArgumentError("EmbedIdSequences: windows are not supported");
  const size_t n = ids.size();
  const int threads = std::max(1, options.threads);
  Collector collector(n, options);
  // 1. Batches of texts with the same token count, in a fixed order: longest first (then by position), so that
  //    with several threads the short ones fill in at the end instead of one long text running alone.
  std::map<size_t, std::vector<size_t>, std::greater<>> by_length;
  for (size_t i = 0; i < n; ++i) by_length[ids[i].size()].push_back(i);
  const size_t max_sequences = std::max<size_t>(1, options.batch_sequences);
  std::vector<std::vector<size_t>> batches;
  for (const auto& [length, members] : by_length) {
    const size_t per_batch =
        std::clamp<size_t>(static_cast<size_t>(kBatchRows) / std::max<size_t>(length, 1), 1, max_sequences);
    for (size_t b = 0; b < members.size(); b += per_batch) {
      batches.emplace_back(members.begin() + b, members.begin() + std::min(members.size(), b + per_batch));
    }
  }
  // 2. Run them: several batches side by side, or one batch at a time with every thread inside it. Each worker
  //    keeps one workspace (buffers, and threads when inner > 1) for all the batches it takes.
  const int outer = static_cast<int64_t>(batches.size()) >= threads ? threads : 1;
  const int inner = outer == 1 ? threads : 1;
  const int64_t max_len = dir.model().config().max_len;
  auto run_batch = [&](const std::vector<size_t>& members, ForwardBatchWorkspace* workspace) {
    std::vector<std::vector<uint32_t>> batch;  // [B] x [T]
    for (size_t i : members) batch.push_back(ids[i]);
    if (static_cast<int64_t>(batch[0].size()) > max_len) {
      for (size_t i : members) {
        collector.Finish(i, absl::OutOfRangeError(fmt::format(
                      "{} tokens, longer than the model's maximum of {}; pass --window N --stride S to embed it in "
                      "overlapping windows (it is never truncated)",
                      batch[0].size(), max_len)));
      }
      return;
    }
    absl::StatusOr<std::vector<Matrix>> hidden = dir.model().ForwardBatch(batch, inner, workspace);  // [B] x [T, D]
    for (size_t k = 0; k < members.size(); ++k) {
      if (!hidden.ok()) {
        collector.Finish(members[k], hidden.status());
        continue;
      }
      EmbeddedText embedded;
      embedded.ids = std::move(batch[k]);
      for (uint32_t id : embedded.ids) embedded.tokens.push_back(dir.tokenizer().TokenSpelling(id));
      embedded.hidden = std::move((*hidden)[k]);
      collector.Finish(members[k], PoolEmbedded(std::move(embedded), options.pooling, options.normalize));
    }
  };
  std::vector<ForwardBatchWorkspace> workspaces(static_cast<size_t>(outer));
  std::atomic<size_t> next{0};
  ParallelFor(outer, outer, [&](int64_t worker) {
    for (size_t b = next++; b < batches.size(); b = next++) run_batch(batches[b], &workspaces[worker]);
  });
  TOKVEC_RETURN_IF_ERROR(collector.FirstError());
  return collector.Take();
}

}  // namespace tokvec
