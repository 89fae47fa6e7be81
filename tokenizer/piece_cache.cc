#include "tokenizer/piece_cache.h"

#include <atomic>

#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::atomic<uint64_t> next_serial{1};
std::atomic<bool> enabled{true};

}  // namespace

uint64_t NewPieceCacheSerial() { return next_serial.fetch_add(1); }

void PieceCache::SetEnabledForTesting(bool on) { enabled.store(on); }

PieceCache& PieceCache::ForThread(uint64_t serial) {
  thread_local PieceCache cache;
  if (cache.serial_ != serial) {
    cache.tokens_.clear();
    cache.serial_ = serial;
  }
  return cache;
}

bool PieceCache::Emit(std::string_view bytes, Piece piece, size_t base, Encoding* out) const {
  if (bytes.size() > kMaxCachedPieceBytes || !enabled.load(std::memory_order_relaxed)) return false;
  auto it = tokens_.find(absl::string_view(bytes.data(), bytes.size()));
  if (it == tokens_.end()) return false;
  const std::vector<Token>& tokens = it->second;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const size_t end = i + 1 < tokens.size() ? piece.begin + tokens[i + 1].begin : piece.end;
    out->ids.push_back(tokens[i].id);
    out->offsets.push_back({base + piece.begin + tokens[i].begin, base + end});
  }
  return true;
}

void PieceCache::Insert(std::string_view bytes, const std::vector<BpeModel::Symbol>& symbols, size_t piece_begin) {
  if (bytes.size() > kMaxCachedPieceBytes || !enabled.load(std::memory_order_relaxed)) return;
  if (tokens_.size() >= kMaxCachedPieces) tokens_.clear();
  std::vector<Token> tokens;
  tokens.reserve(symbols.size());
  for (const BpeModel::Symbol& symbol : symbols) {
    tokens.push_back({symbol.id, static_cast<uint32_t>(symbol.begin - piece_begin)});
  }
  tokens_.emplace(std::string(bytes), std::move(tokens));
}

}  // namespace tokvec
