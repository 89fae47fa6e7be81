#include "tokenizer/batch/chunked_encoder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <sys/stat.h>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {

absl::StatusOr<TextSource> TextSource::Open(const std::string& path) {
  TextSource source;
  source.name_ = path;
  source.file_ = stdin;
  if (path != "-") {
    source.file_ = std::fopen(path.c_str(), "rb");
    if (source.file_ == nullptr) {
      return absl::NotFoundError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
    }
  }
  struct stat input_stat;
  const bool regular_file = fstat(fileno(source.file_), &input_stat) == 0 && S_ISREG(input_stat.st_mode);
  if (regular_file) source.size_ = static_cast<size_t>(input_stat.st_size);
  // A regular input file is read in place through a mapping of it: reading it copied every byte from the page
  // cache (the kernel's copy was 8-12% of a 1-thread 100 MB gpt2 profile) into fresh memory that then had to be
  // faulted in.
  if (path != "-" && regular_file && input_stat.st_size > 0) {
    absl::StatusOr<std::unique_ptr<MappedFile>> opened = MappedFile::Open(path);
    if (opened.ok()) {  // else read it as any other stream
      source.mapped_ = std::move(*opened);
      source.memory_ = source.mapped_->data();
      source.in_memory_ = true;
    }
  }
  return source;
}

TextSource TextSource::Memory(std::string_view text) {
  TextSource source;
  source.name_ = "(memory)";
  source.memory_ = text;
  source.in_memory_ = true;
  source.size_ = text.size();
  return source;
}

TextSource::TextSource(TextSource&& other) noexcept { *this = std::move(other); }

TextSource& TextSource::operator=(TextSource&& other) noexcept {
  if (this != &other) {
    if (file_ != nullptr && file_ != stdin) std::fclose(file_);
    name_ = std::move(other.name_);
    file_ = std::exchange(other.file_, nullptr);
    mapped_ = std::move(other.mapped_);
    memory_ = std::exchange(other.memory_, {});
    in_memory_ = std::exchange(other.in_memory_, false);
    size_ = std::exchange(other.size_, std::nullopt);
  }
  return *this;
}

TextSource::~TextSource() {
  if (file_ != nullptr && file_ != stdin) std::fclose(file_);
}

absl::Status TextSource::Read(std::string* into, size_t bytes, bool* eof) {
  if (file_ == nullptr) {
    *eof = true;
    return absl::OkStatus();
  }
  const size_t old = into->size();
  into->resize(old + bytes);
  const size_t got = std::fread(into->data() + old, 1, bytes, file_);
  into->resize(old + got);
  if (got < bytes) {
    if (std::ferror(file_)) return absl::DataLossError(fmt::format("cannot read '{}'", name_));
    *eof = true;
  }
  return absl::OkStatus();
}

namespace {

// Where the next chunk of `rest` ends: at a cut point at or before `target` bytes, else the first one after it;
// 0 when `rest` holds none (more input is needed, or at the end of input the rest is one chunk).
size_t ChunkEnd(const Tokenizer& tokenizer, const EncodeOptions& encode, bool lines, std::string_view rest,
                size_t target) {
  if (rest.size() <= target) target = rest.size() - 1;
  if (lines) {
    size_t newline = rest.rfind('\n', target);
    if (newline == std::string_view::npos) newline = rest.find('\n', target);
    return newline == std::string_view::npos ? 0 : newline + 1;
  }
  size_t cut = tokenizer.FindCut(rest, target, encode);
  if (cut == 0 && rest.size() > target + 1) cut = tokenizer.FindCut(rest, rest.size() - 1, encode);
  return cut;
}

}  // namespace

ChunkedEncoder::ChunkedEncoder(const Tokenizer& tokenizer, ChunkedEncoderOptions options)
    : tokenizer_(tokenizer), options_(std::move(options)) {}

absl::Status ChunkedEncoder::Run(TextSource& source, const Work& work, const Sink& sink) {
  const Tokenizer& tokenizer = tokenizer_;
  const bool lines = options_.lines;
  const size_t chunk_bytes = std::max<size_t>(1, options_.chunk_bytes);  // see ChunkedEncoderOptions
  const size_t threads = static_cast<size_t>(std::max(1, options_.threads));
  const size_t batch_chunks = threads * 16;
  const size_t batch_bytes = batch_chunks * chunk_bytes;
  // The same threads serve every batch (base/worker_pool.h), so their per-thread scratch stays warm; a pool per
  // batch with cold caches made 2 threads slower than 1 (0.89x, bench/RESULTS.md before this change).
  WorkerPool pool(static_cast<int>(threads));
  // Piece caches: workers read the shared one and learn into their own; between batches their new pieces are
  // folded into the shared one, so each distinct piece is merged about once whatever the thread count (with a
  // cache per thread, every thread merged every distinct piece again: 2 threads used 0.36 s more CPU than 1 on
  // the 103.6 MB of corpora x7, whose 14.8 MB repeat 306,099 distinct pieces).
  // One thread has nothing to share: its own cache is kept whole.
  std::unique_ptr<PieceCache> shared = threads > 1 ? tokenizer.NewPieceCache() : nullptr;
  std::vector<std::unique_ptr<PieceCache>> locals;
  // The same for the id text of short pieces (Tokenizer::EncodeIdText).
  std::unique_ptr<IdTextCache> shared_text = threads > 1 ? tokenizer.NewIdTextCache() : nullptr;
  std::vector<std::unique_ptr<IdTextCache>> local_texts;
  for (size_t i = 0; i < threads; ++i) {
    locals.push_back(tokenizer.NewPieceCache());
    local_texts.push_back(tokenizer.NewIdTextCache());
  }
  // The id-text tables sized up front, about one distinct short piece per 48 bytes (the 14.8 MB of shared corpora
  // hold 264,000: one per 56): the table that ends up with every short piece (one thread's own, or the shared one)
  // from the input's size, and with several threads each worker's from its share of a batch. Growing them from 2^14
  // slots touched about twice the memory, all of it fresh (each doubling is a new table); fresh pages cost here:
  // with 2 threads, 10% of the CPU time was the kernel clearing them (clear_page_erms). In process, the first pass
  // over the 100 MB bench input with one thread took 0.79-0.82 s with growth, 0.74-0.77 s sized up front.
  constexpr size_t kBytesPerPiece = 48;
  constexpr size_t kMaxReserve = 3 * (size_t{1} << 19) / 4;  // 32 MB of slots; past that a table grows as it fills
  const bool id_text = options_.id_text;
  if (id_text && source.size()) {
    const size_t input_bytes = *source.size();
    (threads == 1 ? local_texts[0] : shared_text)->Reserve(std::min(input_bytes / kBytesPerPiece, kMaxReserve));
    if (threads > 1) {
      for (auto& local : local_texts) local->Reserve(std::min(batch_bytes, input_bytes) / threads / kBytesPerPiece);
    }
  }
  // Id text: each chunk writes into one of these buffers, kept from batch to batch (two batches: the one being
  // encoded and the one being written), so their pages are touched once.
  std::vector<IdTextBuffer> id_buffers(id_text ? 2 * batch_chunks : 0);
  size_t batch_number = 0;
  std::string buffer;  // input not yet encoded starts at buffer[consumed]
  // Input in memory (a mapped file) is read in place: then `memory_rest` is the buffer.
  std::string_view memory_rest = source.memory();
  auto buffered = [&]() -> std::string_view {
    return source.in_memory() ? memory_rest : std::string_view(buffer);
  };
  size_t consumed = 0;
  size_t buffer_offset = 0;  // of buffer[0] in the input
  uint64_t line_number = 1;
  bool eof = source.in_memory();
  // Writes the outputs of `done` in order, up to its first error (then returned).
  auto write_outputs = [&](std::vector<EncodeChunk>& done) -> absl::Status {
    for (EncodeChunk& chunk : done) {
      TOKVEC_RETURN_IF_ERROR(chunk.status);
      TOKVEC_RETURN_IF_ERROR(sink(chunk));
      if (chunk.id_text != nullptr) chunk.id_text->Clear();
    }
    done.clear();
    return absl::OkStatus();
  };
  // Folds what the workers learned into the shared caches, the two kinds side by side; done before a batch, so
  // not after the last one.
  bool fold_pending = false;
  auto fold_caches = [&] {
    pool.Run(2, [&](int64_t task, int) {
      // While the shared piece cache is empty (the first fold), the largest local one becomes it: no copy, and no
      // new table for the shared one to grow into (its first pages cost up to 80 ms on this VM). The shared
      // id-text table was sized up front when the input's size is known.
      if (task == 0 && shared->size() == 0) {
        auto largest = std::max_element(locals.begin(), locals.end(),
                                        [](const auto& a, const auto& b) { return a->size() < b->size(); });
        shared.swap(*largest);
      }
      for (size_t i = 0; i < locals.size(); ++i) {
        if (task == 0) {
          shared->MergeFrom(*locals[i]);
          locals[i]->Clear();
        } else {
          shared_text->MergeFrom(*local_texts[i]);
          local_texts[i]->ClearMain();
        }
      }
    });
    fold_pending = false;
  };
  std::vector<EncodeChunk> chunks, previous;  // this batch; the last one, written while this one is encoded
  std::string incoming;  // the next buffer: this one's rest, then input read while this batch is encoded
  bool refilled = false;
  if (!source.in_memory()) TOKVEC_RETURN_IF_ERROR(source.Read(&buffer, batch_bytes, &eof));
  while (true) {
    // 1. Cut the buffer into chunks.
    chunks.clear();
    while (consumed < buffered().size() && chunks.size() < batch_chunks) {
      const std::string_view rest = buffered().substr(consumed);
      size_t size = ChunkEnd(tokenizer, options_.encode, lines, rest, chunk_bytes);
      if (size == 0) {
        if (!eof) break;  // The chunk's end is not in the buffer yet.
        size = rest.size();
      }
      EncodeChunk& chunk = chunks.emplace_back();
      chunk.text = rest.substr(0, size);
      chunk.first_line = line_number;
      chunk.base = buffer_offset + consumed;
      if (id_text) chunk.id_text = &id_buffers[(batch_number % 2) * batch_chunks + chunks.size() - 1];
      if (lines) line_number += static_cast<uint64_t>(std::count(chunk.text.begin(), chunk.text.end(), '\n'));
      consumed += size;
    }
    if (chunks.empty()) {
      if (eof) break;
      TOKVEC_RETURN_IF_ERROR(source.Read(&buffer, batch_bytes, &eof));  // No cut point yet: hold more input.
      continue;
    }
    // 2. Encode the batch on the workers. Task 0 does the I/O meanwhile: it writes the previous batch's outputs
    // (in input order) and reads the next batch's input, so neither waits for the other (with I/O between
    // batches, the workers idled while the main thread read and wrote).
    if (fold_pending) fold_caches();
    absl::Status io;
    pool.Run(static_cast<int64_t>(chunks.size()) + 1, [&](int64_t task, int worker) {
      if (task == 0) {
        io = write_outputs(previous);
        if (io.ok() && !eof) {
          // The chunks were cut before the batch began, so the rest of the buffer is known; starting the next
          // buffer with it spares appending the whole read to this one afterwards (a copy of all the input).
          incoming.assign(buffer, consumed);
          refilled = true;
          io = source.Read(&incoming, batch_bytes, &eof);
        }
        return;
      }
      const auto w = static_cast<size_t>(worker);
      const IdTextCaches caches{shared.get(), locals[w].get(), shared_text.get(), local_texts[w].get()};
      work(&chunks[static_cast<size_t>(task - 1)], caches);
    });
    TOKVEC_RETURN_IF_ERROR(io);
    fold_pending = shared != nullptr;
    ++batch_number;
    // 3. This batch's outputs are written during the next one; its input is done with (the chunks' outputs no
    // longer point into the buffer).
    for (EncodeChunk& chunk : chunks) chunk.text = {};
    previous.swap(chunks);
    buffer_offset += consumed;
    if (source.in_memory()) {
      memory_rest.remove_prefix(consumed);
    } else if (refilled) {
      buffer.swap(incoming);
      refilled = false;
    } else {
      buffer.erase(0, consumed);
    }
    consumed = 0;
  }
  return write_outputs(previous);
}

}  // namespace tokvec
