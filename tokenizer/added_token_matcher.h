// Finds added tokens in text the way Hugging Face tokenizers' AddedVocabulary does: all of them at once, with
// one Aho-Corasick automaton (Aho & Corasick 1975, run as a DFA over byte classes), leftmost-longest: the match
// that starts first wins, the longest of those on a tie; matches do not overlap and the search resumes after
// each one. Per token, as Hugging Face's `find_matches` (tokenizers/src/tokenizer/added_vocabulary.rs):
//   single_word  the match is dropped (and its text left to the model) when the character before it or after it
//                is a word character (\w: Alphabetic, marks, decimal digits, connector punctuation, join
//                controls); the search still resumes after it.
//   lstrip       the match also takes the white space (Unicode White_Space) right before it, back to the end of
//                the previous match.
//   rstrip       the match also takes the white space right after it.
// A match's [begin, end) covers the stripped white space too (Hugging Face's offsets do the same). As in Hugging
// Face, the search resumes right after the token itself, so a match may begin inside the space an rstrip token
// took (then the two overlap: "[[" rstrip then "  " in "[[  x").
//
//   AddedTokenMatcher matcher({{"<mask>", 50264, {.lstrip = true}}, {"<think>", 151667, {}}});
//   std::vector<AddedTokenMatcher::Match> matches;
//   matcher.FindAll("a <mask>!", &matches);   // {{1, 8, 50264}}
//
// Cost: one table lookup per input byte plus a re-scan of at most the longest token's length after each match,
// whatever the number of tokens; the table has (trie states) x (distinct bytes in the tokens + 1) entries.
#ifndef TOKVEC_TOKENIZER_ADDED_TOKEN_MATCHER_H_
#define TOKVEC_TOKENIZER_ADDED_TOKEN_MATCHER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/models/bpe/bpe_model.h"

namespace tokvec {

class AddedTokenMatcher {
 public:
  struct Flags {
    bool single_word = false;
    bool lstrip = false;
    bool rstrip = false;
  };
  struct Pattern {
    std::string text;  // Non-empty; the first of several equal texts wins.
    TokenId id;
    Flags flags;
  };
  struct Match {
    size_t begin;  // Including white space taken by lstrip.
    size_t end;    // Including white space taken by rstrip.
    TokenId id;
  };

  AddedTokenMatcher() = default;
  explicit AddedTokenMatcher(std::vector<Pattern> patterns);

  bool empty() const { return patterns_.empty(); }
  // The matches in `text`, left to right (appended to `out`).
  void FindAll(std::string_view text, std::vector<Match>* out) const;

 private:
  // The leftmost-longest pattern occurrence at or after `from`: {begin, pattern index}; begin == npos if none.
  std::pair<size_t, int32_t> FindNext(std::string_view text, size_t from) const;

  std::vector<Pattern> patterns_;
  std::array<uint16_t, 256> byte_class_{};  // 0: a byte no pattern holds.
  size_t classes_ = 1;
  std::vector<uint32_t> next_;    // [states * classes_] the DFA.
  std::vector<uint32_t> depth_;   // [states] length of the state's prefix.
  std::vector<int32_t> output_;   // [states] the longest pattern ending here (a suffix of the prefix), or -1.
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_ADDED_TOKEN_MATCHER_H_
