// `tokvec fit --lines`: every line of the --data files is an example of its own, padded to T in its batch row,
// its padding hidden from attention by a key-padding mask.
//
// A line is the text between '\n's (a trailing '\r' removed); lines that are empty or only ASCII white space are
// skipped. A line longer than the row keeps its first T tokens (T + 1 for clm, whose targets are the inputs shifted
// by one): `LineExamples::truncated()` counts them and fit reports it. Row g of the run takes example g mod E in
// order (--no-shuffle), or, shuffled, example EpochOrder(E, seed, ⌊g / E⌋)[g mod E]: like windows, a row depends
// only on (seed, g), so --resume needs nothing but the step.
//
//   TOKVEC_ASSIGN_OR_RETURN(LineExamples lines, LineExamples::Encode(*tokenizer, {"lines.txt"}, T + 1));
//   MicroBatch batch = LineBatch(lines, LineObjective::kSimcse, first_row, B, T, shuffle, seed);
#ifndef TOKVEC_TRAINING_LINE_EXAMPLES_H_
#define TOKVEC_TRAINING_LINE_EXAMPLES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"
#include "training/train_step.h"

namespace tokvec::training {

class LineExamples {
 public:
  // Encodes every line of every file (special-token text is ordinary text), keeping at most max_tokens of each.
  // InvalidArgument when no file holds a non-blank line.
  static absl::StatusOr<LineExamples> Encode(const Tokenizer& tokenizer, const std::vector<std::string>& files,
                                             int64_t max_tokens);
  // From token ids already cut (tests, callers with their own encoding); empty lines are skipped.
  static LineExamples FromLines(const std::vector<std::vector<int32_t>>& lines);

  int64_t size() const { return static_cast<int64_t>(starts_.size()) - 1; }
  std::span<const int32_t> Example(int64_t e) const {
    return {ids_.data() + starts_[static_cast<size_t>(e)],
            static_cast<size_t>(starts_[static_cast<size_t>(e) + 1] - starts_[static_cast<size_t>(e)])};
  }
  int64_t truncated() const { return truncated_; }  // lines cut to max_tokens
  int64_t tokens() const { return static_cast<int64_t>(ids_.size()); }
  // The example row g reads (see the file comment).
  int64_t ExampleOfRow(int64_t g, bool shuffle, uint64_t seed) const;

 private:
  std::vector<int32_t> ids_;       // every kept token, example after example
  std::vector<int64_t> starts_;    // [E + 1] offsets into ids_
  int64_t truncated_ = 0;
  // The last epoch's order, kept so consecutive batches do not redraw it (fit calls from one thread).
  mutable std::vector<int64_t> order_;
  mutable int64_t order_epoch_ = -1;
  mutable uint64_t order_seed_ = 0;
};

// What a line row holds for each objective.
enum class LineObjective {
  kClm,     // inputs = the line's first min(n, T) tokens, targets = the next token (kIgnoreIndex past the line)
  kMlm,     // inputs = the line's tokens, targets from ApplyMlmMasking over the real tokens only
  kSimcse,  // 2B rows: row r and row B + r are the same line (two dropout draws); no targets
};

// Rows [first_row, first_row + B) as a micro-batch of T columns with key_lengths = each row's real tokens;
// padding positions hold pad_id and kIgnoreIndex targets. For kMlm, mask_id/vocab/seed are ApplyMlmMasking's.
MicroBatch LineBatch(const LineExamples& lines, LineObjective objective, int64_t first_row, int64_t B, int64_t T,
                     bool shuffle, uint64_t seed, int32_t pad_id = 0, int32_t mask_id = 0, int64_t vocab = 0,
                     uint64_t mask_seed = 0);

}  // namespace tokvec::training

#endif  // TOKVEC_TRAINING_LINE_EXAMPLES_H_
