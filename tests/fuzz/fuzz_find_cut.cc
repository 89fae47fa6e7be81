// Fuzz target: every cut that PreTokenizer::FindCut returns keeps the pieces — splitting the two parts on their
// own gives the pieces of the whole — for the gpt2, cl100k and o200k splitters and for whitespace words. This is
// what lets `tokvec encode` cut a large text into chunks for its workers and still give the whole text's ids.
// The presets' SplitSome, a few pieces at a time, gives the pieces of Split too, and those are the pieces of the
// regex the preset stands for (split_pre_tokenizer.h through ICU: the oracle of the presets' byte loops and masks).
// Utf8ValidEnd, which finds the well-formed stretches the splitters match (AVX2 blocks where the CPU has them),
// gives what the byte loop and ICU's U8_NEXT give, from every start.
//
//   build-fuzz/fuzz_find_cut tests/fuzz/corpus/find_cut -max_total_time=30
//
// Input: the text itself (arbitrary bytes, cut to 2 KB; whitespace words only when it is valid UTF-8).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tests/tokenizer/icu_utf8_oracle.h"
#include "tokenizer/pre_tokenizers/preset_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

std::vector<std::pair<size_t, size_t>> Split(const PreTokenizer& split, std::string_view text, size_t base) {
  std::vector<Piece> pieces;
  FUZZ_CHECK(split.Split(text, &pieces).ok());
  std::vector<std::pair<size_t, size_t>> out;
  for (const Piece& p : pieces) out.emplace_back(base + p.begin, base + p.end);
  return out;
}

void CheckBlocks(const PreTokenizer& split, std::string_view text) {
  std::vector<Piece> whole;
  FUZZ_CHECK(split.Split(text, &whole).ok());
  for (size_t capacity : {1, 2, 7}) {
    std::vector<Piece> pieces;
    Piece block[7];
    SplitCursor cursor;
    while (size_t n = split.SplitSome(text, &cursor, block, capacity)) {
      FUZZ_CHECK(n <= capacity);
      pieces.insert(pieces.end(), block, block + n);
    }
    FUZZ_CHECK(pieces.size() == whole.size());
    for (size_t i = 0; i < pieces.size(); ++i) {
      FUZZ_CHECK(pieces[i].begin == whole[i].begin && pieces[i].end == whole[i].end);
    }
  }
}

void CheckSameAsRegex(const PreTokenizer& split, const PreTokenizer& regex, std::string_view text) {
  FUZZ_CHECK(Split(split, text, 0) == Split(regex, text, 0));
}

void CheckEveryCut(const PreTokenizer& split, std::string_view text) {
  const auto whole = Split(split, text, 0);
  for (size_t limit = text.size(); limit > 0;) {
    const size_t p = split.FindCut(text, limit);
    if (p == 0) break;
    FUZZ_CHECK(p <= limit && p < text.size());
    auto parts = Split(split, text.substr(0, p), 0);
    const auto right = Split(split, text.substr(p), p);
    parts.insert(parts.end(), right.begin(), right.end());
    FUZZ_CHECK(parts == whole);
    limit = p - 1;
  }
}

void CheckValidEnds(std::string_view text) {
  for (size_t pos = 0; pos < text.size(); ++pos) {
    const size_t expected = IcuValidEnd(text, pos);
    FUZZ_CHECK(Utf8ValidEnd(text, pos) == expected);
    FUZZ_CHECK(Utf8ValidEndPortable(text, pos) == expected);
  }
}

}  // namespace
}  // namespace tokvec

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokvec;
  static const auto* splitters = [] {
    auto* list = new std::vector<std::pair<std::unique_ptr<PreTokenizer>, std::unique_ptr<PreTokenizer>>>;
    for (const char* preset : {"gpt2", "cl100k", "o200k"}) {
      absl::StatusOr<std::unique_ptr<PreTokenizer>> regex = MakeRegexSplitPreTokenizer(preset);
      FUZZ_CHECK(regex.ok());
      list->emplace_back(MakePresetSplitter(preset), std::move(*regex));
    }
    return list;
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), std::min<size_t>(size, 2048));
  for (const auto& [split, regex] : *splitters) {
    CheckEveryCut(*split, text);
    CheckBlocks(*split, text);
    CheckSameAsRegex(*split, *regex, text);
  }
  CheckValidEnds(text);
  if (!FindInvalidUtf8(text)) CheckEveryCut(WhitespacePreTokenizer(), text);
  return 0;
}
