// The private functions under the drop-in modules tokvec.tiktoken and tokvec.tokenizers (python/tokvec/):
//   _tiktoken(name, pattern, special_tokens, data=None, ranks=None)   a Tokenizer from a rank file's bytes or
//                                                                      tiktoken's mergeable ranks
//   _rank_bytes(tokenizer)                                             each rank's token bytes (None: no token)
//   _pieces(tokenizer, text), _piece_ids(tokenizer, bytes)             the pre-tokenizer's pieces; one piece merged
//   _sections(tokenizer)                                               the tokenizer.json's truncation, padding
//   _encodings(tokenizer, texts, pairs, add_special_tokens, truncation, padding)
//                                                                      Hugging Face's Encoding fields per text
// Their Python wrappers carry the peers' names and semantics; these stay small and mechanical.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/src/bindings.h"
#include "python/src/tokenizer_object.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/sequence_encoding.h"

namespace tokvec::python {
namespace {

std::unique_ptr<TokenizerObject> MakeTiktoken(const std::string& name, const std::string& pattern,
                                              const py::dict& special_tokens, py::handle data, py::handle ranks) {
  std::vector<SpecialToken> specials;
  for (auto [text, id] : special_tokens) {
    const int64_t value = id.cast<int64_t>();
    if (value < 0 || value > 0x7fffffff) throw py::value_error("special token ids must be between 0 and 2^31-1");
    specials.push_back(SpecialToken{.text = text.cast<std::string>(), .id = static_cast<TokenId>(value)});
  }
  std::vector<std::string> tokens;
  if (!data.is_none()) {
    const std::string_view bytes = TextView(data);
    py::gil_scoped_release release;
    tokens = Check(ReadTiktokenRanks(bytes, name));
  } else {
    for (py::handle token : ranks) tokens.push_back(token.is_none() ? std::string() : token.cast<std::string>());
  }
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = absl::UnknownError("not made");
  {
    py::gil_scoped_release release;
    absl::StatusOr<TokenizerSpec> spec = TiktokenSpec(std::move(tokens), pattern, std::move(specials), name);
    tokenizer = spec.ok() ? Tokenizer::Create(std::move(spec).value())
                          : absl::StatusOr<std::unique_ptr<Tokenizer>>(spec.status());
  }
  return std::make_unique<TokenizerObject>(Check(std::move(tokenizer)));
}

py::list RankBytes(const TokenizerObject& self) {
  const BpeModel& bpe = self.tokenizer().bpe();
  py::list out(bpe.size());
  for (size_t rank = 0; rank < bpe.size(); ++rank) {
    const std::string_view token = bpe.token(static_cast<TokenId>(rank));
    out[rank] = token.empty() ? py::object(py::none()) : py::object(py::bytes(token.data(), token.size()));
  }
  return out;
}

// The pre-tokenizer's pieces of a text, as (begin, end) byte offsets.
py::list Pieces(const TokenizerObject& self, py::handle text) {
  const std::string_view view = TextView(text);
  std::vector<Piece> pieces;
  Check(self.tokenizer().spec().pre_tokenizer->Split(view, &pieces));
  py::list out(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) out[i] = py::make_tuple(pieces[i].begin, pieces[i].end);
  return out;
}

// The ids of bytes merged as one piece, without the pre-tokenizer (tiktoken's byte_pair_encode); every byte must
// be a token of its own, as in a tiktoken encoding.
std::vector<TokenId> PieceIds(const TokenizerObject& self, py::handle text) {
  const std::string_view view = TextView(text);
  const BpeModel& bpe = self.tokenizer().bpe();
  if (std::optional<TokenId> whole = bpe.Find(view)) return {*whole};
  std::vector<BpeModel::Symbol> symbols;
  symbols.reserve(view.size());
  for (size_t i = 0; i < view.size(); ++i) {
    std::optional<TokenId> byte = bpe.Find(view.substr(i, 1));
    if (!byte) throw py::value_error("byte " + std::to_string(static_cast<unsigned char>(view[i])) + " is no token");
    symbols.push_back({*byte, i});
  }
  bpe.Merge(symbols);
  std::vector<TokenId> ids;
  ids.reserve(symbols.size());
  for (const BpeModel::Symbol& symbol : symbols) ids.push_back(symbol.id);
  return ids;
}

// Hugging Face's dict shapes: truncation {max_length, stride, strategy, direction}; padding {length, direction,
// pad_id, pad_type_id, pad_token, pad_to_multiple_of}.
py::object TruncationDict(const std::optional<TruncationParams>& t) {
  if (!t) return py::none();
  py::dict out;
  out["max_length"] = t->max_length;
  out["stride"] = t->stride;
  out["strategy"] = t->strategy == TruncationStrategy::kLongestFirst ? "longest_first"
                    : t->strategy == TruncationStrategy::kOnlyFirst  ? "only_first"
                                                                     : "only_second";
  out["direction"] = t->direction == TruncationSide::kLeft ? "left" : "right";
  return out;
}

py::object PaddingDict(const std::optional<PaddingParams>& p) {
  if (!p) return py::none();
  py::dict out;
  out["length"] = p->fixed_length ? py::object(py::int_(*p->fixed_length)) : py::object(py::none());
  out["pad_to_multiple_of"] =
      p->pad_to_multiple_of && *p->pad_to_multiple_of > 0 ? py::object(py::int_(*p->pad_to_multiple_of)) : py::none();
  out["pad_id"] = p->pad_id;
  out["pad_type_id"] = p->pad_type_id;
  out["pad_token"] = p->pad_token;
  out["direction"] = p->direction == PaddingSide::kLeft ? "left" : "right";
  return out;
}

std::optional<TruncationParams> ParseTruncation(py::handle value) {
  if (value.is_none()) return std::nullopt;
  py::dict d = py::reinterpret_borrow<py::dict>(value);
  TruncationParams t;
  t.max_length = d["max_length"].cast<size_t>();
  t.stride = d["stride"].cast<size_t>();
  const std::string strategy = d["strategy"].cast<std::string>();
  const std::string direction = d["direction"].cast<std::string>();
  if (strategy == "longest_first") {
    t.strategy = TruncationStrategy::kLongestFirst;
  } else if (strategy == "only_first") {
    t.strategy = TruncationStrategy::kOnlyFirst;
  } else if (strategy == "only_second") {
    t.strategy = TruncationStrategy::kOnlySecond;
  } else {
    throw py::value_error("strategy must be longest_first, only_first or only_second, not " + strategy);
  }
  if (direction != "left" && direction != "right") {
    throw py::value_error("direction must be left or right, not " + direction);
  }
  t.direction = direction == "left" ? TruncationSide::kLeft : TruncationSide::kRight;
  if (t.max_length == 0) throw py::value_error("max_length must be at least 1");
  if (t.stride >= t.max_length) throw py::value_error("stride must be smaller than max_length");
  return t;
}

std::optional<PaddingParams> ParsePadding(py::handle value) {
  if (value.is_none()) return std::nullopt;
  py::dict d = py::reinterpret_borrow<py::dict>(value);
  PaddingParams p;
  if (!d["length"].is_none()) p.fixed_length = d["length"].cast<size_t>();
  if (!d["pad_to_multiple_of"].is_none()) p.pad_to_multiple_of = d["pad_to_multiple_of"].cast<size_t>();
  p.pad_id = d["pad_id"].cast<TokenId>();
  p.pad_type_id = d["pad_type_id"].cast<uint32_t>();
  p.pad_token = d["pad_token"].cast<std::string>();
  const std::string direction = d["direction"].cast<std::string>();
  if (direction != "left" && direction != "right") {
    throw py::value_error("direction must be left or right, not " + direction);
  }
  p.direction = direction == "left" ? PaddingSide::kLeft : PaddingSide::kRight;
  return p;
}

// Characters that start before each byte position of a UTF-8 text ([size + 1]).
std::vector<size_t> CharsBefore(std::string_view text) {
  std::vector<size_t> before(text.size() + 1);
  size_t count = 0;
  for (size_t b = 0; b < text.size(); ++b) {
    before[b] = count;
    if ((static_cast<unsigned char>(text[b]) & 0xC0) != 0x80) ++count;
  }
  before[text.size()] = count;
  return before;
}

struct TextChars {
  std::string_view text;
  bool is_str = false;
  std::vector<size_t> before;  // CharsBefore(text) for a str
};

py::object OptionalIndex(int value) { return value < 0 ? py::object(py::none()) : py::object(py::int_(value)); }

// One encoding's fields as a dict of lists; offsets in characters of the text each token came from (bytes for a
// bytes input), as Hugging Face's Python Encoding gives them.
py::dict EncodingDict(const Tokenizer& tokenizer, const EncodedTokens& e, const TextChars* texts, const std::string& pad) {
  const size_t n = e.size();
  py::list ids(n), type_ids(n), tokens(n), offsets(n), attention(n), special(n), words(n), sequences(n);
  for (size_t i = 0; i < n; ++i) {
    ids[i] = e.ids[i];
    type_ids[i] = e.type_ids[i];
    const bool padding = e.attention_mask[i] == 0;
    tokens[i] = padding ? pad : tokenizer.TokenSpelling(e.ids[i]);
    const TextChars& text = texts[e.offset_texts[i]];
    size_t begin = e.offsets[i].begin, end = e.offsets[i].end;
    if (text.is_str && end <= text.text.size() && begin <= end) {
      begin = begin < text.text.size() ? text.before[begin + 1] - 1 : text.before[text.text.size()];
      end = text.before[end];
      if (begin > end) begin = end;
    }
    offsets[i] = py::make_tuple(begin, end);
    attention[i] = e.attention_mask[i];
    special[i] = e.special_tokens_mask[i];
    words[i] = OptionalIndex(e.word_ids[i]);
    sequences[i] = OptionalIndex(e.sequence_ids[i]);
  }
  py::list overflowing(e.overflowing.size());
  for (size_t w = 0; w < e.overflowing.size(); ++w) overflowing[w] = EncodingDict(tokenizer, e.overflowing[w], texts, pad);
  py::dict out;
  out["ids"] = ids;
  out["type_ids"] = type_ids;
  out["tokens"] = tokens;
  out["offsets"] = offsets;
  out["attention_mask"] = attention;
  out["special_tokens_mask"] = special;
  out["word_ids"] = words;
  out["sequence_ids"] = sequences;
  out["overflowing"] = overflowing;
  out["n_sequences"] = e.sequence_ranges.empty() ? 1 : e.sequence_ranges.size();
  return out;
}

// Hugging Face's encode_batch: every added token in the text is matched (special or not), the post-processor's
// tokens with add_special_tokens, then truncation and padding as given.
py::list Encodings(const TokenizerObject& self, py::handle texts, py::handle pairs, bool add_special_tokens,
                   py::handle truncation, py::handle padding) {
  py::list a_items(py::reinterpret_borrow<py::object>(texts));
  py::list b_items = pairs.is_none() ? py::list() : py::list(py::reinterpret_borrow<py::object>(pairs));
  const size_t n = a_items.size();
  if (!pairs.is_none() && b_items.size() != n) throw py::value_error("pairs and texts differ in length");
  std::vector<TextChars> chars(2 * n);
  std::vector<std::string_view> a(n), b(b_items.size());
  for (size_t i = 0; i < n; ++i) {
    chars[2 * i].text = a[i] = TextView(a_items[i], &chars[2 * i].is_str);
    if (!pairs.is_none()) chars[2 * i + 1].text = b[i] = TextView(b_items[i], &chars[2 * i + 1].is_str);
  }
  SequenceLengths lengths{ParseTruncation(truncation), ParsePadding(padding)};
  EncodeOptions options;
  options.allow_all_special = true;
  options.add_special_tokens = add_special_tokens;
  absl::StatusOr<std::vector<EncodedTokens>> encoded;
  {
    py::gil_scoped_release release;
    encoded = EncodeBatch(self.tokenizer(), a, b, options, lengths);
    for (TextChars& text : chars) {
      if (text.is_str) text.before = CharsBefore(text.text);
    }
  }
  const std::vector<EncodedTokens> batch = Check(std::move(encoded));
  const std::string pad = lengths.padding ? lengths.padding->pad_token : std::string();
  py::list out(n);
  for (size_t i = 0; i < n; ++i) out[i] = EncodingDict(self.tokenizer(), batch[i], &chars[2 * i], pad);
  return out;
}

}  // namespace

void RegisterCompat(py::module_& m) {
  m.def("_tiktoken", &MakeTiktoken, py::arg("name"), py::arg("pattern"), py::arg("special_tokens"),
        py::arg("data") = py::none(), py::arg("ranks") = py::none());
  m.def("_rank_bytes", &RankBytes, py::arg("tokenizer"));
  m.def("_pieces", &Pieces, py::arg("tokenizer"), py::arg("text"));
  m.def("_piece_ids", &PieceIds, py::arg("tokenizer"), py::arg("text"));
  m.def("_sections", [](const TokenizerObject& self) {
    return py::make_tuple(TruncationDict(self.tokenizer().spec().truncation),
                          PaddingDict(self.tokenizer().spec().padding));
  });
  m.def("_encodings", &Encodings, py::arg("tokenizer"), py::arg("texts"), py::arg("pairs"),
        py::arg("add_special_tokens"), py::arg("truncation"), py::arg("padding"));
}

}  // namespace tokvec::python
