// Counting the unique pieces ("words") of a corpus in one streaming pass, the first step of BPE training.
//
//   WhitespacePreTokenizer pre_tokenizer;
//   WordCounterOptions options{.pre_tokenizer = &pre_tokenizer, .require_utf8 = true, .threads = 2};
//   TOKVEC_ASSIGN_OR_RETURN(std::vector<WordCount> words, CountWords({"corpus.txt"}, options));
//   // "low low lower" -> {"low", 2}, {"lower", 1} (in no particular order)
//
// The pieces counted are the pieces `tokvec encode` cuts: each input is one text, normalized and pre-tokenized
// as a whole, so a piece may hold a line end and the white space after it ("\n    " before indented code; GPT-2
// spells it `Ċ` `ĠĠĠ`...). Files are read in chunks of about `chunk_bytes` that end at a cut point where the
// pre-tokenizer's FindCut allows (the pieces of the parts are the pieces of the whole, as encode cuts; with a
// normalizer, only before ASCII white space that follows an ASCII letter or digit, where the normalizer allows
// a cut too: see Cutter in word_counter.cc); a chunk grows until it holds one. So memory follows the number of
// unique pieces, not the corpus size.
//
// With `split_lines` each line, with its '\n', is normalized and pre-tokenized on its own instead (as the
// Hugging Face trainer feeds lines), and chunks end at a newline. A pre-tokenizer that cannot tell where text
// may be cut (an arbitrary regex: FindsCuts() is false) is always counted this way: cutting its text anywhere
// could change its pieces, and not cutting would hold a whole file in memory. For whitespace words both ways
// give the same counts (no word holds white space).
//
// With `threads` > 1 the chunks are counted by that many workers; the counts are exact sums, so the result does
// not depend on the thread count or the chunk size (only its order does, and the trainer does not depend on
// that order).
#ifndef TOKVEC_TOKENIZER_TRAINERS_WORD_COUNTER_H_
#define TOKVEC_TOKENIZER_TRAINERS_WORD_COUNTER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/normalizers/normalizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

struct WordCount {
  std::string word;  // The piece's bytes.
  uint64_t count;    // How many times it occurs in the corpus.
};

struct WordCounterOptions {
  const PreTokenizer* pre_tokenizer = nullptr;  // Required; not owned.
  const Normalizer* normalizer = nullptr;       // Optional; not owned.
  bool require_utf8 = false;  // Invalid UTF-8 is an error naming the file and byte offset (word models).
  size_t threads = 1;         // Counting workers; 1 counts on the calling thread.
  size_t chunk_bytes = size_t{1} << 20;  // Read size; a chunk grows until it ends at a cut point.
  bool split_lines = false;  // Count each line on its own (the Hugging Face trainer's way), not the whole text.
  // With split_lines, how each piece ends, for a caller whose normalizer leaves no '\n' or '\r' in a line (the
  // Unigram trainer's seeds): a piece with only ASCII white space after it on its line is counted as its bytes
  // and '\n'; one followed by white space or `▁` and more text as it is; one followed at once by anything else
  // (text the pre-tokenizer dropped: an added token) as its bytes and '\r'.
  bool mark_line_ends = false;
  // Called on the reading thread after each chunk with the total bytes read so far.
  std::function<void(uint64_t bytes_read)> progress;
};

// Counts the pieces of every file in `paths` ("-" is standard input). Errors name the file (and byte offset).
absl::StatusOr<std::vector<WordCount>> CountWords(const std::vector<std::string>& paths,
                                                  const WordCounterOptions& options);
// The pieces of share `share` of `shares` of the inputs (files only, no "-"): the files' bytes taken end to end
// are cut into `shares` near-equal byte ranges, each boundary moved to the next cut point (the next line start
// when counting lines), so the shares' counts add up to CountWords(paths) for any number of shares (a share
// may be empty). What `tokvec count --shard i/P` and each rank of `mpirun tokvec train` count.
absl::StatusOr<std::vector<WordCount>> CountWordsInShare(const std::vector<std::string>& paths, uint64_t share,
                                                         uint64_t shares, const WordCounterOptions& options);

// The same for a text held in memory (named `name` in messages).
absl::StatusOr<std::vector<WordCount>> CountWordsInText(std::string_view text, const WordCounterOptions& options,
                                                        const std::string& name = "<text>");

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_WORD_COUNTER_H_
