// SentencePiece-style BPE (`tokvec train --type spbpe`): the Llama-2 / Mistral kind of tokenizer, BPE over code
// points with `▁` for white space and byte fallback, written as a Hugging Face tokenizer.json.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string json, TrainSpBpe({"corpus.txt"}, {.vocab_size = 8000}));
//   // {"model": {"type": "BPE", "byte_fallback": true, "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x00>": 3, ...
//
// How, as SentencePiece's BPE trainer (Kudo & Richardson 2018) sees text:
//   1. Words are the white-space-separated runs of the text, each with `▁` before it ("Hello world" -> "▁Hello",
//      "▁world"); a word never holds white space, so no merge crosses a word boundary.
//   2. Characters: the most frequent ones covering `character_coverage` of all character occurrences are the
//      alphabet (SentencePiece's --character_coverage); a word is cut at every other character, which encodes as
//      its UTF-8 bytes, `<0x..>` (byte fallback).
//      With split_digits, a word is cut around each digit too, so no merge joins a digit to anything
//      (SentencePiece's --split_digits; "▁1984" encodes as "▁" "1" "9" "8" "4").
//   3. Merges by bpe_trainer.h's rule (the most frequent adjacent pair, ties by bytes) until the vocabulary has
//      `vocab_size` ids: `<unk>` 0, `<s>` 1, `</s>` 2, the 256 byte tokens `<0x00>`..`<0xFF>` 3..258, the alphabet,
//      then the merged pieces in merge order.
// The file: normalizer Prepend("▁") + Replace(" ", "▁"), no pre-tokenizer, BPE {byte_fallback, fuse_unk, unk
// "<unk>"}, decoder Replace("▁", " ") + ByteFallback + Fuse + Strip(1 leading space), the three special tokens as
// added tokens (Llama-2's tokenizer.json shape; no post-processor: add `<s>` with --add-special-tokens' template if
// wanted). Hugging Face's ids on it are tokvec's (`make conformance`, trained-spbpe/*).
//
// Memory follows the unique words, as `train`; the result does not depend on `threads`.
#ifndef TOKVEC_TOKENIZER_TRAINERS_SPBPE_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_SPBPE_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

struct SpBpeOptions {
  size_t vocab_size = 8000;          // Every id: 3 special tokens, 256 byte tokens, the alphabet, the merges.
  double character_coverage = 0.9995;  // In (0, 1]: the share of character occurrences the alphabet covers.
  uint64_t min_frequency = 0;        // Stop when the best pair occurs fewer times.
  bool split_digits = false;         // Each digit (Unicode Nd) a piece of its own: no merge holds one.
  size_t max_piece_length = 16;      // In characters (`▁` counts): no merge makes a longer piece. 0: no limit.
  size_t threads = 1;
  std::function<void(uint64_t bytes_read)> count_progress;
  std::function<void(size_t merges_done)> merge_progress;
};

struct SpBpeReport {
  size_t alphabet = 0;          // characters kept
  size_t dropped_characters = 0;  // characters left to byte fallback
  size_t merges = 0;
  std::string note;  // why training stopped before the vocabulary size, or empty
};

// Trains on `paths` ("-" is standard input) and returns the tokenizer.json text. Errors: a vocabulary size below
// 259 + the alphabet, a coverage outside (0, 1], an empty corpus, invalid UTF-8 (named by file and offset), a
// merged piece that spells `<unk>`, `<s>`, `</s>` or a byte token (the corpus holds that text).
absl::StatusOr<std::string> TrainSpBpe(const std::vector<std::string>& paths, const SpBpeOptions& options,
                                       SpBpeReport* report = nullptr);

// The two halves of TrainSpBpe, for a count spread over processes (mpirun: each counts a share, the counts are
// summed by word, one process trains). CountSpBpeWords counts the white-space-separated words of share `share` of
// `shares` of `paths` (CountWordsInShare: files only; 0 of 1 is every input, "-" standard input); the shares'
// counts summed by word are the whole's. TrainSpBpeOnWords trains on such counts (in any order).
absl::StatusOr<std::vector<WordCount>> CountSpBpeWords(const std::vector<std::string>& paths,
                                                       const SpBpeOptions& options, uint64_t share = 0,
                                                       uint64_t shares = 1);
absl::StatusOr<std::string> TrainSpBpeOnWords(std::vector<WordCount> words, const SpBpeOptions& options,
                                              SpBpeReport* report = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_SPBPE_TRAINER_H_
