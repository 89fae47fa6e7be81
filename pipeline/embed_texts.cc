#include "pipeline/embed_texts.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "kernels/ops.h"

namespace tokvec {
namespace {

// Most rows (token positions of all its texts) one batched forward pass takes: ~70 MB of buffers for a 768-wide
// model (ForwardBatchWorkspace). 32 texts of ~120 tokens, GPT-2 small, 2 threads, library tokens/s (medians of 7):
// batches of 512 rows 2,211, 1,024 rows 2,296-2,370, 2,048 rows 2,239 with a batch per thread; 2,048 rows with
// both threads in each batch 2,270-2,417, 4,096 rows 2,403.
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
      choice.dense = dir.sentence_pooling()->dense;
    }
    return choice;
  }
  TOKVEC_ASSIGN_OR_RETURN(choice.pooling, ParsePooling(name));
  return choice;
}

int64_t OutputWidth(const ModelDirectory& dir, const PoolingChoice& choice) {
  const int64_t d = dir.model().config().d_model;
  return choice.pooling == Pooling::kNone ? d : DenseOutputWidth(choice.dense, d);
}

absl::StatusOr<Truncation> ParseTruncation(std::string_view side) {
  if (side == "right") return Truncation::kRight;
  if (side == "left") return Truncation::kLeft;
  return absl::InvalidArgumentError(fmt::format("truncation side must be right or left, not '{}'", side));
}

int64_t TruncationLength(const ModelDirectory& dir) {
  const int64_t model = dir.model().config().max_len, configured = dir.sentence_config().max_seq_length;
  return configured > 0 ? std::min(configured, model) : model;
}

absl::StatusOr<int64_t> PromptPoolingSkip(const ModelDirectory& dir, const PoolingChoice& choice,
                                          bool sentence_pooling, std::string_view prompt) {
  if (prompt.empty() || !sentence_pooling || !dir.sentence_pooling() || dir.sentence_pooling()->include_prompt ||
      (choice.pooling != Pooling::kMean && choice.pooling != Pooling::kMax)) {
    return 0;
  }
  TOKVEC_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, dir.Tokenize(prompt));
  return std::max<int64_t>(0, static_cast<int64_t>(ids.size()) - 1);
}

absl::Status TruncateIds(const ModelDirectory& dir, Truncation side, int64_t max_length, std::vector<uint32_t>* ids) {
  const int64_t before = dir.SpecialTokensBefore(), after = dir.SpecialTokensAfter();
  const int64_t length = static_cast<int64_t>(ids->size());
  if (side == Truncation::kNone || length <= max_length) return absl::OkStatus();
  if (max_length < before + after + 1) {
    return absl::InvalidArgumentError(fmt::format(
        "a maximum length of {} leaves no room for text between the model's {} special tokens", max_length,
        before + after));
  }
  const int64_t cut = length - max_length;  // text tokens to drop
  const auto first = ids->begin() + (side == Truncation::kRight ? length - after - cut : before);
  ids->erase(first, first + cut);
  return absl::OkStatus();
}

Matrix StackVectors(const std::vector<TextVectors>& results, int64_t d) {
  int64_t rows = 0;
  for (const TextVectors& r : results) rows += r.vectors.rows();
  Matrix all(rows, d);
  int64_t at = 0;
  for (const TextVectors& r : results) {
    std::copy(r.vectors.data(), r.vectors.data() + r.vectors.size(), all.row(at));
    at += r.vectors.rows();
  }
  return all;
}

absl::StatusOr<TextVectors> PoolEmbedded(EmbeddedText embedded, Pooling pooling, bool normalize,
                                         int64_t pool_skip, const std::vector<SentenceDense>* dense) {
  TextVectors out{std::move(embedded.ids), std::move(embedded.tokens), {}};
  if (pooling == Pooling::kNone) {
    out.vectors = std::move(embedded.hidden);
  } else {
    MatrixView hidden = embedded.hidden.view();
    if (pool_skip > 0 && (pooling == Pooling::kMean || pooling == Pooling::kMax)) {
      if (pool_skip >= hidden.rows) {
        return absl::InvalidArgumentError(fmt::format(
            "the prompt's {} tokens leave none of the text's to pool (include_prompt is false)", pool_skip));
      }
      hidden = {hidden.row(pool_skip), hidden.rows - pool_skip, hidden.cols};
    }
    TOKVEC_ASSIGN_OR_RETURN(std::vector<float> pooled, PoolVectors(hidden, pooling));  // [D]
    if (dense != nullptr) {
      for (const SentenceDense& layer : *dense) {
        TOKVEC_ASSIGN_OR_RETURN(pooled, ApplyDense(layer, pooled));  // [out_features]
      }
    }
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
  if (options.window > 0 && options.truncate != Truncation::kNone) {
    return absl::InvalidArgumentError("truncation and windows exclude each other");
  }
  // The prompt goes before each text as text, as sentence-transformers puts it.
  auto text_of = [&](size_t i) {
    return options.prompt.empty() ? std::string(texts[i]) : options.prompt + std::string(texts[i]);
  };
  if (options.window > 0) {
    ParallelFor(static_cast<int64_t>(n), threads, [&](int64_t i) {
      absl::StatusOr<EmbeddedText> embedded = dir.Embed(text_of(i), embed_options);
      if (!embedded.ok()) return collector.Finish(i, embedded.status());
      collector.Finish(i, PoolEmbedded(std::move(*embedded), options.pooling, options.normalize, options.pool_skip,
                                       options.dense.get()));
    });
    TOKVEC_RETURN_IF_ERROR(collector.FirstError());
    return collector.Take();
  }
  // Tokenize, then batch and run (EmbedIdSequences).
  std::vector<std::vector<uint32_t>> ids(n);
  ParallelFor(static_cast<int64_t>(n), threads, [&](int64_t i) {
    absl::StatusOr<std::vector<uint32_t>> r =
        options.prompt.empty() ? dir.Tokenize(texts[i]) : dir.Tokenize(text_of(i));
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
                                                          const EmbedTextsOptions& options,
                                                          std::vector<std::vector<uint8_t>> type_ids) {
  if (options.window > 0) return absl::InvalidArgumentError("EmbedIdSequences: windows are not supported");
  const size_t n = ids.size();
  if (!type_ids.empty()) {
    if (options.truncate != Truncation::kNone) {
      return absl::InvalidArgumentError("EmbedIdSequences: type ids are not supported with truncation");
    }
    if (type_ids.size() != n) {
      return absl::InvalidArgumentError(fmt::format("{} sequences but {} lists of type ids", n, type_ids.size()));
    }
    for (size_t i = 0; i < n; ++i) {
      if (type_ids[i].size() != ids[i].size()) {
        return absl::InvalidArgumentError(fmt::format("{} {}: {} ids but {} type ids", options.item_name, i + 1,
                                                      ids[i].size(), type_ids[i].size()));
      }
    }
  }
  const int threads = std::max(1, options.threads);
  Collector collector(n, options);
  if (options.truncate != Truncation::kNone) {
    const int64_t max_length = options.max_length > 0 ? options.max_length : TruncationLength(dir);
    if (max_length > dir.model().config().max_len) {
      return absl::InvalidArgumentError(fmt::format("a maximum length of {} is more than the model's {} tokens",
                                                    max_length, dir.model().config().max_len));
    }
    for (std::vector<uint32_t>& sequence : ids) {
      TOKVEC_RETURN_IF_ERROR(TruncateIds(dir, options.truncate, max_length, &sequence));
    }
  }
  // 1. Batches in a fixed order, longest texts first (then by position), so that with several threads the short
  //    ones fill in at the end instead of one long text running alone. Models that take sequences of different
  //    lengths together (Model::RaggedBatches) get consecutive texts; the others texts of the same token count.
  //    At most kBatchRows rows (or one text) and `batch_sequences` texts per batch.
  const size_t max_sequences = std::max<size_t>(1, options.batch_sequences);
  const int64_t max_len = dir.model().config().max_len;
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a].size() > ids[b].size(); });
  std::vector<std::vector<size_t>> batches;
  const bool ragged = dir.model().RaggedBatches();
  size_t rows = 0;
  for (size_t i : order) {
    const size_t length = ids[i].size();
    // A text over the model's limit is alone in its batch (it fails with its own error).
    const bool fits = !batches.empty() && batches.back().size() < max_sequences &&
                      rows + length <= static_cast<size_t>(kBatchRows) &&
                      static_cast<int64_t>(ids[batches.back().front()].size()) <= max_len &&
                      static_cast<int64_t>(length) <= max_len &&
                      (ragged || ids[batches.back().front()].size() == length);
    if (!fits) {
      batches.emplace_back();
      rows = 0;
    }
    batches.back().push_back(i);
    rows += length;
  }
  // 2. Run them: one batch at a time with every thread inside it (ragged batches: the threads share each layer's
  //    weights in cache), else several batches side by side when there are enough. Each worker keeps one
  //    workspace (buffers, and threads when inner > 1) for all the batches it takes.
  const int outer = !ragged && static_cast<int64_t>(batches.size()) >= threads ? threads : 1;
  const int inner = outer == 1 ? threads : 1;
  std::function<void(const std::vector<size_t>&, ForwardBatchWorkspace*)> run_batch =
      [&](const std::vector<size_t>& members, ForwardBatchWorkspace* workspace) {
    std::vector<std::vector<uint32_t>> batch;  // [B] x [T]
    std::vector<std::vector<uint8_t>> types;   // [B] x [T], or none
    for (size_t i : members) {
      batch.push_back(ids[i]);
      if (!type_ids.empty()) types.push_back(type_ids[i]);
    }
    if (static_cast<int64_t>(batch[0].size()) > max_len) {  // alone in its batch
      for (size_t i : members) {
        collector.Finish(i, absl::OutOfRangeError(fmt::format(
                      "{} tokens, longer than the model's maximum of {}; pass --truncate to cut it, or --window N "
                      "--stride S to embed it in overlapping windows",
                      batch[0].size(), max_len)));
      }
      return;
    }
    absl::StatusOr<std::vector<Matrix>> hidden =  // [B] x [T, D]
        dir.model().ForwardBatch(batch, inner, workspace, types.empty() ? nullptr : &types);
    if (!hidden.ok() && members.size() > 1) {  // each text alone, so that the error names the text that has it
      for (size_t i : members) run_batch({i}, workspace);
      return;
    }
    for (size_t k = 0; k < members.size(); ++k) {
      if (!hidden.ok()) {
        collector.Finish(members[k], hidden.status());
        continue;
      }
      EmbeddedText embedded;
      embedded.ids = std::move(batch[k]);
      for (uint32_t id : embedded.ids) embedded.tokens.push_back(dir.tokenizer().TokenSpelling(id));
      embedded.hidden = std::move((*hidden)[k]);
      collector.Finish(members[k],
                       PoolEmbedded(std::move(embedded), options.pooling, options.normalize, options.pool_skip,
                                    options.dense.get()));
    }
  };
  std::vector<std::unique_ptr<ForwardBatchWorkspace>> workspaces;  // [outer], kept by the model between calls
  for (int worker = 0; worker < outer; ++worker) workspaces.push_back(dir.model().TakeWorkspace());
  std::atomic<size_t> next{0};
  ParallelFor(outer, outer, [&](int64_t worker) {
    for (size_t b = next++; b < batches.size(); b = next++) run_batch(batches[b], workspaces[worker].get());
  });
  for (std::unique_ptr<ForwardBatchWorkspace>& workspace : workspaces) {
    dir.model().GiveBackWorkspace(std::move(workspace));
  }
  TOKVEC_RETURN_IF_ERROR(collector.FirstError());
  return collector.Take();
}

}  // namespace tokvec
