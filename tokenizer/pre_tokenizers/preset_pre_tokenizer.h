// Hand-written splitters for the split-pattern presets (gpt2, cl100k, o200k): the same pieces as ICU running
// tiktoken's regexes (split_pre_tokenizer.h), without a regex engine. Each alternative of the regex is a small
// function below, tried in the regex's order, reproducing its backtracking; character classes come from ICU's
// property data, so Unicode versions agree with the regex path.
//
// The regex path stays the oracle: tests/tokenizer/pre_tokenizers/preset_pre_tokenizer_test.cc compares both on every file of
// ../shared/corpora and on random strings. Figures on the 14.8 MB of shared corpora (loaded machine): 220-236
// MB/s for each preset against ICU's ~30 MB/s (see preset_pre_tokenizer.cc for how).
//
// FindCut gives the points where a long text may be cut into chunks that split (and encode) on their own to the
// pieces of the whole: before ASCII white space that follows a letter or number (tests/tokenizer/find_cut_test.cc).
#ifndef TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRESET_PRE_TOKENIZER_H_
#define TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRESET_PRE_TOKENIZER_H_

#include <memory>
#include <string_view>

#include "tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokvec {

// For a canonical preset name ("gpt2", "cl100k", "o200k"); nullptr for anything else.
std::unique_ptr<PreTokenizer> MakePresetSplitter(std::string_view preset);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_PRE_TOKENIZERS_PRESET_PRE_TOKENIZER_H_
