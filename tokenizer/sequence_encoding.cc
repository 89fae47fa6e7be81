#include "tokenizer/sequence_encoding.h"

#include <string>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace tokvec {
namespace {

// The most window combinations a pair may make (Hugging Face's merge_with builds them all, nested).
constexpr size_t kMaxWindowPairs = 4096;

// The tokens text `sequence` encodes to, without special tokens (the layout adds them).
absl::StatusOr<EncodedTokens> EncodeText(const Tokenizer& tokenizer, std::string_view text, int sequence, bool pair,
                                     const EncodeOptions& options) {
  EncodeOptions each = options;
  each.add_special_tokens = false;
  each.words = true;
  each.trim_offsets = false;  // after truncation, window by window (TrimEachWindow)
  absl::StatusOr<Encoding> encoding = tokenizer.Encode(text, each);
  if (!encoding.ok()) {
    if (!pair) return encoding.status();
    return absl::Status(encoding.status().code(), fmt::format("text {}: {}", sequence == 0 ? 'a' : 'b',
                                                              std::string(encoding.status().message())));
  }
  return EncodedTokens::OfText(std::move(encoding->ids), std::move(encoding->offsets), std::move(encoding->words),
                               sequence, static_cast<uint32_t>(sequence));
}

// True when token k of `rows` (bytes of `text`) is an added token matched in the text rather than a model token
// that shares an added token's id (an unknown word's [UNK]): the text it covers holds the token's content (a
// `normalized` token is matched in normalized text, which may spell it otherwise: taken as matched).
bool IsMatchedAddedToken(const Tokenizer& tokenizer, std::string_view text, const EncodedTokens& rows, size_t k) {
  const SpecialToken* added = tokenizer.FindAdded(rows.ids[k]);
  if (added == nullptr) return false;
  if (added->normalized) return true;
  const Offset offset = rows.offsets[k];
  if (offset.end > text.size() || offset.begin > offset.end) return false;
  return text.substr(offset.begin, offset.end - offset.begin).find(added->text) != std::string_view::npos;
}

// Hugging Face's early exit (tokenizers 0.23.2, PreTokenizedString::tokenize_with_limit): a text is tokenized word
// by word from the side truncation keeps, and stops once it has max_length tokens or more after a word the model
// tokenized (an added token matched in the text is a word already tokenized: no check after it); the words after
// (before, for left truncation) are dropped, never to be seen in an overflowing window. The first text of a pair
// cut OnlySecond is whole. Word ids are those of the text's words; an added token is a word of its own.
void DropUnreachedWords(const Tokenizer& tokenizer, std::string_view text, const TruncationParams& params,
                        int sequence, EncodedTokens* rows) {
  if (params.strategy == TruncationStrategy::kOnlySecond && sequence == 0) return;
  const size_t n = rows->size();
  if (n <= params.max_length) return;
  // The tokens of whole words from the kept side, until there are max_length or more after a model word.
  size_t kept = 0;
  const bool right = params.direction == TruncationSide::kRight;
  auto at = [&](size_t k) { return right ? k : n - 1 - k; };
  while (kept < n) {
    const int32_t word = rows->word_ids[at(kept)];
    const size_t first = kept;
    do {
      ++kept;
    } while (kept < n && rows->word_ids[at(kept)] == word);
    const bool added = kept - first == 1 && IsMatchedAddedToken(tokenizer, text, *rows, at(first));
    if (!added && kept >= params.max_length) break;
  }
  if (right) {
    *rows = rows->Slice(0, kept);
    return;
  }
  // Hugging Face drops the words before: the words kept are numbered from 0 again.
  *rows = rows->Slice(n - kept, n);
  const int32_t first = rows->word_ids.empty() ? 0 : rows->word_ids[0];
  for (int32_t& word : rows->word_ids) word -= first;
}

// The post-processor's offset trimming on `rows` and on each of its windows, each as an encoding of its own:
// Hugging Face post-processes after truncation, so a window's first token is token 0, whose one leading space
// ByteLevel spares under add_prefix_space (pre_tokenizers/byte_level.rs, process_offsets).
void TrimEachWindow(const Tokenizer& tokenizer, std::string_view text, EncodedTokens* rows) {
  tokenizer.TrimOffsets(text, rows->ids, &rows->offsets);
  for (EncodedTokens& window : rows->overflowing) TrimEachWindow(tokenizer, text, &window);
}

// `y` appended to `x`, their overflowing windows combined as Hugging Face's Encoding::merge_with combines them:
// each window of x with y (y's windows then nest in it) and with each window of y, then x (with its windows) with
// each window of y.
EncodedTokens Merge(const EncodedTokens& x, const EncodedTokens& y) {
  std::vector<EncodedTokens> windows;
  for (const EncodedTokens& x_window : x.overflowing) {
    windows.push_back(Merge(x_window, y));
    for (const EncodedTokens& y_window : y.overflowing) windows.push_back(Merge(x_window, y_window));
  }
  for (const EncodedTokens& y_window : y.overflowing) windows.push_back(Merge(x, y_window));
  EncodedTokens merged = x;
  merged.overflowing.clear();
  merged.Append(y);
  merged.overflowing = std::move(windows);
  return merged;
}

// The post-processor's tokens as rows of their own (type id `type_id`).
EncodedTokens Added(const std::vector<TokenId>& ids, uint32_t type_id) {
  EncodedTokens rows;
  for (TokenId id : ids) rows.AppendAdded(id, type_id);
  return rows;
}

// `rows` with every token's type id set to `type_id`; its windows too when `windows`, else (as Hugging Face leaves
// them) they keep the type id the text was encoded with (0 for a, 1 for b).
void SetTypeIds(EncodedTokens* rows, uint32_t type_id, bool windows) {
  rows->type_ids.assign(rows->size(), type_id);
  if (!windows) return;
  for (EncodedTokens& window : rows->overflowing) SetTypeIds(&window, type_id, true);
}

}  // namespace

absl::StatusOr<EncodedTokens> EncodeSequences(const Tokenizer& tokenizer, std::string_view a,
                                          std::optional<std::string_view> b, const EncodeOptions& options,
                                          const SequenceLengths& lengths) {
  const PostProcessor* post = tokenizer.spec().post_processor.get();
  const PostProcessor none;
  if (post == nullptr) post = &none;
  // 1. The layout (a pair's first: a post-processor that cannot lay out pairs is an error before any encoding).
  std::vector<TemplatePiece> layout;
  if (b) {
    TOKVEC_ASSIGN_OR_RETURN(layout, post->PairTemplate());
  } else {
    layout = {{.kind = TemplatePiece::kTokens, .ids = post->SingleBefore()},
              {.kind = TemplatePiece::kSequenceA},
              {.kind = TemplatePiece::kTokens, .ids = post->SingleAfter()}};
  }
  // 2. Each text on its own.
  EncodedTokens texts[2];
  TOKVEC_ASSIGN_OR_RETURN(texts[0], EncodeText(tokenizer, a, 0, b.has_value(), options));
  if (b) {
    TOKVEC_ASSIGN_OR_RETURN(texts[1], EncodeText(tokenizer, *b, 1, true, options));
  }
  // 3. Truncation, the post-processor's tokens budgeted.
  bool truncated = false;
  if (lengths.truncation) {
    TruncationParams params = *lengths.truncation;
    const size_t before = texts[0].size() + (b ? texts[1].size() : 0);
    DropUnreachedWords(tokenizer, a, params, 0, &texts[0]);
    if (b) DropUnreachedWords(tokenizer, *b, params, 1, &texts[1]);
    if (options.add_special_tokens) {
      size_t added = 0;
      for (const TemplatePiece& piece : layout) added += piece.kind == TemplatePiece::kTokens ? piece.ids.size() : 0;
      if (added > params.max_length) {
        return absl::InvalidArgumentError(fmt::format(
            "truncation max_length {} is less than the {} tokens the post-processor adds", params.max_length, added));
      }
      params.max_length -= added;
    }
    TOKVEC_RETURN_IF_ERROR(TruncateSequences(&texts[0], b ? &texts[1] : nullptr, params));
    truncated = texts[0].size() + (b ? texts[1].size() : 0) < before;
    // A pair's windows are combined each with each (and nest): bound them before the product is built.
    const size_t a_windows = texts[0].overflowing.size(), b_windows = b ? texts[1].overflowing.size() : 0;
    if (b && (a_windows + 1) * (b_windows + 1) > kMaxWindowPairs) {
      return absl::InvalidArgumentError(fmt::format(
          "truncation cut text a into {} and text b into {} overflowing windows, and a pair's windows are combined "
          "each with each (more than {} combinations): give a larger max_length or a smaller stride",
          a_windows, b_windows, kMaxWindowPairs));
    }
  }
  TrimEachWindow(tokenizer, a, &texts[0]);
  if (b) TrimEachWindow(tokenizer, *b, &texts[1]);
  // 4. The layout, windows combined. Which tokens are which text's: a post-processor says so for both texts and their
  // windows; without one Hugging Face says it for a pair's texts alone (every token of a single text reads as a's).
  const bool processed = tokenizer.spec().post_processor != nullptr;
  if (processed || b) {
    texts[0].SetSequence(0, processed);
    if (b) texts[1].SetSequence(1, processed);
  }
  EncodedTokens out;
  for (const TemplatePiece& piece : layout) {
    if (piece.kind == TemplatePiece::kTokens) {
      if (options.add_special_tokens && !piece.ids.empty()) out = Merge(out, Added(piece.ids, piece.type_id));
      continue;
    }
    EncodedTokens& text = texts[piece.kind == TemplatePiece::kSequenceA ? 0 : 1];
    SetTypeIds(&text, piece.type_id, options.add_special_tokens && post->ZeroWindowTypeIds());
    out = Merge(out, text);
  }
  out.truncated = truncated;
  // 5. Padding, alone.
  if (lengths.padding) PadBatch(absl::MakeSpan(&out, 1), *lengths.padding);
  out.FillSequenceIds();
  return out;
}

absl::StatusOr<std::vector<EncodedTokens>> EncodeBatch(const Tokenizer& tokenizer, absl::Span<const std::string_view> a,
                                                   absl::Span<const std::string_view> b, const EncodeOptions& options,
                                                   const SequenceLengths& lengths) {
  if (!b.empty() && b.size() != a.size()) {
    return absl::InvalidArgumentError(
        fmt::format("a batch of pairs needs as many second texts as first ones ({} and {})", a.size(), b.size()));
  }
  const SequenceLengths unpadded{.truncation = lengths.truncation};
  std::vector<EncodedTokens> batch;
  batch.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    absl::StatusOr<EncodedTokens> rows = EncodeSequences(
        tokenizer, a[i], b.empty() ? std::nullopt : std::optional<std::string_view>(b[i]), options, unpadded);
    if (!rows.ok()) {
      return absl::Status(rows.status().code(), fmt::format("text {}: {}", i, std::string(rows.status().message())));
    }
    batch.push_back(*std::move(rows));
  }
  if (lengths.padding) {
    PadBatch(absl::MakeSpan(batch), *lengths.padding);
    for (EncodedTokens& rows : batch) rows.FillSequenceIds();
  }
  return batch;
}

void PadBatch(absl::Span<EncodedTokens> batch, const PaddingParams& padding) {
  std::vector<size_t> sizes;
  sizes.reserve(batch.size());
  for (const EncodedTokens& rows : batch) sizes.push_back(rows.size());
  const size_t length = PaddedLength(sizes, padding);
  for (EncodedTokens& rows : batch) PadRows(&rows, length, padding);
}

}  // namespace tokvec
