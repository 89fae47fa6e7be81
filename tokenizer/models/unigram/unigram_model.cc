#include "tokenizer/models/unigram/unigram_model.h"

#include <algorithm>
#include <limits>

#include "fmt/format.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr TokenId kNone = ~TokenId{0};
// Hugging Face (and SentencePiece): an unknown character scores this far below the lowest piece.
constexpr double kUnkPenalty = 10.0;

// Bytes of the character at `pos`: its UTF-8 length, 1 for a byte that starts no well-formed sequence.
size_t CharLength(std::string_view text, size_t pos) {
  const size_t len = Utf8SequenceLength(text, pos);
  return len == 0 ? 1 : len;
}

}  // namespace

absl::StatusOr<UnigramModel> UnigramModel::Create(std::vector<Piece> pieces, std::optional<TokenId> unk_id,
                                                  bool byte_fallback) {
  if (pieces.empty()) return absl::InvalidArgumentError("the Unigram vocabulary is empty");
  if (pieces.size() >= kNone) return absl::InvalidArgumentError("the Unigram vocabulary is too large");
  if (unk_id && *unk_id >= pieces.size()) {
    return absl::InvalidArgumentError(
        fmt::format("unk_id {} is outside the vocabulary of {} pieces", *unk_id, pieces.size()));
  }
  UnigramModel model;
  model.unk_id_ = unk_id;
  model.byte_fallback_ = byte_fallback;
  double min_score = std::numeric_limits<double>::infinity();
  model.ends_.push_back(kNone);  // The root.
  for (TokenId id = 0; id < pieces.size(); ++id) {
    const std::string& spelling = pieces[id].spelling;
    min_score = std::min(min_score, pieces[id].score);
    model.ids_[spelling] = id;  // The last id of a repeated spelling, as Hugging Face's map.
    uint32_t node = 0;
    for (unsigned char c : spelling) {
      auto [it, inserted] =
          model.edges_.try_emplace((uint64_t{node} << 8) | c, static_cast<uint32_t>(model.ends_.size()));
      if (inserted) model.ends_.push_back(kNone);
      node = it->second;
    }
    if (node != 0) model.ends_[node] = id;
  }
  // Scores are looked up by spelling, so a repeated spelling scores as its last id everywhere.
  for (TokenId& end : model.ends_) {
    if (end != kNone) end = model.ids_[pieces[end].spelling];
  }
  model.unk_score_ = min_score - kUnkPenalty;
  if (byte_fallback) {
    model.byte_ids_.resize(256);
    for (int b = 0; b < 256; ++b) {
      auto it = model.ids_.find(fmt::format("<0x{:02X}>", b));
      if (it != model.ids_.end()) model.byte_ids_[b] = it->second;
    }
  }
  model.pieces_ = std::move(pieces);
  return model;
}

std::optional<TokenId> UnigramModel::Find(std::string_view spelling) const {
  auto it = ids_.find(absl::string_view(spelling.data(), spelling.size()));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<unsigned char> UnigramModel::FallbackByte(TokenId id) const {
  if (!byte_fallback_ || id >= pieces_.size()) return std::nullopt;
  const std::string& s = pieces_[id].spelling;
  if (s.size() != 6 || s.compare(0, 3, "<0x") != 0 || s[5] != '>') return std::nullopt;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int high = hex(s[3]);
  const int low = hex(s[4]);
  if (high < 0 || low < 0) return std::nullopt;
  return static_cast<unsigned char>(high * 16 + low);
}

void UnigramModel::Emit(std::string_view word, size_t from, size_t to, size_t begin,
                        std::vector<BpeModel::Symbol>* out) const {
  std::string_view text = word.substr(from, to - from);
  if (std::optional<TokenId> id = Find(text)) {
    out->push_back({*id, begin + from});
    return;
  }
  if (byte_fallback_ &&
      std::all_of(text.begin(), text.end(), [&](char c) { return byte_ids_[static_cast<unsigned char>(c)]; })) {
    // Every byte token covers the whole stretch in Hugging Face; here each starts where the stretch starts.
    for (char c : text) out->push_back({*byte_ids_[static_cast<unsigned char>(c)], begin + from});
    return;
  }
  out->push_back({*unk_id_, begin + from});
}

absl::Status UnigramModel::Tokenize(std::string_view word, size_t begin, std::vector<BpeModel::Symbol>* out) const {
  // best[e]: the best segmentation of word[0, e): its score, where its last segment starts and that segment's id.
  struct Node {
    double score = 0;
    size_t start = std::string_view::npos;  // npos: not reached yet.
    TokenId id = kNone;
  };
  thread_local std::vector<Node> best;
  best.assign(word.size() + 1, Node{});
  best[0].start = 0;
  for (size_t start = 0; start < word.size();) {
    const double here = best[start].score;
    const size_t char_len = std::min(CharLength(word, start), word.size() - start);
    bool single_char_piece = false;
    uint32_t node = 0;
    for (size_t end = start; end < word.size();) {
      auto it = edges_.find((uint64_t{node} << 8) | static_cast<unsigned char>(word[end]));
      if (it == edges_.end()) break;
      node = it->second;
      ++end;
      const TokenId id = ends_[node];
      if (id == kNone) continue;
      const double score = here + pieces_[id].score;
      Node& target = best[end];
      if (target.start == std::string_view::npos || score > target.score) target = {score, start, id};
      if (end - start == char_len) single_char_piece = true;
    }
    if (!single_char_piece) {
      if (!unk_id_) {
        return absl::FailedPreconditionError(fmt::format(
            "'{}' at byte {} is not in the Unigram vocabulary and the model has no unk token",
            word.substr(start, char_len), begin + start));
      }
      const double score = here + unk_score_;
      Node& target = best[start + char_len];
      if (target.start == std::string_view::npos || score > target.score) target = {score, start, *unk_id_};
    }
    start += char_len;
  }
  // Walk back; a run of unk segments (unknown characters, or the unk piece itself) becomes one segment.
  thread_local std::vector<std::pair<size_t, size_t>> segments;
  segments.clear();
  for (size_t end = word.size(); end > 0;) {
    const Node& node = best[end];
    const bool unk = unk_id_ && node.id == *unk_id_;
    if (unk && !segments.empty() && segments.back().first == end &&
        best[segments.back().second].id == *unk_id_) {
      segments.back().first = node.start;
    } else {
      segments.push_back({node.start, end});
    }
    end = node.start;
  }
  for (size_t i = segments.size(); i-- > 0;) Emit(word, segments[i].first, segments[i].second, begin, out);
  return absl::OkStatus();
}

}  // namespace tokvec
