// tokvec.Tokenizer: load, encode (one text, a batch on C++ threads, with offsets, a sentence pair), decode, vocabulary look-ups,
// tiktoken-style aliases, and save in tokvec's, Hugging Face's and tiktoken's formats.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/file_io.h"
#include "base/worker_pool.h"
#include "fmt/format.h"
#include "python/src/bindings.h"
#include "python/src/tokenizer_object.h"
#include "tokenizer/batch/encode_texts.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/sequence_encoding.h"

namespace tokvec::python {
namespace {

// Texts at least this long are encoded with the GIL released, so other Python threads run meanwhile; shorter
// ones keep it (releasing and taking it back costs about as much as encoding a few words).
constexpr size_t kReleaseGilBytes = 2048;

// `allowed_special`: "all", or a collection of special-token texts (empty: none; special text is ordinary).
EncodeOptions ParseAllowed(py::handle allowed) {
  EncodeOptions options;
  if (allowed.is_none()) return options;
  if (PyUnicode_Check(allowed.ptr())) {
    if (PyUnicode_CompareWithASCIIString(allowed.ptr(), "all") != 0) {
      throw py::value_error("allowed_special must be \"all\" or a collection of special-token strings, not a "
                            "single string");
    }
    options.allow_all_special = true;
    return options;
  }
  if (PyTuple_Check(allowed.ptr()) && PyTuple_GET_SIZE(allowed.ptr()) == 0) return options;
  for (py::handle item : py::iter(allowed)) {
    if (!PyUnicode_Check(item.ptr())) throw py::type_error("allowed_special must hold str items");
    options.allowed_special.emplace_back(TextView(item));
  }
  return options;
}

py::list IdList(const std::vector<TokenId>& ids) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ids.size()));
  if (list == nullptr) throw py::error_already_set();
  for (size_t i = 0; i < ids.size(); ++i) {
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyLong_FromUnsignedLong(ids[i]));
  }
  return py::reinterpret_steal<py::list>(list);
}

// The ids of one text; with add_special_tokens, the post-processor's tokens around them (Tokenizer::Encode).
py::list Encode(const TokenizerObject& self, py::handle text, py::handle allowed, bool add_special_tokens) {
  EncodeOptions options = ParseAllowed(allowed);
  options.add_special_tokens = add_special_tokens;
  const std::string_view view = TextView(text);
  thread_local std::vector<TokenId> ids;
  ids.clear();
  absl::Status status;
  if (view.size() >= kReleaseGilBytes) {
    py::gil_scoped_release release;
    status = EncodeTextIds(self.tokenizer(), view, options, &ids);
  } else {
    status = EncodeTextIds(self.tokenizer(), view, options, &ids);
  }
  Check(status);
  return IdList(ids);
}

// (ids, type_ids) of a sentence pair laid out by the post-processor's pair template (tokenizer/sequence_encoding.h).
py::tuple EncodePairIds(const TokenizerObject& self, py::handle a, py::handle b, py::handle allowed,
                        bool add_special_tokens) {
  EncodeOptions options = ParseAllowed(allowed);
  options.add_special_tokens = add_special_tokens;
  const std::string_view first = TextView(a), second = TextView(b);
  absl::StatusOr<EncodedTokens> pair;
  {
    py::gil_scoped_release release;
    pair = EncodePair(self.tokenizer(), first, second, options);
  }
  EncodedTokens result = Check(std::move(pair));
  py::list type_ids(result.type_ids.size());
  for (size_t i = 0; i < result.type_ids.size(); ++i) type_ids[i] = result.type_ids[i];
  return py::make_tuple(IdList(result.ids), type_ids);
}

// Each text on its own, over `num_threads` C++ threads (0: one per core) with the GIL released; the result is
// the serial one for any thread count.
py::list EncodeBatch(TokenizerObject& self, py::handle texts, int num_threads, py::handle allowed,
                     bool add_special_tokens) {
  EncodeOptions options = ParseAllowed(allowed);
  options.add_special_tokens = add_special_tokens;
  if (PyUnicode_Check(texts.ptr()) || PyBytes_Check(texts.ptr())) {
    throw py::type_error("encode_batch takes a list of texts; use encode for one text");
  }
  // Holds the items alive (an iterator's too) while the GIL is released.
  py::list items(py::reinterpret_borrow<py::object>(texts));
  const size_t n = items.size();
  std::vector<std::string_view> views(n);
  for (size_t i = 0; i < n; ++i) views[i] = TextView(items[i]);
  EncodedTexts results;
  {
    py::gil_scoped_release release;
    int threads = num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(n, 1)));
    if (threads <= 1) {
      results = EncodeTexts(self.tokenizer(), views, options, nullptr);
    } else {
      self.WithPool(threads, [&](WorkerPool* pool) { results = EncodeTexts(self.tokenizer(), views, options, pool); });
    }
  }
  const std::vector<absl::Status>& errors = results.errors;
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i].ok()) {
      Raise(absl::Status(errors[i].code(), fmt::format("text {}: {}", i, std::string(errors[i].message()))));
    }
  }
  py::list out(n);
  for (size_t i = 0; i < n; ++i) out[i] = IdList(results.ids[i]);
  return out;
}

// encode_batch's truncation and padding (tokenizer/sequence_encoding.h) from its keyword arguments: truncation
// None (the tokenizer.json's, or max_length's), True (the file's or max_length; an error without either), False;
// padding None (the file's; "longest" for arrays), "longest", "max_length" (Fixed max_length), an int (Fixed), False.
SequenceLengths ParseLengths(const Tokenizer& tokenizer, py::handle truncation, std::optional<size_t> max_length,
                             size_t stride, const std::string& truncation_side, const std::string& truncation_strategy,
                             py::handle padding, std::optional<size_t> pad_to_multiple_of, bool arrays) {
  SequenceLengths lengths = SequenceLengths::Of(tokenizer);
  const bool truncate_off = !truncation.is_none() && !truncation.cast<bool>();
  if (truncate_off) {
    lengths.truncation.reset();
  } else if (max_length) {
    if (!lengths.truncation) lengths.truncation = TruncationParams{};
    lengths.truncation->max_length = *max_length;
  } else if (!truncation.is_none() && !lengths.truncation) {
    throw py::value_error("truncation=True needs max_length= (this tokenizer.json has no \"truncation\")");
  }
  if (lengths.truncation) {
    if (stride > 0) lengths.truncation->stride = stride;
    if (truncation_side == "left") lengths.truncation->direction = TruncationSide::kLeft;
    if (truncation_side == "right") lengths.truncation->direction = TruncationSide::kRight;
    if (truncation_strategy == "longest_first") lengths.truncation->strategy = TruncationStrategy::kLongestFirst;
    if (truncation_strategy == "only_first") lengths.truncation->strategy = TruncationStrategy::kOnlyFirst;
    if (truncation_strategy == "only_second") lengths.truncation->strategy = TruncationStrategy::kOnlySecond;
  }
  if (!truncation_side.empty() && truncation_side != "left" && truncation_side != "right") {
    throw py::value_error("truncation_side must be \"left\" or \"right\"");
  }
  if (padding.is_none()) {
    if (arrays && !lengths.padding) lengths.padding = PaddingParams{};
  } else if (PyBool_Check(padding.ptr())) {
    if (padding.cast<bool>()) {
      if (!lengths.padding) lengths.padding = PaddingParams{};
    } else {
      if (arrays) throw py::value_error("return_tensors=\"np\" needs padding (rows of one length)");
      lengths.padding.reset();
    }
  } else if (PyUnicode_Check(padding.ptr())) {
    const std::string how = padding.cast<std::string>();
    if (!lengths.padding) lengths.padding = PaddingParams{};
    if (how == "longest") {
      lengths.padding->fixed_length.reset();
    } else if (how == "max_length") {
      if (!lengths.truncation) throw py::value_error("padding=\"max_length\" needs max_length= or truncation");
      lengths.padding->fixed_length = lengths.truncation->max_length;
    } else {
      throw py::value_error("padding must be None, True, False, \"longest\", \"max_length\" or a length");
    }
  } else {
    if (!lengths.padding) lengths.padding = PaddingParams{};
    lengths.padding->fixed_length = padding.cast<size_t>();
  }
  if (pad_to_multiple_of) {
    if (!lengths.padding) throw py::value_error("pad_to_multiple_of needs padding");
    lengths.padding->pad_to_multiple_of = *pad_to_multiple_of;
  }
  return lengths;
}

// A [rows, length] array of one field of each encoding (all padded to one length).
template <typename T, typename Field>
py::array_t<T> Column(const std::vector<EncodedTokens>& batch, size_t length, Field field) {
  py::array_t<T> out({static_cast<py::ssize_t>(batch.size()), static_cast<py::ssize_t>(length)});
  auto view = out.template mutable_unchecked<2>();
  for (size_t i = 0; i < batch.size(); ++i) {
    for (size_t j = 0; j < length; ++j) view(i, j) = static_cast<T>(field(batch[i], j));
  }
  return out;
}

// encode_batch with truncation or padding (tokenizer/sequence_encoding.h): lists of ids, or with
// return_tensors="np" a dict of [batch, length] int64 arrays: input_ids, attention_mask, token_type_ids,
// special_tokens_mask, word_ids (-1: no word).
py::object EncodeBatchSized(const TokenizerObject& self, py::handle texts, py::handle pairs,
                            const EncodeOptions& options, const SequenceLengths& lengths, bool arrays) {
  if (PyUnicode_Check(texts.ptr()) || PyBytes_Check(texts.ptr())) {
    throw py::type_error("encode_batch takes a list of texts; use encode for one text");
  }
  py::list items(py::reinterpret_borrow<py::object>(texts));
  py::list second = pairs.is_none() ? py::list() : py::list(py::reinterpret_borrow<py::object>(pairs));
  if (!pairs.is_none() && second.size() != items.size()) {
    throw py::value_error(fmt::format("pairs= holds {} texts for {} texts", second.size(), items.size()));
  }
  std::vector<std::string_view> a(items.size()), b(second.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = TextView(items[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = TextView(second[i]);
  absl::StatusOr<std::vector<EncodedTokens>> encoded;
  {
    py::gil_scoped_release release;
    encoded = EncodeBatch(self.tokenizer(), a, b, options, lengths);
  }
  std::vector<EncodedTokens> batch = Check(std::move(encoded));
  if (!arrays) {
    py::list out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) out[i] = IdList(batch[i].ids);
    return out;
  }
  const size_t length = batch.empty() ? 0 : batch[0].size();
  py::dict out;
  out["input_ids"] = Column<int64_t>(batch, length, [](const EncodedTokens& e, size_t j) { return e.ids[j]; });
  out["attention_mask"] =
      Column<int64_t>(batch, length, [](const EncodedTokens& e, size_t j) { return e.attention_mask[j]; });
  out["token_type_ids"] = Column<int64_t>(batch, length, [](const EncodedTokens& e, size_t j) { return e.type_ids[j]; });
  out["special_tokens_mask"] =
      Column<int64_t>(batch, length, [](const EncodedTokens& e, size_t j) { return e.special_tokens_mask[j]; });
  out["word_ids"] = Column<int64_t>(batch, length, [](const EncodedTokens& e, size_t j) { return e.word_ids[j]; });
  return out;
}

// Byte offsets into the UTF-8 of a str become code point offsets: a token's begin is the character holding its
// first byte, its end the first character after its last byte.
py::tuple EncodeWithOffsets(const TokenizerObject& self, py::handle text, py::handle allowed) {
  const EncodeOptions options = ParseAllowed(allowed);
  bool is_str = false;
  const std::string_view view = TextView(text, &is_str);
  absl::StatusOr<Encoding> encoding;
  {
    py::gil_scoped_release release;
    encoding = self.tokenizer().Encode(view, options);
  }
  Encoding result = Check(std::move(encoding));
  std::vector<size_t> chars_before;  // [bytes + 1] characters starting before each byte position
  if (is_str) {
    chars_before.resize(view.size() + 1);
    size_t count = 0;
    for (size_t b = 0; b < view.size(); ++b) {
      chars_before[b] = count;
      if ((static_cast<unsigned char>(view[b]) & 0xC0) != 0x80) ++count;
    }
    chars_before[view.size()] = count;
  }
  py::list offsets(result.offsets.size());
  for (size_t i = 0; i < result.offsets.size(); ++i) {
    size_t begin = result.offsets[i].begin, end = result.offsets[i].end;
    if (is_str) {
      begin = begin < view.size() ? chars_before[begin + 1] - 1 : chars_before[view.size()];
      end = chars_before[end];
    }
    offsets[i] = py::make_tuple(begin, end);
  }
  return py::make_tuple(IdList(result.ids), offsets);
}

std::string DecodeBytes(const TokenizerObject& self, const std::vector<TokenId>& ids, bool skip_special_tokens) {
  return Check(self.tokenizer().Decode(ids, DecodeOptions{.skip_special_tokens = skip_special_tokens}));
}

py::str DecodeText(const TokenizerObject& self, const std::vector<TokenId>& ids, bool skip_special_tokens) {
  const std::string bytes = DecodeBytes(self, ids, skip_special_tokens);
  PyObject* text = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace");
  if (text == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

void Save(const TokenizerObject& self, const std::string& path) { Check(SaveTokvecModel(self.tokenizer(), path)); }

void SaveHf(const TokenizerObject& self, const std::string& path) {
  Check(WriteFileAtomically(path, Check(WriteHfTokenizerJson(self.tokenizer()))));
}

void SaveTiktoken(const TokenizerObject& self, const std::string& path) {
  Check(WriteFileAtomically(path, Check(WriteTiktoken(self.tokenizer()))));
}

}  // namespace

void TokenizerObject::WithPool(int threads, const std::function<void(WorkerPool*)>& fn) {
  // The kept pool serves one batch at a time; a batch that finds it busy (another Python thread's) or of
  // another size runs on a pool of its own.
  std::unique_lock<std::mutex> lock(pool_mutex_, std::try_to_lock);
  if (lock.owns_lock()) {
    if (pool_ == nullptr || pool_->threads() != threads) pool_ = std::make_unique<WorkerPool>(threads);
    fn(pool_.get());
    return;
  }
  WorkerPool pool(threads);
  fn(&pool);
}

std::optional<TokenId> TokenizerObject::TokenToId(const std::string& spelling) const {
  std::call_once(spellings_once_, [this] {
    for (size_t id = 0; id < tokenizer_->vocab_size(); ++id) {
      spellings_.emplace(tokenizer_->TokenSpelling(static_cast<TokenId>(id)), static_cast<TokenId>(id));
    }
  });
  auto it = spellings_.find(spelling);
  if (it == spellings_.end()) return std::nullopt;
  return it->second;
}

void RegisterTokenizer(py::module_& m) {
  py::class_<TokenizerObject>(m, "Tokenizer", "A BPE tokenizer; immutable, safe to share between threads.")
      .def_static(
          "load",
          [](const std::string& path, std::optional<std::string> pattern) {
            Tokenizer::LoadOptions options;
            if (pattern.has_value()) options.pattern = *pattern;
            absl::StatusOr<std::unique_ptr<Tokenizer>> loaded = absl::UnknownError("not loaded");
            {
              py::gil_scoped_release release;
              loaded = Tokenizer::Load(path, options);
            }
            return std::make_unique<TokenizerObject>(Check(std::move(loaded)));
          },
          py::arg("path"), py::arg("pattern") = py::none(),
          "Loads a tokvec model, a .tiktoken file (pattern: split preset or regex for an unknown name), GPT-2's "
          "vocab.json (+ merges.txt beside it), a Hugging Face tokenizer.json, or a directory holding one.")
      .def("encode", &Encode, py::arg("text"), py::arg("allowed_special") = py::tuple(),
           py::arg("add_special_tokens") = false,
           "Ids of a str or bytes. Special-token text is ordinary unless allowed_special is \"all\" or holds it. "
           "add_special_tokens: the tokenizer.json post-processor's tokens around the text ([CLS] ... [SEP]), as "
           "Hugging Face's add_special_tokens=True.")
      .def("encode_ordinary",
           [](const TokenizerObject& self, py::handle text) { return Encode(self, text, py::none(), false); },
           py::arg("text"), "encode without special tokens (tiktoken's name).")
      .def("encode_pair", &EncodePairIds, py::arg("a"), py::arg("b"), py::arg("allowed_special") = py::tuple(),
           py::arg("add_special_tokens") = false,
           "(ids, type_ids) of a sentence pair as Hugging Face's encode(a, b): the post-processor's pair template "
           "([CLS] a [SEP] b [SEP] with add_special_tokens), type ids 0 for a and 1 for b.")
      .def("encode_batch",
           [](TokenizerObject& self, py::handle texts, int num_threads, py::handle allowed, bool add_special_tokens,
              py::handle pairs, py::handle truncation, std::optional<size_t> max_length, size_t stride,
              const std::string& truncation_side, const std::string& truncation_strategy, py::handle padding,
              std::optional<size_t> pad_to_multiple_of, py::handle return_tensors) -> py::object {
             const bool arrays = !return_tensors.is_none();
             if (arrays && (!PyUnicode_Check(return_tensors.ptr()) || return_tensors.cast<std::string>() != "np")) {
               throw py::value_error("return_tensors must be \"np\" (NumPy arrays) or None");
             }
             const bool sized = arrays || !pairs.is_none() || !truncation.is_none() || max_length || stride > 0 ||
                                !truncation_side.empty() || !truncation_strategy.empty() || !padding.is_none() ||
                                pad_to_multiple_of;
             if (!sized) return EncodeBatch(self, texts, num_threads, allowed, add_special_tokens);
             EncodeOptions options = ParseAllowed(allowed);
             options.add_special_tokens = add_special_tokens;
             const SequenceLengths lengths =
                 ParseLengths(self.tokenizer(), truncation, max_length, stride, truncation_side, truncation_strategy,
                              padding, pad_to_multiple_of, arrays);
             return EncodeBatchSized(self, texts, pairs, options, lengths, arrays);
           },
           py::arg("texts"), py::arg("num_threads") = 0, py::arg("allowed_special") = py::tuple(),
           py::arg("add_special_tokens") = false, py::kw_only(), py::arg("pairs") = py::none(),
           py::arg("truncation") = py::none(), py::arg("max_length") = py::none(), py::arg("stride") = 0,
           py::arg("truncation_side") = "", py::arg("truncation_strategy") = "", py::arg("padding") = py::none(),
           py::arg("pad_to_multiple_of") = py::none(), py::arg("return_tensors") = py::none(),
           "Ids of each text, encoded on num_threads C++ threads (0: one per core) with the GIL released; the "
           "same as encoding them one by one. With any keyword argument, as Hugging Face's encode_batch: pairs= "
           "(second texts), truncation (None: the tokenizer.json's; True/False), max_length, stride, "
           "truncation_side, truncation_strategy, padding (None: the file's; \"longest\", \"max_length\", N, "
           "False), pad_to_multiple_of; return_tensors=\"np\" gives a dict of [batch, length] int64 arrays "
           "(input_ids, attention_mask, token_type_ids, special_tokens_mask, word_ids with -1 for none).")
      .def("encode_ordinary_batch",
           [](TokenizerObject& self, py::handle texts, int num_threads) {
             return EncodeBatch(self, texts, num_threads, py::none(), false);
           },
           py::arg("texts"), py::arg("num_threads") = 0, "encode_batch without special tokens.")
      .def("encode_with_offsets", &EncodeWithOffsets, py::arg("text"), py::arg("allowed_special") = py::tuple(),
           "(ids, [(begin, end)]): character offsets into a str, byte offsets into bytes.")
      .def("decode", &DecodeText, py::arg("ids"), py::arg("skip_special_tokens") = false,
           "Text of ids; bytes that are not UTF-8 (part of a character) become U+FFFD, as in tiktoken. "
           "skip_special_tokens leaves special tokens out, as Hugging Face's.")
      .def("decode_bytes", [](const TokenizerObject& self, const std::vector<TokenId>& ids, bool skip) {
             return py::bytes(DecodeBytes(self, ids, skip));
           }, py::arg("ids"), py::arg("skip_special_tokens") = false, "The exact bytes of ids.")
      .def("decode_batch",
           [](const TokenizerObject& self, const std::vector<std::vector<TokenId>>& batch, bool skip) {
             py::list out(batch.size());
             for (size_t i = 0; i < batch.size(); ++i) out[i] = DecodeText(self, batch[i], skip);
             return out;
           },
           py::arg("batch"), py::arg("skip_special_tokens") = false, "decode of each id list.")
      .def("token_to_id", &TokenizerObject::TokenToId, py::arg("token"),
           "The id of a token spelled as id_to_token shows it (GPT-2's byte spelling, e.g. 'Ġworld'), or None.")
      .def("id_to_token",
           [](const TokenizerObject& self, int64_t id) -> std::optional<std::string> {
             if (id < 0 || static_cast<size_t>(id) >= self.tokenizer().vocab_size()) return std::nullopt;
             return self.tokenizer().TokenSpelling(static_cast<TokenId>(id));
           },
           py::arg("id"), "A token's spelling, or None outside the vocabulary.")
      .def_property_readonly("vocab_size", [](const TokenizerObject& self) { return self.tokenizer().vocab_size(); })
      .def_property_readonly("n_vocab", [](const TokenizerObject& self) { return self.tokenizer().vocab_size(); })
      .def_property_readonly("type",
                             [](const TokenizerObject& self) {
                               return std::string(ModelTypeName(self.tokenizer().type()));
                             })
      .def_property_readonly("special_tokens",
                             [](const TokenizerObject& self) {
                               py::dict out;
                               for (const SpecialToken& s : self.tokenizer().special_tokens()) {
                                 out[py::str(s.text)] = s.id;
                               }
                               return out;
                             })
      .def_property_readonly("special_tokens_set",
                             [](const TokenizerObject& self) {
                               py::set out;
                               for (const SpecialToken& s : self.tokenizer().special_tokens()) out.add(py::str(s.text));
                               return out;
                             })
      .def_property_readonly("eot_token",
                             [](const TokenizerObject& self) -> std::optional<TokenId> {
                               return self.tokenizer().FindSpecial("<|endoftext|>");
                             })
      .def("save", &Save, py::arg("path"), "Writes tokvec's model file (temporary file + rename).")
      .def("save_hf", &SaveHf, py::arg("path"), "Writes a Hugging Face tokenizer.json.")
      .def("save_tiktoken", &SaveTiktoken, py::arg("path"), "Writes tiktoken ranks (byte models).")
      .def("__repr__", [](const TokenizerObject& self) {
        return fmt::format("<tokvec.Tokenizer {} vocab_size={} from '{}'>",
                           ModelTypeName(self.tokenizer().type()),
                           self.tokenizer().vocab_size(), self.tokenizer().spec().source);
      });
}

}  // namespace tokvec::python
