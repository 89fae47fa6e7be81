#include "training/line_examples.h"

#include <algorithm>
#include <memory>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "training/kernels.h"
#include "training/token_stream.h"

namespace tokvec::training {
namespace {

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; });
}

}  // namespace

absl::StatusOr<LineExamples> LineExamples::Encode(const Tokenizer& tokenizer, const std::vector<std::string>& files,
                                                  int64_t max_tokens) {
  if (max_tokens < 1) return absl::InvalidArgumentError(fmt::format("max_tokens {} < 1", max_tokens));
  LineExamples lines;
  lines.starts_.push_back(0);
  std::vector<TokenId> ids;
  for (const std::string& file : files) {
    // Mapped, not read: the text is visited once, line by line, and only the kept ids stay in memory.
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> mapped, MappedFile::Open(file));
    const std::string_view text = mapped->data();
    size_t begin = 0;
    while (begin < text.size()) {
      size_t end = text.find('\n', begin);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!IsBlank(line)) {
        ids.clear();
        TOKVEC_RETURN_IF_ERROR(tokenizer.EncodeIds(line, {}, &ids, begin));
        const size_t keep = std::min(ids.size(), static_cast<size_t>(max_tokens));
        if (keep < ids.size()) ++lines.truncated_;
        for (size_t i = 0; i < keep; ++i) lines.ids_.push_back(static_cast<int32_t>(ids[i]));
        lines.starts_.push_back(static_cast<int64_t>(lines.ids_.size()));
      }
      begin = end + 1;
    }
  }
  if (lines.size() == 0) {
    return absl::InvalidArgumentError(
        fmt::format("--lines: {} hold{} no non-blank line", fmt::join(files, ", "), files.size() == 1 ? "s" : ""));
  }
  return lines;
}

LineExamples LineExamples::FromLines(const std::vector<std::vector<int32_t>>& lines) {
  LineExamples examples;
  examples.starts_.push_back(0);
  for (const std::vector<int32_t>& line : lines) {
    if (line.empty()) continue;
    examples.ids_.insert(examples.ids_.end(), line.begin(), line.end());
    examples.starts_.push_back(static_cast<int64_t>(examples.ids_.size()));
  }
  return examples;
}

int64_t LineExamples::ExampleOfRow(int64_t g, bool shuffle, uint64_t seed) const {
  const int64_t E = size();
  if (!shuffle) return g % E;
  const int64_t epoch = g / E;
  if (epoch != order_epoch_ || seed != order_seed_) {
    order_ = EpochOrder(E, seed, epoch);
    order_epoch_ = epoch;
    order_seed_ = seed;
  }
  return order_[static_cast<size_t>(g % E)];
}

MicroBatch LineBatch(const LineExamples& lines, LineObjective objective, int64_t first_row, int64_t B, int64_t T,
                     bool shuffle, uint64_t seed, int32_t pad_id, int32_t mask_id, int64_t vocab,
                     uint64_t mask_seed) {
  const int64_t rows = objective == LineObjective::kSimcse ? 2 * B : B;
  MicroBatch batch{.B = rows, .T = T};
  batch.inputs.assign(static_cast<size_t>(rows * T), pad_id);
  batch.targets.assign(static_cast<size_t>(rows * T), kIgnoreIndex);
  batch.key_lengths.assign(static_cast<size_t>(rows), 1);
  if (objective == LineObjective::kSimcse) batch.pairs = B;
  for (int64_t r = 0; r < B; ++r) {
    const std::span<const int32_t> line = lines.Example(lines.ExampleOfRow(first_row + r, shuffle, seed));
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(line.size()), T);  // real input tokens
    int32_t* in = batch.inputs.data() + r * T;
    int32_t* out = batch.targets.data() + r * T;
    std::copy_n(line.begin(), n, in);
    batch.key_lengths[static_cast<size_t>(r)] = static_cast<int32_t>(n);
    if (objective == LineObjective::kClm) {
      for (int64_t t = 0; t + 1 < static_cast<int64_t>(line.size()) && t < T; ++t) out[t] = line[static_cast<size_t>(t + 1)];
    } else if (objective == LineObjective::kSimcse) {
      std::copy_n(in, T, batch.inputs.data() + (B + r) * T);
      batch.key_lengths[static_cast<size_t>(B + r)] = static_cast<int32_t>(n);
    }
  }
  if (objective == LineObjective::kMlm) {
    ApplyMlmMasking(batch, first_row, mask_id, vocab, mask_seed);
    for (int64_t r = 0; r < B; ++r) {  // padding is neither masked nor predicted
      for (int64_t t = batch.key_lengths[static_cast<size_t>(r)]; t < T; ++t) {
        batch.inputs[static_cast<size_t>(r * T + t)] = pad_id;
        batch.targets[static_cast<size_t>(r * T + t)] = kIgnoreIndex;
      }
    }
  }
  if (objective == LineObjective::kSimcse) batch.targets.clear();
  return batch;
}

}  // namespace tokvec::training
