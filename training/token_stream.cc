#include "training/token_stream.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/batch/chunked_encoder.h"
#include "training/kernels.h"

namespace tokvec::training {
namespace {

// splitmix64 (Steele et al. 2014): a fixed, portable generator, so shuffles do not depend on the C++ library.
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<int64_t> EpochOrder(int64_t windows, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(windows));
  std::iota(order.begin(), order.end(), 0);
  uint64_t state = seed * 0x2545F4914F6CDD1DULL + static_cast<uint64_t>(epoch) + 1;
  for (int64_t i = windows - 1; i > 0; --i) {
    const int64_t j = static_cast<int64_t>(SplitMix64(state) % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

std::optional<int32_t> EndOfTextId(const Tokenizer& tokenizer) {
  for (const char* name : {"<|endoftext|>", "</s>"}) {
    if (std::optional<TokenId> id = tokenizer.FindSpecial(name)) return static_cast<int32_t>(*id);
  }
  return std::nullopt;
}

std::optional<int32_t> MaskTokenId(const Tokenizer& tokenizer) {
  for (const char* name : {"<mask>", "[MASK]"}) {
    if (std::optional<TokenId> id = tokenizer.FindSpecial(name)) return static_cast<int32_t>(*id);
  }
  // A RoBERTa directory with only vocab.json + merges.txt: `<mask>` is a vocabulary entry, not a special token
  // (RobertaTokenizer makes it special; the files do not say so).
  for (size_t id = 0; id < tokenizer.vocab_size(); ++id) {
    const std::string spelling = tokenizer.TokenSpelling(static_cast<TokenId>(id));
    if (spelling == "<mask>" || spelling == "[MASK]") return static_cast<int32_t>(id);
  }
  return std::nullopt;
}

void ApplyMlmMasking(MicroBatch& batch, int64_t first_row, int32_t mask_id, int64_t vocab, uint64_t seed) {
  constexpr uint64_t kMlmStream = 0x6D6C6D;  // "mlm": keeps these draws apart from dropout's
  for (int64_t r = 0; r < batch.B; ++r) {
    const uint64_t row_seed = DropoutSeed(seed ^ kMlmStream, static_cast<uint64_t>(first_row + r), kMlmStream);
    for (int64_t t = 0; t < batch.T; ++t) {
      const size_t i = static_cast<size_t>(r * batch.T + t);
      const uint64_t draw = static_cast<uint64_t>(t) * 3;
      if (DropoutUniform(row_seed, draw) >= 0.15f) {
        batch.targets[i] = kIgnoreIndex;
        continue;
      }
      batch.targets[i] = batch.inputs[i];
      const float how = DropoutUniform(row_seed, draw + 1);
      if (how < 0.8f) {
        batch.inputs[i] = mask_id;
      } else if (how < 0.9f) {
        batch.inputs[i] = static_cast<int32_t>(DropoutUniform(row_seed, draw + 2) * static_cast<float>(vocab)) %
                          static_cast<int32_t>(vocab);
      }
    }
  }
}

TokenStream::TokenStream(std::vector<int32_t> tokens) {
  auto owned = std::make_shared<std::vector<int32_t>>(std::move(tokens));
  view_ = std::span<const int32_t>(owned->data(), owned->size());
  storage_ = std::shared_ptr<const int32_t>(owned, owned->data());
}

TokenStream::TokenStream(std::shared_ptr<const int32_t> mapping, size_t size)
    : storage_(std::move(mapping)), view_(storage_.get(), size) {}

absl::StatusOr<TokenStream> TokenStream::Encode(const Tokenizer& tokenizer, const std::vector<std::string>& files,
                                                size_t chunk_bytes) {
  const std::optional<int32_t> eot = EndOfTextId(tokenizer);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), std::fclose);
  if (out == nullptr) {
    return absl::UnavailableError(fmt::format("cannot create a temporary file for the encoded corpus: {}",
                                              std::strerror(errno)));
  }
  size_t count = 0;
  std::vector<int32_t> chunk_ids;
  auto write = [&](const int32_t* data, size_t n) -> absl::Status {
    if (n > 0 && std::fwrite(data, sizeof(int32_t), n, out.get()) != n) {
      return absl::UnavailableError(fmt::format("cannot write the encoded corpus to a temporary file: {}",
                                                std::strerror(errno)));
    }
    count += n;
    return absl::OkStatus();
  };
  // The library's chunked encoder (tokenizer/batch/chunked_encoder.h) over each mapped file: chunks cut where
  // Tokenizer::FindCut allows, their ids written in order.
  ChunkedEncoder encoder(tokenizer, {.chunk_bytes = chunk_bytes});
  for (const std::string& file : files) {
    TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> mapped, MappedFile::Open(file));
    TextSource source = TextSource::Memory(mapped->data());
    TOKVEC_RETURN_IF_ERROR(encoder.Run(
        source,
        [&](EncodeChunk* chunk, const IdTextCaches& caches) {
          chunk->status = tokenizer.EncodeIds(chunk->text, {}, &chunk->ids, chunk->base, caches.shared_pieces,
                                              caches.local_pieces);
        },
        [&](EncodeChunk& chunk) {
          chunk_ids.assign(chunk.ids.begin(), chunk.ids.end());
          return write(chunk_ids.data(), chunk_ids.size());
        }));
    if (eot) TOKVEC_RETURN_IF_ERROR(write(&*eot, 1));
  }
  if (std::fflush(out.get()) != 0) {
    return absl::UnavailableError(fmt::format("cannot write the encoded corpus: {}", std::strerror(errno)));
  }
  if (count == 0) return TokenStream(std::vector<int32_t>());
  const size_t bytes = count * sizeof(int32_t);
  void* addr = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fileno(out.get()), 0);
  if (addr == MAP_FAILED) {
    return absl::UnavailableError(fmt::format("cannot map the encoded corpus ({} bytes): {}", bytes,
                                              std::strerror(errno)));
  }
  // The mapping outlives the file's descriptor (closed, and the file removed, when `out` goes).
  std::shared_ptr<const int32_t> mapping(static_cast<const int32_t*>(addr),
                                         [bytes](const int32_t* p) { munmap(const_cast<int32_t*>(p), bytes); });
  return TokenStream(std::move(mapping), count);
}

MicroBatch TokenStream::Batch(int64_t first_row, int64_t B, int64_t T, bool shuffle, uint64_t seed) const {
  MicroBatch batch{.B = B, .T = T};
  batch.inputs.reserve(static_cast<size_t>(B * T));
  batch.targets.reserve(static_cast<size_t>(B * T));
  const int64_t S = size(), W = Windows(T);
  std::vector<int64_t> order;
  int64_t order_epoch = -1;
  for (int64_t r = 0; r < B; ++r) {
    const int64_t g = first_row + r;
    int64_t start = (g % S) * T % S;  // in order: g·T mod S without overflow for long runs
    if (shuffle) {
      const int64_t epoch = g / W;
      if (epoch != order_epoch) {
        order = EpochOrder(W, seed, epoch);
        order_epoch = epoch;
      }
      start = order[static_cast<size_t>(g % W)] * T;
    }
    for (int64_t t = 0; t < T; ++t) {
      batch.inputs.push_back(view_[static_cast<size_t>((start + t) % S)]);
      batch.targets.push_back(view_[static_cast<size_t>((start + t + 1) % S)]);
    }
  }
  return batch;
}

}  // namespace tokvec::training
