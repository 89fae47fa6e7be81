// Chunked, threaded encoding of one large input (a file, standard input or text in memory): the library half of
// `tokvec encode`, so every front end shares one implementation of the cut rule, the worker pool, the piece-cache
// folding and the output order (as Hugging Face keeps its parallelism in utils/parallelism.rs for every binding).
//
//   ChunkedEncoder encoder(tokenizer, {.encode = options, .threads = 2});
//   TOKVEC_ASSIGN_OR_RETURN(TextSource source, TextSource::Open("big.txt"));
//   TOKVEC_RETURN_IF_ERROR(encoder.Run(
//       source,
//       [&](EncodeChunk* chunk, const IdTextCaches& caches) { ...encode chunk->text into chunk->output... },
//       [&](EncodeChunk& chunk) { return WriteAll(stdout, chunk.output); }));   // in input order
//
// The input is cut into chunks of about 256 KB: at line ends (`lines`), or where Tokenizer::FindCut allows (the ids
// of the parts are the ids of the whole; tokenizer.h). Chunks are encoded in batches of 16 per thread by persistent
// workers; while a batch is encoded, one task writes the previous batch (through the sink, in input order) and
// reads the next batch's input. So the output is the same for any thread count.
#ifndef TOKVEC_TOKENIZER_BATCH_CHUNKED_ENCODER_H_
#define TOKVEC_TOKENIZER_BATCH_CHUNKED_ENCODER_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/file_io.h"
#include "base/worker_pool.h"
#include "tokenizer/id_text.h"
#include "tokenizer/models/bpe/piece_cache.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {

// Where ChunkedEncoder reads: a file (a regular file is mapped and read in place, anything else read in blocks),
// standard input ("-"), or text in memory (which must outlive the source).
class TextSource {
 public:
  // Errors: NotFound "cannot open 'PATH': REASON".
  static absl::StatusOr<TextSource> Open(const std::string& path);
  static TextSource Memory(std::string_view text);

  TextSource(TextSource&& other) noexcept;
  TextSource& operator=(TextSource&& other) noexcept;
  TextSource(const TextSource&) = delete;
  TextSource& operator=(const TextSource&) = delete;
  ~TextSource();

  // The input's size when known before reading (a regular file, text in memory).
  std::optional<size_t> size() const { return size_; }
  // True when the whole input is `memory()` (mapped or in memory); else it comes through Read.
  bool in_memory() const { return in_memory_; }
  std::string_view memory() const { return memory_; }
  // Appends up to `bytes` more input to `into`; sets *eof when the input ended. Errors: DataLoss "cannot read".
  absl::Status Read(std::string* into, size_t bytes, bool* eof);

 private:
  TextSource() = default;
  std::string name_;
  std::FILE* file_ = nullptr;  // owned unless it is stdin
  std::unique_ptr<MappedFile> mapped_;
  std::string_view memory_;
  bool in_memory_ = false;
  std::optional<size_t> size_;
};

// One chunk of the input: a run of whole lines (`lines`) or a part of the whole text cut by Tokenizer::FindCut.
struct EncodeChunk {
  std::string_view text;
  uint64_t first_line = 0;          // lines: the number of the chunk's first line (from 1)
  size_t base = 0;                  // where the chunk starts in the input
  std::string output;               // what the work wrote, for the sink (text)
  std::vector<TokenId> ids;         // or the ids it wrote
  IdTextBuffer* id_text = nullptr;  // with `id_text`: the chunk's " id id ..." buffer (Tokenizer::EncodeIdText)
  absl::Status status;              // the work's error: Run returns it once the chunks before it are written
  uint64_t first_cut_line = 0;      // lines: the first line truncation cut (0: none), for the sink's note
};

struct ChunkedEncoderOptions {
  EncodeOptions encode;  // for Tokenizer::FindCut
  bool lines = false;    // cut at line ends, so each chunk holds whole lines
  int threads = 1;
  // About this many bytes a chunk, 16 chunks per thread in a batch. 256 KB: each batch ends with a wait for its
  // slowest chunk, and chunk costs vary with the language; 1 MB chunks, 4 per thread, left 2 threads at
  // 1.69-1.77x one thread on 100 MB.
  size_t chunk_bytes = size_t{1} << 18;
  // Give each chunk an IdTextBuffer (kept from batch to batch) and size the id-text caches from the input.
  bool id_text = false;
};

class ChunkedEncoder {
 public:
  // Runs on a worker: encodes chunk->text into chunk->output (or chunk->id_text), or sets chunk->status.
  using Work = std::function<void(EncodeChunk* chunk, const IdTextCaches& caches)>;
  // Runs on one task at a time, for every chunk in input order (never for a failed one).
  using Sink = std::function<absl::Status(EncodeChunk& chunk)>;

  ChunkedEncoder(const Tokenizer& tokenizer, ChunkedEncoderOptions options);

  // Encodes all of `source`; stops at the first failed chunk or failed sink (after the chunks before it).
  absl::Status Run(TextSource& source, const Work& work, const Sink& sink);

 private:
  const Tokenizer& tokenizer_;
  ChunkedEncoderOptions options_;
};

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_BATCH_CHUNKED_ENCODER_H_
