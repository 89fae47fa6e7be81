#include "tokenizer/text/character_offsets.h"

#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

// The well-formed character holding text[pos] as [*start, *stop); false when text[pos] is in none.
bool CharacterAt(std::string_view text, size_t pos, size_t* start, size_t* stop) {
  for (size_t back = 0; back < 4 && back <= pos; ++back) {
    const size_t at = pos - back;
    const size_t length = Utf8SequenceLength(text, at);
    if (length > back) {
      *start = at;
      *stop = at + length;
      return true;
    }
    // A byte that is not a continuation byte ends the search: no character starting before it holds pos.
    if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80) return false;
  }
  return false;
}

}  // namespace

void WidenToCharacters(std::string_view text, size_t* begin, size_t* end) {
  if (*begin > *end || *end > text.size()) return;
  size_t start = 0;
  size_t stop = 0;
  if (*begin < text.size() && CharacterAt(text, *begin, &start, &stop)) *begin = start;
  if (*end > 0 && CharacterAt(text, *end - 1, &start, &stop)) *end = stop;
}

}  // namespace tokvec
