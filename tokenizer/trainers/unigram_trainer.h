// Unigram vocabularies (`tokvec train --type unigram`): the T5 / XLM-R / ALBERT kind of tokenizer, trained by the
// EM of Kudo (2018) as SentencePiece's trainer runs it, written as a Hugging Face tokenizer.json.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string json, TrainUnigram({"corpus.txt"}, {.vocab_size = 8000}));
//   // {"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["<s>", 0.0], ["</s>", 0.0],
//   //            ["▁the", -3.1], ...
//
// How:
//   1. Words: the text through the file's normalizer (NFKC; tab, CR and LF become spaces; runs of spaces one;
//      white space stripped at both ends) and Metaspace (each space-separated word with `▁` before it), cut at the
//      added tokens (special tokens and `user_defined_symbols`, which Hugging Face matches first), counted line by
//      line on `threads`, each occurrence by how it ends: before another word, at the line's end, or before an
//      added token.
//   2. Characters: the most frequent covering `character_coverage` of all character occurrences are required
//      (always in the vocabulary); the rest are unknown (<unk>, or their UTF-8 bytes with `byte_fallback`).
//   3. Seeds: SentencePiece's, the nodes of the suffix tree of the running text (substrings that repeat and are
//      followed by two different characters; unknown characters all one), found with a suffix array
//      (libdivsufsort) over the distinct words, each once per way it ends, weighted by the words' counts and
//      scored count · length.
//      The required characters and the best valid substrings, `seed_size` pieces in all, are the first
//      vocabulary, scored by log share.
//      Valid: at most `max_piece_length` characters, required characters only, `▁` only first, one Unicode script
//      (Hiragana, Katakana and `ー` count as Han; `▁` counts as none), a digit only alone with `split_digits`.
//   4. EM: `sub_iterations` rounds of an E step (the expected count of each piece over every segmentation of
//      every word, forward-backward) and a Bayesian M step (score = ψ(count) − ψ(total), pieces expected less
//      than 0.5 times dropped). Then pruning: each piece's loss is how much the corpus likelihood falls when its
//      Viterbi occurrences go to its best other segmentation; the `shrinking_factor` share with the largest loss
//      stays (pieces with no other segmentation always stay). Repeated until 1.1 × the pieces wanted are left.
//      Unlike SentencePiece, neither the M step nor pruning drops a required character (the M step floors its
//      count at 0.5): a piece holding a dropped character would have no second-best cut but unk and could never
//      be pruned.
//   5. The vocabulary: the required characters, then the best-scored pieces, until `vocab_size` ids with the
//      special tokens (`<unk>` 0, `<s>` 1, `</s>` 2, `extra_special_tokens`), the user-defined symbols and, with
//      byte_fallback, the 256 `<0xNN>` tokens; pieces in order of score.
// The file: that normalizer, pre-tokenizer Metaspace (`▁`, prepend always, split), Unigram {unk_id 0,
// byte_fallback}, decoder Replace("▁", " ") + ByteFallback + Fuse + Strip(1 leading space), the special tokens and
// user-defined symbols as added tokens (special / not special); no post-processor. Hugging Face's ids on it are
// tokvec's (`make conformance`, trained-unigram/*).
//
// The E step and the pruning run on `threads`; expected counts are summed in fixed point (2^-24), so the result
// does not depend on `threads`. Memory follows the distinct words (the seed step: 17 bytes per byte of them, each
// word there once per way it ends).
#ifndef TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

struct UnigramRound {
  size_t round = 0;         // 1, 2, ...
  size_t pieces = 0;        // after the round's pruning
  double log_likelihood = 0;  // per word occurrence, from the round's last E step
};

struct UnigramTrainerOptions {
  size_t vocab_size = 8000;            // Every id: special tokens, byte tokens, pieces.
  double character_coverage = 0.9995;  // In (0, 1].
  size_t seed_size = 1000000;          // Pieces to start EM from.
  double shrinking_factor = 0.75;      // In (0, 1): share of pieces each pruning keeps.
  size_t max_piece_length = 16;        // In characters.
  size_t sub_iterations = 2;           // EM steps per pruning.
  bool byte_fallback = false;          // 256 <0xNN> tokens; unknown characters encode as their bytes.
  bool split_digits = false;           // Each digit its own piece.
  bool split_by_script = true;         // A piece holds one Unicode script.
  std::vector<std::string> extra_special_tokens;  // After <unk> <s> </s>.
  // SentencePiece's user-defined symbols: after the special tokens, added tokens that are not special (kept whole
  // wherever they occur, decoded as text); the text is cut at them when counting, so no piece spans one. Valid
  // UTF-8 without white space or `▁`, and as the normalizer leaves it (Hugging Face matches it in the raw text).
  std::vector<std::string> user_defined_symbols;
  size_t threads = 1;
  std::function<void(uint64_t bytes_read)> count_progress;
  std::function<void(const UnigramRound& round)> round_progress;
};

struct UnigramReport {
  size_t alphabet = 0;            // required characters
  size_t dropped_characters = 0;  // characters left unknown
  size_t words = 0;               // distinct words
  size_t seeds = 0;
  size_t rounds = 0;
  double log_likelihood = 0;  // per word occurrence, last E step
  std::string note;           // why the vocabulary is smaller than asked, or empty
};

struct UnigramPiece {
  std::string piece;
  double score;  // log probability
};

// The pieces (required characters and learned pieces, at most `piece_budget`, best score first) learned from
// counted words (valid UTF-8, normalized, each with its `▁`; a word may be listed twice, the second time with a
// final '\n' for its occurrences that end a line, as WordCounterOptions::mark_line_ends counts them: a whole word
// seeds a piece when it is followed by different things, as in SentencePiece's suffix array over the running
// text). Errors: an empty word list, options out of range, a budget below the required characters.
// `reserved`: spellings that are never pieces (special and byte tokens; a special token that is one character is
// matched in text before the model sees it, so that character is not required either).
absl::StatusOr<std::vector<UnigramPiece>> TrainUnigramPieces(const std::vector<WordCount>& words,
                                                             size_t piece_budget,
                                                             const UnigramTrainerOptions& options,
                                                             UnigramReport* report = nullptr,
                                                             const std::vector<std::string>& reserved = {});

// ψ, the digamma function (the M step's prior), for x > 0.
double Digamma(double x);

// Trains on `paths` ("-" is standard input) and returns the tokenizer.json text. Errors: options out of range, a
// vocabulary size below the special, byte and required-character tokens, an empty corpus, invalid UTF-8 (named by
// file and offset), a special token given twice or spelling a byte token. Options are checked before any text is
// read.
absl::StatusOr<std::string> TrainUnigram(const std::vector<std::string>& paths, const UnigramTrainerOptions& options,
                                         UnigramReport* report = nullptr);

// The two halves of TrainUnigram, for a count spread over processes (mpirun: each counts a share, the counts are
// summed by word, one process trains). CountUnigramWords counts share `share` of `shares` of `paths`
// (CountWordsInShare: files only; 0 of 1 is every input, "-" standard input) as TrainUnigram does: normalized, cut
// at white space and at the special tokens and user-defined symbols, each word with its `▁`, a line's last word
// with '\n' after it. The shares' counts summed by word are the whole's. TrainUnigramOnWords trains on such counts
// (in any order). Errors: the options' (both), invalid UTF-8, an empty word list.
absl::StatusOr<std::vector<WordCount>> CountUnigramWords(const std::vector<std::string>& paths,
                                                         const UnigramTrainerOptions& options, uint64_t share = 0,
                                                         uint64_t shares = 1);
absl::StatusOr<std::string> TrainUnigramOnWords(std::vector<WordCount> words, const UnigramTrainerOptions& options,
                                                UnigramReport* report = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_UNIGRAM_TRAINER_H_
