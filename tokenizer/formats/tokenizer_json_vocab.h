// The fast path of tokenizer.json loading: the two big parts of a BPE or WordPiece file, model.vocab (an object
// {spelling: id}) and model.merges (an array of "left right" strings or [left, right] pairs), are scanned
// straight into flat arrays (text/flat_vocab.h), and only the rest of the document, with those two values replaced by
// null, goes to the JSON DOM. Why: nlohmann's DOM keeps an object as a std::map, and building and walking one
// of 200,000 keys was most of the 0.54 s that o200k's 7.5 MB tokenizer.json took to load.
//
//   HfModelTables tables = DivertModelTables(text);
//   nlohmann::json json = nlohmann::json::parse(tables.diverted() ? tables.rest : text, ...);
//   // json["model"]["vocab"] is null when tables.vocab holds it; likewise merges.
//
// The scanners accept only what the DOM would read to the same values: strict JSON strings (escapes, \uXXXX
// with surrogate pairs, well-formed UTF-8, no control characters), ids that are plain non-negative integers,
// merges that are "left right" with exactly one space or a pair of strings. Anything else is an error naming
// the key and the byte offset; the reader then reads the whole file through the DOM, which decides (and names
// the key in its messages), so the fast path never changes what loads or how a load fails. DivertModelTables
// declines (diverts nothing) on shapes it does not look into: a vocab that is an array (Unigram), a "model" or
// "vocab"/"merges" key given twice or spelled with escapes, or a document that is not an object.
#ifndef TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_VOCAB_H_
#define TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_VOCAB_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tokenizer/text/flat_vocab.h"

namespace tokvec {

// The JSON string starting at text[*pos] (a '"'), unescaped and appended to `out`; *pos moves past its closing
// quote. Errors (InvalidArgument) give the byte offset: a bad escape, a lone surrogate, a control character,
// ill-formed UTF-8, the end of the text before the closing quote.
absl::Status ScanJsonString(std::string_view text, size_t* pos, std::string* out);

// The object {spelling: id, ...} starting at text[*pos] (a '{'); *pos moves past its '}'. `key` names the
// object in messages ("model.vocab"): "key 'model.vocab.Ġthe': byte 1234: the id must be a non-negative
// integer". Repeated spellings are kept, in file order.
absl::StatusOr<FlatVocab> ScanVocabObject(std::string_view text, size_t* pos, std::string_view key);

// The array ["left right", ...] or [["left", "right"], ...] (the two may mix) starting at text[*pos] (a '[');
// *pos moves past its ']'. `key` names it in messages ("model.merges" -> "key 'model.merges[7]': ...").
absl::StatusOr<FlatMerges> ScanMergesArray(std::string_view text, size_t* pos, std::string_view key);

struct HfModelTables {
  std::string rest;                  // The document with the diverted values replaced by null; empty if none.
  std::optional<FlatVocab> vocab;    // model.vocab when it is an object.
  std::optional<FlatMerges> merges;  // model.merges when it is an array.
  std::string scan_error;            // Why a scanner stopped (key and byte offset), when one did; then nothing
                                     // is diverted.
  bool diverted() const { return vocab.has_value() || merges.has_value(); }
};

// Finds model.vocab and model.merges in a tokenizer.json text (a depth-tracking walk that skips every other
// value) and scans them. Diverts nothing (tables.diverted() is false) when it declines or a scanner stops.
HfModelTables DivertModelTables(std::string_view text);

}  // namespace tokvec

#endif  // TOKVEC_TOKENIZER_FORMATS_TOKENIZER_JSON_VOCAB_H_
