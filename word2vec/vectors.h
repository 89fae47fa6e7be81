// Word vectors in the files word2vec.c, gensim and fastText write, read and written.
//
//   TOKVEC_ASSIGN_OR_RETURN(Vectors vectors, ReadVectors("vectors.bin"));
//   const float* cat = vectors.row(vectors.Find("cat").value());   // [dim]
//   TOKVEC_RETURN_IF_ERROR(WriteVectors("vectors.txt", vectors));
//
// Both formats open with a header line `count dim`. Text (`.txt`, `.vec`): one line per word,
// `word v1 ... vdim` (word2vec.c and fastText end it with a space, gensim does not). Binary (word2vec.c
// `-binary 1`, gensim `binary=True`): `word`, one space, dim little-endian float32, then usually '\n'. The
// reader tells the two apart from the first record (a text record is a line of dim numbers), so the extension
// does not matter for reading; WriteVectors writes binary for `.bin` and text otherwise. Text values are written
// as the shortest decimal that reads back to the same float, so text and binary files hold the same vectors.
//
// The reader trusts nothing: a header whose count or dim cannot fit in the file, a truncated record, a value
// that is not a finite number, or extra bytes after the last record is an InvalidArgument / DataLoss error
// naming the file and the word, checked before anything of that size is allocated.
#ifndef TOKVEC_WORD2VEC_VECTORS_H_
#define TOKVEC_WORD2VEC_VECTORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec::word2vec {

struct Vectors {
  std::vector<std::string> words;  // [V] in file order (most frequent first, for files word2vec writes).
  int64_t dim = 0;                 // D
  std::vector<float> values;       // [V, D] row-major.

  size_t size() const { return words.size(); }
  const float* row(size_t i) const { return values.data() + i * static_cast<size_t>(dim); }
  float* row(size_t i) { return values.data() + i * static_cast<size_t>(dim); }
  // The first row spelled `word`, if any.
  std::optional<size_t> Find(std::string_view word) const;
};

// The largest dim the reader accepts (a header past it is an error, not an allocation).
inline constexpr int64_t kMaxDim = 1 << 16;

// How to read the records: told by the first record (a line of numbers after the word, no control bytes), or
// given. A few binary files also read as text (dim 1 and a value whose 4 bytes are printable, e.g. "1234"), so
// ReadVectors takes a `.bin` file as binary.
enum class VectorFormat { kAuto, kText, kBinary };

// Parses the bytes of a vector file; `name` is used in messages.
absl::StatusOr<Vectors> ParseVectors(std::string_view bytes, const std::string& name,
                                     VectorFormat format = VectorFormat::kAuto);
// A `.bin` path is read as binary, any other by its content.
absl::StatusOr<Vectors> ReadVectors(const std::string& path);

// The file's bytes, binary or text.
std::string FormatVectors(const Vectors& vectors, bool binary);
// Writes binary for a path ending in `.bin`, text otherwise, atomically.
absl::Status WriteVectors(const std::string& path, const Vectors& vectors);

}  // namespace tokvec::word2vec

#endif  // TOKVEC_WORD2VEC_VECTORS_H_
