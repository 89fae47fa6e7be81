// WordPiece vocabularies (`tokvec train --type wordpiece`): the BERT kind of tokenizer, words cut by BERT's
// normalizer and pre-tokenizer, pieces matched greedily longest-first with `##` before the non-initial ones,
// written as a Hugging Face tokenizer.json.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string json, TrainWordPiece({"corpus.txt"}, {.vocab_size = 8000}));
//   // {"model": {"type": "WordPiece", "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, ...
//
// How:
//   1. Words: BertNormalizer (clean text, spaces around CJK ideographs, `lowercase`, accents stripped when
//      lowercasing unless `strip_accents` says otherwise) then BertPreTokenizer (white space, each punctuation
//      character alone), counted as `tokvec train` counts. A word longer than 100 characters is left out: WordPiece
//      encodes it as [UNK] whole (max_input_chars_per_word).
//   2. Alphabet: every character, or the `limit_alphabet` most frequent (ties by code point). A word holding a
//      character outside it is left out of training (WordPiece encodes such a word as [UNK] whole). Each kept
//      character gets both forms, word-initial `c` and continuing `##c`, so every word made of them encodes
//      without [UNK]; punctuation and CJK ideographs only the first, as BERT's pre-tokenizer and normalizer make
//      each a word of its own.
//   3. Merges of adjacent symbols, a word starting as `c ##c ##c...`; merging `x` and `##y` gives `xy`, `##x` and
//      `##y` give `##xy`. Each step merges the pair with the best score:
//        - kLikelihood (WordPiece's criterion, Schuster & Nakajima 2012: the unit that "increases the likelihood on
//          the training data the most"): the growth of the corpus' log-likelihood under a unigram model of the
//          symbols when the pair becomes one new symbol (every count and the symbol total updated; for a result
//          that already exists, scored as if new); entries are re-scored lazily as the total falls, which only
//          lowers a score;
//        - kRatio: count(xy) / (count(x) · count(y)), the score usually quoted for WordPiece (Hugging Face's NLP
//          course), compared exactly (128-bit cross products); it favours pairs of rare symbols;
//        - kBpe (Hugging Face's WordPieceTrainer, which trains BPE with `##`, tokenizers#1777): count(xy).
//      Ties go to the pair whose left, then right, id is smallest (Hugging Face's rule; with these ids a
//      word-initial symbol comes before a continuing one, so tied merges grow words from their start, as
//      Hugging Face's do). Pairs occurring fewer than `min_frequency` times are never merged. A merge whose result
//      already exists reuses its id, as Hugging Face's trainer does. Stops at `vocab_size` ids or when no pair is
//      left (`note` says so).
// Ids: the special tokens in order ([PAD] [UNK] [CLS] [SEP] [MASK], then `extra_special_tokens`), the alphabet
// (initial forms by code point, then continuing forms by code point), then merged pieces in merge order.
//
// The file (bert-base-uncased's tokenizer.json shape): BertNormalizer, BertPreTokenizer, WordPiece {unk "[UNK]",
// "##", max_input_chars_per_word 100}, the BERT template `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1`, decoder
// WordPiece (cleanup). Hugging Face's ids on it are tokvec's (`make conformance`, trained-wordpiece/*).
//
// Counting runs on `threads`; the merges run on one thread. The result does not depend on `threads`.
#ifndef TOKVEC_TOKENIZER_TRAINERS_WORDPIECE_TRAINER_H_
#define TOKVEC_TOKENIZER_TRAINERS_WORDPIECE_TRAINER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

enum class WordPieceCriterion {
  kLikelihood,  // the unigram log-likelihood gain of the merge
  kRatio,       // count(xy) / (count(x) · count(y))
  kBpe,         // count(xy), as Hugging Face's WordPieceTrainer
};

struct WordPieceOptions {
  size_t vocab_size = 30000;  // Every id: special tokens, the characters' forms, merged pieces.
  WordPieceCriterion criterion = WordPieceCriterion::kLikelihood;
  uint64_t min_frequency = 0;  // Pairs occurring fewer times are never merged.
  size_t limit_alphabet = 0;   // Keep only this many characters (the most frequent); 0 keeps every one.
  bool lowercase = true;       // BertNormalizer lowercase (uncased BERT).
  std::optional<bool> strip_accents;  // Unset: strip when lowercasing, as BertNormalizer's null.
  std::vector<std::string> extra_special_tokens;  // After [PAD] [UNK] [CLS] [SEP] [MASK].
  size_t threads = 1;
  bool split_lines = false;  // Count each line on its own (word_counter.h).
  std::function<void(uint64_t bytes_read)> count_progress;
  std::function<void(size_t merges_done)> merge_progress;
};

struct WordPieceReport {
  size_t alphabet = 0;          // characters kept
  size_t continuing_forms = 0;  // `##c` forms (punctuation and CJK ideographs have none)
  size_t dropped_words = 0;  // distinct words left out (a character outside the alphabet, or > 100 characters)
  size_t merges = 0;
  std::string note;  // why training stopped before the vocabulary size, or empty
};

// The vocabulary (id -> piece) learned from counted words, which must be valid UTF-8 (as CountWords gives them
// with require_utf8; BERT-normalized and pre-tokenized for the file TrainWordPiece writes). Errors: a vocabulary
// size below the special tokens plus the characters' forms, a special token given twice or spelling a character's
// form.
absl::StatusOr<std::vector<std::string>> TrainWordPieceVocab(std::vector<WordCount> words,
                                                             const WordPieceOptions& options,
                                                             WordPieceReport* report = nullptr);

// Trains on `paths` ("-" is standard input) and returns the tokenizer.json text. Errors: a vocabulary size below
// the special tokens plus the characters' forms, an empty corpus, invalid UTF-8 (named by file and offset), a
// special token given twice.
absl::StatusOr<std::string> TrainWordPiece(const std::vector<std::string>& paths, const WordPieceOptions& options,
                                           WordPieceReport* report = nullptr);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_WORDPIECE_TRAINER_H_
