// Piece counts as a file: the interface between counting (`tokvec count`, or Spark, Dask, any tool that can
// split text as tokvec does) and training (`tokvec train --from-counts`).
//
//   tokvec-counts 1 type=byte pre_tokenizer=gpt2 normalizer=none     optional first line (written by tokvec count;
//                                                                     ` split=lines` after it when counted by lines)
//   \sthe	53421                                                      one piece per line: escaped bytes, TAB, count
//   ,	31337
//
// Pieces are escaped as in tokvec's model file (text_escape.h: `\\` `\s` `\t` `\n` `\r` `\xHH`), so a piece line
// holds no space and no tab but the one before its count, and any line with a space is a header. Counts are
// decimal, 1 .. 2^64 - 1. A piece may appear on several lines and in several files: its counts add up (an error
// if the sum passes 2^64 - 1). Empty lines and a '\r' before a line's '\n' are ignored. `tokvec count` writes
// the header and the pieces sorted by their bytes, each once.
//
//   TOKVEC_ASSIGN_OR_RETURN(PieceCounts counts, ReadCountFiles({"part-0.tsv", "part-1.tsv"}, /*word=*/false));
//   TOKVEC_RETURN_IF_ERROR(WriteCountFile("all.tsv", counts.header, std::move(counts.pieces)));
#ifndef TOKVEC_TOKENIZER_TRAINERS_COUNT_FILE_H_
#define TOKVEC_TOKENIZER_TRAINERS_COUNT_FILE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tokenizer/trainers/word_counter.h"

namespace tokvec {

// How the pieces were cut: the model type ("word" | "byte"), the pre-tokenizer's and the normalizer's names as
// tokvec's model file writes them (e.g. "whitespace", "gpt2", "none", "nfkc"), and whether each line was counted
// on its own (word_counter.h: --split-lines, or a regex pattern) rather than each text whole.
struct CountFileHeader {
  std::string type;
  std::string pre_tokenizer;
  std::string normalizer;
  bool split_lines = false;  // written as a last field ` split=lines`, absent for whole texts

  bool operator==(const CountFileHeader&) const = default;
  std::string ToString() const;  // "type=byte pre_tokenizer=gpt2 normalizer=none" (+ " split=lines")
};

struct PieceCounts {
  std::optional<CountFileHeader> header;  // the files' header (all files that have one agree), if any has one
  std::vector<WordCount> pieces;          // every piece once, its counts summed; in no particular order
};

// The whole file: the header line (when given) and the pieces sorted by their bytes.
std::string FormatCountFile(const std::optional<CountFileHeader>& header, std::vector<WordCount> pieces);
// FormatCountFile written atomically (a temporary file renamed into place).
absl::Status WriteCountFile(const std::string& path, const std::optional<CountFileHeader>& header,
                            std::vector<WordCount> pieces);

// Parses count files and adds them up. With `word` (a word model's pieces), or after a header saying type=word,
// every piece must be well-formed UTF-8 without spaces, tabs or line breaks, as whitespace words are. Errors name
// the file and line.
absl::StatusOr<PieceCounts> ReadCountFiles(const std::vector<std::string>& paths, bool word);
// The same for one file's text, named `name` in messages, added into `into`.
absl::Status ParseCountText(std::string_view text, const std::string& name, bool word, PieceCounts* into);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_TRAINERS_COUNT_FILE_H_
