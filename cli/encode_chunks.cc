#include "cli/encode_chunks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/batch/encoding_text.h"
#include "tokenizer/sequence_encoding.h"

namespace tokvec::cli {
namespace {

// --pairs: where text B starts in "A<TAB>B" (one past the tab).
absl::StatusOr<size_t> PairSplit(std::string_view line) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos) {
    return absl::InvalidArgumentError("--pairs expects text A, a tab, text B; the line has no tab");
  }
  if (line.find('\t', tab + 1) != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "--pairs expects text A, a tab, text B; the line has more than one tab (a third column?)");
  }
  return tab + 1;
}

// With truncation or padding: one line (a text or a pair) through EncodeSequences, appended as one output line
// (AppendEncodedTokens). `cut` is set when truncation took tokens away.
absl::Status AppendSequenceLine(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                                const LineEncoding& lines, std::string_view line, std::string* out, bool* cut) {
  size_t b_begin = 0;
  std::optional<std::string_view> b;
  if (lines.pairs) {
    TOKVEC_ASSIGN_OR_RETURN(b_begin, PairSplit(line));
    b = line.substr(b_begin);
    line = line.substr(0, b_begin - 1);
  }
  TOKVEC_ASSIGN_OR_RETURN(EncodedTokens rows, EncodeSequences(tokenizer, line, b, encode, *lines.lengths));
  *cut = rows.truncated;
  AppendEncodedTokens(tokenizer, rows, format, b_begin, lines.windows_as_lines, out);
  return absl::OkStatus();
}

// --pairs: encodes one line "A<TAB>B" as a pair and appends it as one output line (json: with "type_ids", offsets
// into the line).
absl::Status AppendPairLine(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                            std::string_view line, std::string* out) {
  TOKVEC_ASSIGN_OR_RETURN(const size_t b_begin, PairSplit(line));
  const size_t tab = b_begin - 1;
  TOKVEC_ASSIGN_OR_RETURN(EncodedTokens pair, EncodePair(tokenizer, line.substr(0, tab), line.substr(tab + 1), encode));
  Encoding encoding{.ids = std::move(pair.ids), .offsets = std::move(pair.offsets)};
  for (size_t i = 0; i < encoding.offsets.size(); ++i) {
    if (pair.offset_texts[i] == 1) {  // B's offsets count from the line's start
      encoding.offsets[i].begin += tab + 1;
      encoding.offsets[i].end += tab + 1;
    }
  }
  AppendEncoding(tokenizer, encoding, format, out);
  if (format == EncodingTextFormat::kJson) {  // the object's end "]}\n" becomes "], \"type_ids\": [...]}\n"
    out->resize(out->size() - 2);
    *out += ", \"type_ids\": [";
    for (size_t i = 0; i < pair.type_ids.size(); ++i) {
      if (i > 0) *out += ", ";
      AppendNumber(pair.type_ids[i], out);
    }
    *out += "]}\n";
  }
  return absl::OkStatus();
}

}  // namespace

// Encodes each line of `chunk` (line ends removed) as one output line.
void EncodeLinesChunk(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                      const IdTextCaches& caches, EncodeChunk* chunk, const LineEncoding& lines) {
  const std::string_view text = chunk->text;
  uint64_t line_number = chunk->first_line;
  for (size_t at = 0; at < text.size(); ++line_number) {
    const size_t newline = text.find('\n', at);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r' && newline != std::string_view::npos) line.remove_suffix(1);
    at = newline == std::string_view::npos ? text.size() : newline + 1;
    absl::Status status;
    if (lines.lengths != nullptr) {
      bool cut = false;
      status = AppendSequenceLine(tokenizer, encode, format, lines, line, &chunk->output, &cut);
      if (cut && chunk->first_cut_line == 0) chunk->first_cut_line = line_number;
    } else if (lines.pairs) {
      status = AppendPairLine(tokenizer, encode, format, line, &chunk->output);
    } else if (format == EncodingTextFormat::kIds) {
      thread_local IdTextBuffer line_ids;  // " id id ...", with the post-processor's tokens when asked
      line_ids.Clear();
      auto write = [&](const std::vector<TokenId>& special) {
        char* p = line_ids.Reserve(11 * special.size());
        for (TokenId id : special) p = WriteSpaceAndId(p, id);
        line_ids.Commit(p);
      };
      if (encode.add_special_tokens) write(SpecialIdsBefore(tokenizer));
      status = tokenizer.EncodeIdText(line, encode, 0, caches, &line_ids);
      if (encode.add_special_tokens) write(SpecialIdsAfter(tokenizer));
      if (status.ok()) {
        if (line_ids.size() > 0) chunk->output.append(line_ids.view().substr(1));
        chunk->output += '\n';
      }
    } else {
      absl::StatusOr<Encoding> result = tokenizer.Encode(line, encode);
      status = result.status();
      if (status.ok()) AppendEncoding(tokenizer, *result, format, &chunk->output);
    }
    if (!status.ok()) {
      chunk->status =
          absl::Status(status.code(), fmt::format("line {}: {}", line_number, std::string(status.message())));
      return;
    }
  }
}

// Encodes a chunk of the whole text: its ids (or token spellings) separated by spaces, no line end.
void EncodeTextChunk(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                     const IdTextCaches& caches, EncodeChunk* chunk) {
  if (chunk->id_text != nullptr) {
    // Room for twice the chunk's bytes at once (the ids of the 100 MB bench input take 1.9 bytes of text per
    // byte with gpt2, 1.4 with o200k): growing each buffer by doublings from 4 KB copied it 7 times into fresh
    // pages, a quarter of the command's page faults.
    chunk->id_text->Reserve(2 * chunk->text.size() + 16384);
    chunk->status = tokenizer.EncodeIdText(chunk->text, encode, chunk->base, caches, chunk->id_text);
    return;
  }
  thread_local std::vector<TokenId> ids;
  ids.clear();
  chunk->status =
      tokenizer.EncodeIds(chunk->text, encode, &ids, chunk->base, caches.shared_pieces, caches.local_pieces);
  if (!chunk->status.ok()) return;
  if (format == EncodingTextFormat::kIds) {
    AppendIds(ids.data(), ids.size(), /*space_first=*/false, &chunk->output);
    return;
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) chunk->output += ' ';
    chunk->output += SpellToken(tokenizer, ids[i], format);
  }
}

}  // namespace tokvec::cli
