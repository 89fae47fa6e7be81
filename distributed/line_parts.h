// A line-by-line job split into P parts by line number (line n of the inputs goes to part n mod P), each part a
// file of its own in one output folder, so machines (or MPI ranks) run parts independently and a re-run redoes
// only the parts that are missing or damaged:
//
//   OUT/part-00002.npy     the part's result (rows of lines 2, 2 + P, 2 + 2P, ...; or .ids/.tokens/.jsonl text,
//                          one output line per input line, for `encode`)
//   OUT/part-00002.json    its record: part, parts, lines, file name, bytes and FNV-1a hash, and the job's key
//   OUT/manifest.json      the job (key: inputs with sizes and hashes, model, options), every part's record,
//                          and whether all parts are complete
//
//   const std::string key = JobKey(...);
//   if (!PartIsComplete(out, 2, 8, key)) TOKVEC_RETURN_IF_ERROR(WritePart(out, 2, 8, key, "npy", npy, lines));
//   TOKVEC_RETURN_IF_ERROR(WriteManifest(out, key));
//   TOKVEC_ASSIGN_OR_RETURN(std::string all, GatherNpyParts(out));   // rows back in input order
//
// Writes are atomic (a temporary file renamed into place), the .npy before its record, so a killed process
// leaves either a complete part or none.
#ifndef TOKVEC_DISTRIBUTED_LINE_PARTS_H_
#define TOKVEC_DISTRIBUTED_LINE_PARTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "distributed/world.h"

namespace tokvec::distributed {

// FNV-1a (64-bit) of bytes, and of a file's bytes (read in blocks).
uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = 0xcbf29ce484222325ULL);
absl::StatusOr<uint64_t> Fnv1a64File(const std::string& path);

// A job's identity as compact JSON: every input's path, size and hash, the model's hashes (a folder's config.json
// and model.safetensors, or model.safetensors.index.json and its shards; or a tokenizer file), and the options given
// (any JSON object text).
absl::StatusOr<std::string> JobKey(const std::vector<std::string>& inputs, const std::string& model_dir,
                                   const std::string& options_json);

std::string PartPath(const std::string& dir, int64_t part, std::string_view extension);

// True when part `part` of `parts` exists for this key: its record matches and the file it names has the
// recorded size and hash.
bool PartIsComplete(const std::string& dir, int64_t part, int64_t parts, const std::string& key);

// Writes the part's file (part-iiiii.EXTENSION) and then its record.
absl::Status WritePart(const std::string& dir, int64_t part, int64_t parts, const std::string& key,
                       std::string_view extension, std::string_view bytes, int64_t lines);

// manifest.json from the records in `dir` that carry `key`.
absl::Status WriteManifest(const std::string& dir, const std::string& key);
// After this process's part: the manifest, written by rank 0 once every rank is done under mpirun (collective),
// or by this process otherwise.
absl::Status FinishPart(const std::string& dir, const std::string& key, const World& world);

// Joins the parts of `dir` (all present and valid, one job) into one .npy whose row n is line n's.
absl::StatusOr<std::string> GatherNpyParts(const std::string& dir);
// The same for text parts (one line per input line): output line n is line n's.
absl::StatusOr<std::string> GatherLineParts(const std::string& dir);

}  // namespace tokvec::distributed

#endif  // TOKVEC_DISTRIBUTED_LINE_PARTS_H_
