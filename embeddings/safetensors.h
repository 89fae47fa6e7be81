// Reading and writing the safetensors format (https://huggingface.co/docs/safetensors), the weight file of a
// model directory (`model.safetensors`).
//
// Layout: an 8-byte little-endian unsigned header length N, then N bytes of JSON
//   {"wte.weight": {"dtype": "F32", "shape": [V, D], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"format": "pt"}}
// then the data buffer; `data_offsets` are byte offsets into that buffer (not into the file).
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> file, SafetensorsFile::Open("model.safetensors"));
//   TOKVEC_ASSIGN_OR_RETURN(FloatTensor wte, file->ReadFloat32("wte.weight"));  // F32/F16/BF16 -> float32
//   // wte.shape == {V, D}; wte.data stays valid as long as `file` lives.
//
// Open validates the whole header before any tensor is read: a header length past the end of the file, malformed
// JSON, offsets past the data buffer, begin > end, a byte span that disagrees with shape x dtype size, overlapping
// tensors, an unknown dtype. Every error names the file and, where there is one, the tensor.
// F32 tensors are read in place from the memory map (zero copy) when 4-byte aligned; F16/BF16 are converted once
// into storage owned by the SafetensorsFile.
#ifndef TOKVEC_EMBEDDINGS_SAFETENSORS_H_
#define TOKVEC_EMBEDDINGS_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/file_io.h"

namespace tokvec {

// One entry of the header.
struct SafetensorsEntry {
  std::string name;            // e.g. "h.0.attn.c_attn.weight"
  std::string dtype;           // as written: "F32", "F16", "BF16", "I64", ...
  std::vector<int64_t> shape;  // e.g. {D, 3 * D}; {} is a scalar
  size_t begin = 0;            // byte offset into the data buffer
  size_t end = 0;              // one past the last byte
  int64_t num_elements() const;
};

// A float32 view of one tensor; `data` is owned by the SafetensorsFile it came from.
struct FloatTensor {
  const float* data = nullptr;
  std::vector<int64_t> shape;
  int64_t num_elements() const;
};

class SafetensorsFile {
 public:
  // Maps `path` and validates its header (see the file comment). InvalidArgument / DataLoss name the file.
  static absl::StatusOr<std::unique_ptr<SafetensorsFile>> Open(const std::string& path);
  // Same checks over bytes already in memory (copied); `name` is used in messages.
  static absl::StatusOr<std::unique_ptr<SafetensorsFile>> FromBytes(std::string bytes, std::string name);

  const std::string& path() const { return path_; }
  // Entries sorted by name.
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // nullptr when absent.
  const SafetensorsEntry* Find(std::string_view name) const;

  // The tensor as float32: F32 zero-copy when aligned, F16 and BF16 converted. NotFound when absent,
  // InvalidArgument for any other dtype. Not thread-safe (conversion caches into this object).
  absl::StatusOr<FloatTensor> ReadFloat32(std::string_view name);

 private:
  SafetensorsFile() = default;
  absl::Status ParseHeader();

  std::string path_;
  std::unique_ptr<MappedFile> mapped_;  // set by Open
  std::string owned_bytes_;             // set by FromBytes
  std::string_view bytes_;              // the whole file
  std::string_view data_;               // the data buffer after the header
  std::vector<SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
  std::deque<std::vector<float>> converted_;  // storage for converted / realigned tensors
};

// A float32 tensor to write.
struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;  // product must equal values.size()
  const float* values = nullptr;
};

// Serializes tensors as F32 safetensors bytes (entries sorted by name, header padded with spaces to 8 bytes so
// every tensor is aligned).
absl::StatusOr<std::string> SerializeSafetensors(const std::vector<NamedTensor>& tensors,
                                                 const std::map<std::string, std::string>& metadata);

// SerializeSafetensors, written to `path` atomically.
absl::Status WriteSafetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

// IEEE half and bfloat16 to float32 (exact; subnormals, infinities and NaN preserved).
float HalfToFloat(uint16_t bits);
float BFloat16ToFloat(uint16_t bits);

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_SAFETENSORS_H_
