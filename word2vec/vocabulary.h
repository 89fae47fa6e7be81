// The training vocabulary of Word2Vec and the corpus as an array of word ids.
//
//   TOKVEC_ASSIGN_OR_RETURN(Corpus corpus, ReadWordCorpus({"text.txt"}, {.min_count = 5}));
//   corpus.vocab.words[0] == "</s>"   // the line end, as word2vec.c names it
//   corpus.ids                        // every kept word of the text, in order; 0 at each line end
//
// Words are split as word2vec.c's ReadWord splits them (Mikolov et al. 2013a, the tool that came with it):
// ' ', '\t' and '\n' separate words, '\r' is dropped, and each '\n' is the word "</s>", which also ends a
// sentence (context windows never cross it). Words seen fewer than min_count times are left out of the
// vocabulary and of `ids`; "</s>" is always word 0. The other words are sorted by count, most frequent first,
// ties by their bytes (word2vec.c leaves ties to qsort), so ids are a deterministic function of the text.
//
// Why an id array: word2vec.c reads the text character by character and hashes every word in every epoch; the
// ids are read once (4 bytes a word, under the text's own size) and every epoch walks an array.
#ifndef TOKVEC_WORD2VEC_VOCABULARY_H_
#define TOKVEC_WORD2VEC_VOCABULARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::word2vec {

inline constexpr char kLineEnd[] = "</s>";

struct Vocabulary {
  std::vector<std::string> words;  // [V] words[0] is "</s>"; then by count, descending.
  std::vector<int64_t> counts;     // [V] occurrences in the text.
  // For --tokenizer corpora: the tokenizer's id of each word (-1 for "</s>"); empty for whitespace words.
  std::vector<int64_t> token_ids;  // [V]
  int64_t total() const;           // Sum of counts: the words one epoch visits (word2vec.c's train_words).
  size_t size() const { return words.size(); }
};

struct Corpus {
  Vocabulary vocab;
  std::vector<int32_t> ids;  // [N] word ids in text order, N == vocab.total().
};

struct VocabularyOptions {
  int64_t min_count = 5;  // Words seen fewer times are dropped (word2vec.c -min-count).
  int64_t max_vocab = 0;  // Keep at most this many words besides "</s>" (0: no limit).
};

// Whitespace words of the files, read as one text (a file boundary separates words but ends no line).
absl::StatusOr<Corpus> ReadWordCorpus(const std::vector<std::string>& paths, const VocabularyOptions& options);

// Word2Vec over tokens: each line of each file is encoded by `tokenizer` (without its '\n'), and each line end
// is "</s>". The vocabulary words are the tokens' spellings (Tokenizer::TokenSpelling, e.g. "Ġcat").
absl::StatusOr<Corpus> ReadTokenCorpus(const std::vector<std::string>& paths, const Tokenizer& tokenizer,
                                       const VocabularyOptions& options);

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_VOCABULARY_H_
