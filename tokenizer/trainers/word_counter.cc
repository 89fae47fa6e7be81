#include "tokenizer/trainers/word_counter.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"

namespace tokvec {
namespace {

using CountMap = absl::flat_hash_map<std::string, uint64_t>;

// A part of one input that starts and ends at cut points (see Cutter), counted as a unit.
struct Chunk {
  size_t sequence = 0;  // Position in the stream of chunks (orders errors deterministically).
  const std::string* name = nullptr;
  uint64_t offset = 0;  // Byte offset of text[0] in its input.
  std::string text;
};

bool IsAsciiLetterOrDigit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Where the text may be cut into parts that count on their own to the counts of the whole.
//
// Whole text (the default): where the pre-tokenizer's FindCut allows, as encode cuts (the pieces of the parts
// are the pieces of the whole). With a normalizer the parts are normalized on their own too, so a cut must
// also sit where the normalizer allows (Normalizer::CutsBefore: before ASCII white space) with an ASCII letter
// or digit before it: every normalizer leaves those two characters ASCII letter or digit and the same white
// space, so the normalized text has the same characters around the cut and the pre-tokenizer (which decides
// from them alone, pre_tokenizer.h) allows the cut there as well.
//
// Lines (split_lines, or a pre-tokenizer that cannot tell where to cut: an arbitrary regex): after each '\n',
// and each line is counted on its own.
class Cutter {
 public:
  explicit Cutter(const WordCounterOptions& options)
      : options_(options), lines_(options.split_lines || !options.pre_tokenizer->FindsCuts()) {}

  bool lines() const { return lines_; }

  // The largest cut p in [1, limit] of `text`; 0 when there is none. (Lines: p may be text.size().)
  size_t Cut(std::string_view text, size_t limit) const {
    if (text.empty() || limit == 0) return 0;
    if (lines_) {
      const size_t newline = text.rfind('\n', std::min(limit, text.size()) - 1);
      return newline == std::string_view::npos ? 0 : newline + 1;
    }
    size_t p = options_.pre_tokenizer->FindCut(text, limit);
    if (options_.normalizer == nullptr) return p;
    while (p > 0 && !(IsAsciiLetterOrDigit(text[p - 1]) && options_.normalizer->CutsBefore(text[p]))) {
      p = options_.pre_tokenizer->FindCut(text, p - 1);
    }
    return p;
  }

  // A cut at or after `target` bytes when there is one (the first found of a doubling search), else the
  // largest; 0 when `text` holds none.
  size_t CutNear(std::string_view text, size_t target) const {
    for (size_t limit = std::max<size_t>(target, 1);; limit = std::min(text.size(), 2 * limit)) {
      if (const size_t p = Cut(text, limit); p > 0) return p;
      if (limit >= text.size()) return 0;
    }
  }

 private:
  const WordCounterOptions& options_;
  bool lines_;
};

// Counts the pieces of `text` (normalized, then pre-tokenized as a whole) into `counts`; with `mark_ends`, each
// as WordCounterOptions::mark_line_ends says. `what` and `offset` name it in errors ("line", "text"). `pieces` is
// scratch.
absl::Status CountPieces(std::string_view text, const WordCounterOptions& options, const std::string& name,
                         std::string_view what, uint64_t offset, bool mark_ends, CountMap* counts,
                         std::vector<Piece>* pieces) {
  std::optional<NormalizedText> normalized;
  if (options.normalizer != nullptr) {
    absl::StatusOr<NormalizedText> result = options.normalizer->Normalize(text);
    if (!result.ok()) {
      return absl::Status(result.status().code(), fmt::format("{}: {} at byte offset {}: {}", name, what, offset,
                                                              std::string(result.status().message())));
    }
    normalized = std::move(result).value();
    text = normalized->text;
  }
  pieces->clear();
  absl::Status split = options.pre_tokenizer->Split(text, pieces);
  if (!split.ok()) {
    return absl::Status(split.code(),
                        fmt::format("{}: {} at byte offset {}: {}", name, what, offset, std::string(split.message())));
  }
  if (mark_ends) {
    std::string word;
    for (const Piece& piece : *pieces) {
      word.assign(text.substr(piece.begin, piece.end - piece.begin));
      size_t rest = piece.end;
      while (rest < text.size() && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r' ||
                                    text[rest] == '\n')) {
        ++rest;
      }
      if (rest == text.size()) {
        word.push_back('\n');
      } else if (rest == piece.end && !text.substr(piece.end).starts_with("\xE2\x96\x81")) {
        word.push_back('\r');
      }
      ++(*counts)[word];
    }
    return absl::OkStatus();
  }
  for (const Piece& piece : *pieces) {
    absl::string_view word(text.data() + piece.begin, piece.end - piece.begin);
    auto it = counts->find(word);
    if (it != counts->end()) {
      ++it->second;
    } else {
      counts->emplace(std::string(word), 1);
    }
  }
  return absl::OkStatus();
}

// Counts the pieces of `chunk` into `counts`: as one text, or line by line. `pieces` is scratch.
absl::Status CountChunk(const Chunk& chunk, const WordCounterOptions& options, bool lines, CountMap* counts,
                        std::vector<Piece>* pieces) {
  std::string_view text = chunk.text;
  if (options.require_utf8) {
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: invalid UTF-8 at byte offset {} (byte 0x{:02X}); word models need UTF-8 text: convert the file "
          "(e.g. `iconv -f LATIN1 -t UTF-8`) or train a byte model (--type byte)",
          *chunk.name, chunk.offset + *bad, static_cast<unsigned char>(text[*bad])));
    }
  }
  if (!lines) return CountPieces(text, options, *chunk.name, "text", chunk.offset, false, counts, pieces);
  size_t line_begin = 0;
  while (line_begin < text.size()) {
    size_t newline = text.find('\n', line_begin);
    size_t line_end = newline == std::string_view::npos ? text.size() : newline + 1;
    TOKVEC_RETURN_IF_ERROR(CountPieces(text.substr(line_begin, line_end - line_begin), options, *chunk.name,
                                       "line", chunk.offset + line_begin, options.mark_line_ends, counts,
                                       pieces));
    line_begin = line_end;
  }
  return absl::OkStatus();
}

// Reads one input in chunks that end at cut points.
class ChunkReader {
 public:
  // Reads from the stream's position, which is byte `offset` of the input, at most `limit` bytes (which must end
  // at a cut point or at the end of the input).
  ChunkReader(std::FILE* stream, const std::string* name, const Cutter* cutter, size_t chunk_bytes,
              uint64_t offset = 0, uint64_t limit = UINT64_MAX)
      : stream_(stream), name_(name), cutter_(cutter), chunk_bytes_(std::max<size_t>(chunk_bytes, 1)),
        offset_(offset), remaining_(limit) {}

  // Fills `chunk` with the next part of the input, ending at the last cut point of what was read (or at the end
  // of the input); false at the end.
  absl::StatusOr<bool> Next(Chunk* chunk) {
    std::string buffer = std::move(carry_);
    carry_.clear();
    // No cut lies below this many bytes of `buffer`: a buffer that grows for want of one is searched only where it
    // grew (from 4 bytes before, so the character ending at each new position is whole), not again from its end
    // to its start each time, which was quadratic in the length of a text without cut points (or a long line:
    // 43 s for 2 MB read in 64-byte steps, 0.06 s now; WordCounterWholeTextTest.TextWithoutCutPoints...).
    size_t no_cut_below = 0;
    while (true) {
      if (buffer.size() >= chunk_bytes_ || (eof_ && !buffer.empty())) {
        size_t cut = buffer.size();
        if (!eof_) {
          const size_t from = no_cut_below > 4 ? no_cut_below - 4 : 0;
          cut = cutter_->Cut(std::string_view(buffer).substr(from), buffer.size() - from);
          if (cut > 0) cut += from;
          no_cut_below = buffer.size();
        }
        if (cut > 0) {
          carry_.assign(buffer, cut);
          buffer.resize(cut);
          chunk->name = name_;
          chunk->offset = offset_;
          offset_ += buffer.size();
          chunk->text = std::move(buffer);
          return true;
        }
      }
      if (eof_) return false;
      const size_t old_size = buffer.size();
      const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk_bytes_, remaining_));
      buffer.resize(old_size + want);
      size_t got = want == 0 ? 0 : std::fread(buffer.data() + old_size, 1, want, stream_);
      buffer.resize(old_size + got);
      remaining_ -= got;
      if (got < want || remaining_ == 0) {
        if (std::ferror(stream_)) {
          return absl::DataLossError(fmt::format("cannot read '{}': {}", *name_, std::strerror(errno)));
        }
        eof_ = true;
      }
    }
  }

 private:
  std::FILE* stream_;
  const std::string* name_;
  const Cutter* cutter_;
  size_t chunk_bytes_;
  std::string carry_;  // Bytes after the last cut of the previous chunk.
  uint64_t offset_ = 0;
  uint64_t remaining_;  // Bytes still to read.
  bool eof_ = false;
};

// Opens `path` ("-" = standard input) for reading.
absl::StatusOr<std::FILE*> OpenInput(const std::string& path) {
  if (path == "-") return stdin;
  std::FILE* stream = std::fopen(path.c_str(), "rb");
  if (stream == nullptr) {
    const int error = errno;
    std::string message = fmt::format("cannot open '{}': {}", path, std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message + "; check the path");
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  return stream;
}

std::vector<WordCount> ToVector(CountMap counts) {
  std::vector<WordCount> words;
  words.reserve(counts.size());
  for (auto& [word, count] : counts) words.push_back({word, count});
  return words;
}

void MergeInto(CountMap* into, const CountMap& from) {
  for (const auto& [word, count] : from) (*into)[word] += count;
}

// Hands chunks from the reading thread to the counting workers; bounded so memory stays small.
class ChunkQueue {
 public:
  explicit ChunkQueue(size_t capacity) : capacity_(capacity) {}
  // Blocks while full; false if the queue was closed for errors.
  void Push(Chunk chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [&] { return chunks_.size() < capacity_; });
    chunks_.push_back(std::move(chunk));
    not_empty_.notify_one();
  }
  // Blocks until a chunk is available or the queue is closed and empty.
  std::optional<Chunk> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [&] { return !chunks_.empty() || closed_; });
    if (chunks_.empty()) return std::nullopt;
    Chunk chunk = std::move(chunks_.front());
    chunks_.pop_front();
    not_full_.notify_one();
    return chunk;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<Chunk> chunks_;
  size_t capacity_;
  bool closed_ = false;
};

// The first error by chunk order, so the reported error does not depend on thread timing.
class FirstError {
 public:
  void Record(size_t sequence, absl::Status status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_ || sequence < sequence_) {
      failed_ = true;
      sequence_ = sequence;
      status_ = std::move(status);
    }
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failed_;
  }
  absl::Status status() {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }

 private:
  std::mutex mutex_;
  bool failed_ = false;
  size_t sequence_ = 0;
  absl::Status status_;
};

// Counts every chunk that `next` produces (false at the end) with `options.threads` workers.
template <typename NextChunk>
absl::StatusOr<std::vector<WordCount>> CountChunks(NextChunk next, const WordCounterOptions& options,
                                                   const Cutter& cutter) {
  Chunk chunk;
  size_t sequence = 0;
  if (options.threads <= 1) {
    CountMap counts;
    std::vector<Piece> pieces;
    while (true) {
      TOKVEC_ASSIGN_OR_RETURN(bool more, next(&chunk));
      if (!more) break;
      TOKVEC_RETURN_IF_ERROR(CountChunk(chunk, options, cutter.lines(), &counts, &pieces));
    }
    return ToVector(std::move(counts));
  }
  // 1. Workers count chunks into their own maps.
  ChunkQueue queue(2 * options.threads);
  FirstError first_error;
  std::vector<CountMap> counts(options.threads);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < options.threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<Piece> pieces;
      while (std::optional<Chunk> work = queue.Pop()) {
        absl::Status status = CountChunk(*work, options, cutter.lines(), &counts[t], &pieces);
        if (!status.ok()) first_error.Record(work->sequence, std::move(status));
      }
    });
  }
  // 2. This thread reads, until the end or the first error.
  absl::Status read_status;
  while (!first_error.failed()) {
    absl::StatusOr<bool> more = next(&chunk);
    if (!more.ok()) {
      read_status = more.status();
      break;
    }
    if (!*more) break;
    chunk.sequence = sequence++;
    queue.Push(std::move(chunk));
    chunk = Chunk();
  }
  queue.Close();
  for (std::thread& worker : workers) worker.join();
  if (first_error.failed()) return first_error.status();
  TOKVEC_RETURN_IF_ERROR(read_status);
  // 3. Sum the maps into the largest one.
  auto largest = std::max_element(counts.begin(), counts.end(),
                                  [](const CountMap& a, const CountMap& b) { return a.size() < b.size(); });
  CountMap total = std::move(*largest);
  for (CountMap& map : counts) {
    if (&map != &*largest) MergeInto(&total, map);
  }
  return ToVector(std::move(total));
}

absl::Status CheckOptions(const WordCounterOptions& options) {
  if (options.pre_tokenizer == nullptr) return absl::InvalidArgumentError("word counter needs a pre-tokenizer");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<WordCount>> CountWords(const std::vector<std::string>& paths,
                                                  const WordCounterOptions& options) {
  TOKVEC_RETURN_IF_ERROR(CheckOptions(options));
  const Cutter cutter(options);
  std::vector<std::string> names;
  for (const std::string& path : paths) names.push_back(path == "-" ? "standard input" : path);
  size_t file = 0;
  std::FILE* stream = nullptr;
  std::optional<ChunkReader> reader;
  uint64_t bytes_read = 0;
  auto close = [&] {
    if (stream != nullptr && stream != stdin) std::fclose(stream);
    stream = nullptr;
  };
  auto next = [&](Chunk* chunk) -> absl::StatusOr<bool> {
    while (file < paths.size()) {
      if (!reader) {
        TOKVEC_ASSIGN_OR_RETURN(stream, OpenInput(paths[file]));
        reader.emplace(stream, &names[file], &cutter, options.chunk_bytes);
      }
      TOKVEC_ASSIGN_OR_RETURN(bool more, reader->Next(chunk));
      if (more) {
        bytes_read += chunk->text.size();
        if (options.progress) options.progress(bytes_read);
        return true;
      }
      reader.reset();
      close();
      ++file;
    }
    return false;
  };
  absl::StatusOr<std::vector<WordCount>> words = CountChunks(next, options, cutter);
  close();
  return words;
}

namespace {

// The first cut point at or after `pos` in the file (its size when there is none): each share boundary moves
// there, so the shares end to end are the file cut at cut points, and every rank finds the same boundary. The
// window read starts 4 bytes before `pos`, so the character ending at a cut is always whole in it, and doubles
// until it holds a cut at or after `pos`.
absl::StatusOr<uint64_t> CutAtOrAfter(std::FILE* stream, const std::string& name, const Cutter& cutter, uint64_t pos,
                                      uint64_t size) {
  if (pos == 0 || pos >= size) return std::min(pos, size);
  const uint64_t from = pos >= 4 ? pos - 4 : 0;
  const size_t at = static_cast<size_t>(pos - from);
  std::string window;
  for (uint64_t want = 4096;; want *= 2) {
    const size_t length = static_cast<size_t>(std::min(want, size - from));
    window.resize(length);
    if (std::fseek(stream, static_cast<long>(from), SEEK_SET) != 0 ||
        std::fread(window.data(), 1, length, stream) != length) {
      return absl::DataLossError(fmt::format("cannot read '{}': {}", name, std::strerror(errno)));
    }
    size_t cut = cutter.Cut(window, length);
    if (cut >= at) {
      // Walk back to the first cut at or after `at`.
      for (size_t earlier = cutter.Cut(window, cut - 1); earlier >= at; earlier = cutter.Cut(window, cut - 1)) {
        cut = earlier;
      }
      return from + cut;
    }
    if (from + length >= size) return size;
  }
}

}  // namespace

absl::StatusOr<std::vector<WordCount>> CountWordsInShare(const std::vector<std::string>& paths, uint64_t share,
                                                         uint64_t shares, const WordCounterOptions& options) {
  if (shares == 0 || share >= shares) {
    return absl::InvalidArgumentError(fmt::format("share {} of {} does not exist", share, shares));
  }
  TOKVEC_RETURN_IF_ERROR(CheckOptions(options));
  const Cutter cutter(options);
  // 1. Sizes: the share is [share·S/P, (share+1)·S/P) of the files end to end.
  std::vector<uint64_t> sizes;
  uint64_t total = 0;
  for (const std::string& path : paths) {
    if (path == "-") return absl::InvalidArgumentError("standard input cannot be split into shares; name files");
    TOKVEC_ASSIGN_OR_RETURN(std::FILE* stream, OpenInput(path));
    std::fseek(stream, 0, SEEK_END);
    const long size = std::ftell(stream);
    std::fclose(stream);
    if (size < 0) return absl::DataLossError(fmt::format("cannot read the size of '{}'", path));
    sizes.push_back(static_cast<uint64_t>(size));
    total += static_cast<uint64_t>(size);
  }
  const auto cut = [&](uint64_t k) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total) * k / shares);
  };
  const uint64_t begin = cut(share), end = cut(share + 1);
  // 2. Each file's part of [begin, end), moved to cut points (line starts with split_lines).
  std::vector<std::string> names(paths);
  size_t file = 0;
  uint64_t file_start = 0;  // offset of paths[file] in the files end to end
  std::FILE* stream = nullptr;
  std::optional<ChunkReader> reader;
  auto close = [&] {
    if (stream != nullptr) std::fclose(stream);
    stream = nullptr;
  };
  auto next = [&](Chunk* chunk) -> absl::StatusOr<bool> {
    while (file < paths.size()) {
      const uint64_t size = sizes[file];
      if (!reader) {
        const uint64_t lo = std::max(begin, file_start), hi = std::min(end, file_start + size);
        if (lo >= hi) {  // not in this share
          file_start += size;
          ++file;
          continue;
        }
        TOKVEC_ASSIGN_OR_RETURN(stream, OpenInput(paths[file]));
        TOKVEC_ASSIGN_OR_RETURN(uint64_t from, CutAtOrAfter(stream, names[file], cutter, lo - file_start, size));
        TOKVEC_ASSIGN_OR_RETURN(uint64_t to, CutAtOrAfter(stream, names[file], cutter, hi - file_start, size));
        if (std::fseek(stream, static_cast<long>(from), SEEK_SET) != 0) {
          return absl::DataLossError(fmt::format("cannot seek in '{}': {}", names[file], std::strerror(errno)));
        }
        reader.emplace(stream, &names[file], &cutter, options.chunk_bytes, from, to - from);
      }
      TOKVEC_ASSIGN_OR_RETURN(bool more, reader->Next(chunk));
      if (more) return true;
      reader.reset();
      close();
      file_start += size;
      ++file;
    }
    return false;
  };
  absl::StatusOr<std::vector<WordCount>> words = CountChunks(next, options, cutter);
  close();
  return words;
}

absl::StatusOr<std::vector<WordCount>> CountWordsInText(std::string_view text, const WordCounterOptions& options,
                                                        const std::string& name) {
  TOKVEC_RETURN_IF_ERROR(CheckOptions(options));
  const Cutter cutter(options);
  size_t begin = 0;
  auto next = [&](Chunk* chunk) -> absl::StatusOr<bool> {
    if (begin >= text.size()) return false;
    const std::string_view rest = text.substr(begin);
    size_t end = rest.size();
    if (rest.size() > options.chunk_bytes) {
      if (const size_t cut = cutter.CutNear(rest, options.chunk_bytes); cut > 0) end = cut;
    }
    chunk->name = &name;
    chunk->offset = begin;
    chunk->text.assign(rest.substr(0, end));
    begin += end;
    return true;
  };
  return CountChunks(next, options, cutter);
}

}  // namespace tokvec
