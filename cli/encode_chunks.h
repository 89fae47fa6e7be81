// The work `tokvec encode` gives each chunk of its input (cli/encode_command.cc runs it on the library's
// ChunkedEncoder, tokenizer/batch/chunked_encoder.h, and on the lines of a sharded run): the chunk's text in,
// its output text (tokenizer/batch/encoding_text.h's formats) out, in chunk->output or chunk->id_text.
#ifndef TOKVEC_CLI_ENCODE_CHUNKS_H_
#define TOKVEC_CLI_ENCODE_CHUNKS_H_

#include "absl/status/status.h"
#include "tokenizer/batch/chunked_encoder.h"
#include "tokenizer/batch/encoding_text.h"
#include "tokenizer/sequence_encoding.h"
#include "tokenizer/tokenizer.h"

namespace tokvec::cli {

// How lines are encoded besides the tokenizer's EncodeOptions.
struct LineEncoding {
  bool pairs = false;  // each line is text A, a tab, text B
  // Truncation and padding (tokenizer/sequence_encoding.h): null for none, the fast paths. The first line cut is
  // noted in the chunk (EncodeChunk::first_cut_line).
  const SequenceLengths* lengths = nullptr;
  bool windows_as_lines = false;  // overflowing windows as lines of their own (not json)
};

// Encodes each line of `chunk` (line ends removed) as one output line (and its windows, `windows_as_lines`). An
// error names its line: "line N: ...".
void EncodeLinesChunk(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                      const IdTextCaches& caches, EncodeChunk* chunk, const LineEncoding& lines = {});

// Encodes a chunk of the whole text: its ids (or token spellings) separated by spaces, no line end.
void EncodeTextChunk(const Tokenizer& tokenizer, const EncodeOptions& encode, EncodingTextFormat format,
                     const IdTextCaches& caches, EncodeChunk* chunk);

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_ENCODE_CHUNKS_H_
