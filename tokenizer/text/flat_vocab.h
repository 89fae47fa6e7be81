// A vocabulary ({spelling: id}) and a merge list ("left right" pairs) held in flat arrays: every string lives
// in one buffer, so reading 200,000 tokens makes a handful of allocations instead of one or two per token.
// Readers fill them (tokenizer/formats/tokenizer_json_vocab.h scans them straight out of a tokenizer.json text; vocab.json and
// merges.txt fill them too) and BuildSpelledBpe (tokenizer/formats/spelled_vocab.h) turns them into a BpeModel.
//
//   FlatVocab vocab;
//   vocab.Add("Ġthe", 262);
//   vocab.spelling(0) == "Ġthe";  vocab.id(0) == 262;
//   FlatMerges merges;
//   merges.Add("Ġ", "t");
//   merges.left(0) == "Ġ";  merges.right(0) == "t";
#ifndef TOKVEC_TOKENIZER_TEXT_FLAT_VOCAB_H_
#define TOKVEC_TOKENIZER_TEXT_FLAT_VOCAB_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokvec {

// Strings appended one after another into one buffer; string i is bytes [end(i - 1), end(i)).
class StringArena {
 public:
  size_t size() const { return ends_.size(); }
  std::string_view operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_.data() + begin, ends_[i] - begin);
  }
  void Add(std::string_view s) {
    bytes_.append(s.data(), s.size());
    ends_.push_back(bytes_.size());
  }
  // Building a string in place (e.g. while unescaping): append its bytes to buffer(), then Seal().
  std::string& buffer() { return bytes_; }
  void Seal() { ends_.push_back(bytes_.size()); }
  // The bytes appended since the last string are two strings, the second starting at buffer()[split].
  void SealTwo(size_t split) {
    ends_.push_back(split);
    ends_.push_back(bytes_.size());
  }
  void Reserve(size_t strings, size_t bytes) {
    ends_.reserve(strings);
    bytes_.reserve(bytes);
  }

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
};

// (spelling, id) pairs in the order they were read. A JSON object may repeat a key; readers that keep what the
// file says pass repeats on, and consumers decide (Hugging Face keeps the last).
struct FlatVocab {
  StringArena spellings;
  std::vector<uint64_t> ids;

  size_t size() const { return ids.size(); }
  std::string_view spelling(size_t i) const { return spellings[i]; }
  uint64_t id(size_t i) const { return ids[i]; }
  void Add(std::string_view spelling, uint64_t id) {
    spellings.Add(spelling);
    ids.push_back(id);
  }
};

// Merges in rank order, by the spellings of their two sides.
struct FlatMerges {
  StringArena sides;  // left of merge i at 2i, right at 2i + 1.

  size_t size() const { return sides.size() / 2; }
  std::string_view left(size_t i) const { return sides[2 * i]; }
  std::string_view right(size_t i) const { return sides[2 * i + 1]; }
  void Add(std::string_view left, std::string_view right) {
    sides.Add(left);
    sides.Add(right);
  }
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TEXT_FLAT_VOCAB_H_
