// The weights of a model directory as one set of named tensors, whether they sit in one model.safetensors or in
// shards listed by Hugging Face's model.safetensors.index.json:
//
//   {"metadata": {"total_size": 1234}, "weight_map": {"embeddings.word_embeddings.weight": "model-00001-of-00002.safetensors", ...}}
//
//   TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsShards> weights,
//                           SafetensorsShards::Open("models/bge/model.safetensors.index.json"));
//   TOKVEC_ASSIGN_OR_RETURN(FloatTensor t, weights->ReadFloat32("encoder.layer.0.output.dense.weight"));
//
// Open of a plain .safetensors file is a single shard. For an index, every shard it names is opened (and its
// header validated, see safetensors.h) before any tensor is read. Errors name the index and the shard: a JSON that
// is not {"weight_map": {name: file}}, a shard name that is not a plain file name beside the index, a missing
// shard (NotFound), a tensor the index maps to a shard that does not hold it, a tensor held by two shards.
// Tensors a shard holds that the index does not list are still readable (Hugging Face loads whole shards).
#ifndef TOKVEC_EMBEDDINGS_SAFETENSORS_SHARDS_H_
#define TOKVEC_EMBEDDINGS_SAFETENSORS_SHARDS_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "embeddings/safetensors.h"

namespace tokvec {

class SafetensorsShards {
 public:
  // `path` ends in ".index.json" (an index of shards) or is one safetensors file.
  static absl::StatusOr<std::unique_ptr<SafetensorsShards>> Open(const std::string& path);
  // The same from an index's text; shard names are resolved in `dir`; `path` names the index in messages.
  static absl::StatusOr<std::unique_ptr<SafetensorsShards>> FromIndex(std::string_view index_text,
                                                                      const std::string& path,
                                                                      const std::string& dir);

  // The file Open was given (the index, or the single file).
  const std::string& path() const { return path_; }
  size_t shard_count() const { return shards_.size(); }
  // Every tensor's name, sorted.
  std::vector<std::string> Names() const;
  // nullptr when no shard holds `name`.
  const SafetensorsEntry* Find(std::string_view name) const;
  // The tensor as float32 (SafetensorsFile::ReadFloat32 of its shard). Not thread-safe.
  absl::StatusOr<FloatTensor> ReadFloat32(std::string_view name);

 private:
  SafetensorsShards() = default;

  std::string path_;
  std::vector<std::unique_ptr<SafetensorsFile>> shards_;
  std::map<std::string, size_t, std::less<>> shard_of_;  // tensor name -> index into shards_
};

}  // namespace tokvec

#endif  // TOKVEC_EMBEDDINGS_SAFETENSORS_SHARDS_H_
