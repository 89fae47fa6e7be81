// A hand-written splitter for the gpt2 preset, equal to the ICU regex path of split_pattern.h but without the
// regex engine or the UTF-16 copy:
//
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
//   std::unique_ptr<PreTokenizer> split = MakeFastGpt2Splitter();
//   std::vector<Piece> pieces;
//   TOKVEC_RETURN_IF_ERROR(split->Split("I'm  here", &pieces));   // "I" "'m" " " " here"
//
// At each position the alternatives are tried in the regex's order (leftmost-first, as in ICU and the Rust
// regex crates): a contraction; an optional U+0020 then a run of letters, of numbers, or of anything else that
// is not whitespace; else a whitespace run, less its last character when a non-space follows it and the run is
// longer than one (that is what `\s+(?!\S)` backtracks to). Classes: \p{L} and \p{N} by general category,
// \s by the White_Space property (ICU's u_charType / u_isUWhiteSpace), ASCII from a table.
// Like the regex path, ill-formed UTF-8 bytes are pieces of their own and each well-formed stretch is split on
// its own (a stretch end counts as the end of the text). Tested equal to the ICU path on every file of
// ../shared/corpora and on seeded random strings of hard characters (tests/tokenizer/fast_split_test.cc).
// Why: ICU's RegexMatcher took 27% of `tokvec encode --lines` on gpt2 (perf, 3 MB of the corpora). CPU time of
// `tokvec encode -m gpt2.tiktoken --lines --threads 1` on 10 MB of the corpora: 1.01–1.06 s with ICU, 0.76–0.78 s
// with this splitter (identical output).
#ifndef TOKVEC_TOKENIZER_FAST_SPLIT_H_
#define TOKVEC_TOKENIZER_FAST_SPLIT_H_

#include <memory>

#include "tokenizer/pre_tokenizer.h"

namespace tokvec {

// name() is "gpt2".
std::unique_ptr<PreTokenizer> MakeFastGpt2Splitter();

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FAST_SPLIT_H_
