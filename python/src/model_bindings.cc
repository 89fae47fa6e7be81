// tokvec.Model: a model directory (pipeline/model_directory.h) with embed (pooled vectors [N, D] of many texts,
// pipeline/embed_texts.h, the same bits as `tokvec embed --lines`), token_vectors ([T, D]) and attention
// ([T, T] of one layer and head). Arrays are float32 NumPy arrays over memory the module allocated and hands to
// NumPy (a capsule frees it with the array): no copy into NumPy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "kernels/low_precision_linear.h"
#include "pipeline/cross_encoder.h"
#include "pipeline/embed_texts.h"
#include "pipeline/model_directory.h"
#include "pipeline/sentence_transformers_config.h"
#include "python/src/bindings.h"
#include "retrieval/quantize.h"

namespace tokvec::python {
namespace {

// A NumPy array [rows, cols] that owns `matrix`.
py::array_t<float> ToArray(Matrix matrix) {
  auto* owned = new Matrix(std::move(matrix));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<Matrix*>(p); });
  const py::ssize_t rows = owned->rows(), cols = owned->cols();
  return py::array_t<float>({rows, cols}, {cols * static_cast<py::ssize_t>(sizeof(float)),
                                           static_cast<py::ssize_t>(sizeof(float))},
                            owned->data(), free_when_done);
}

int Threads(int num_threads) {
  return num_threads > 0 ? num_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

class ModelObject {
 public:
  explicit ModelObject(ModelDirectory dir) : dir_(std::move(dir)) {}
  const ModelDirectory& dir() const { return dir_; }
  // The classification head (models/sequence_classifier.h), read on first use; an error for a model without one.
  const SequenceClassifier& head() const {
    std::lock_guard<std::mutex> lock(head_mutex_);
    if (!head_) head_ = Check(LoadSequenceClassifier(dir_));
    return *head_;
  }

 private:
  ModelDirectory dir_;
  mutable std::mutex head_mutex_;
  mutable std::optional<SequenceClassifier> head_;
};

// The logits [N] x [L] of pairs (or single texts when `b` is empty), the GIL released.
std::vector<std::vector<float>> PairLogits(const ModelObject& self, const std::vector<std::string>& a,
                                           const std::vector<std::string>& b, int num_threads) {
  const SequenceClassifier& head = self.head();
  const std::vector<std::string_view> av(a.begin(), a.end()), bv(b.begin(), b.end());
  absl::StatusOr<std::vector<std::vector<float>>> logits = absl::UnknownError("not run");
  {
    py::gil_scoped_release release;
    logits = ClassifierLogits(self.dir(), head, av, bv, Threads(num_threads));
  }
  return Check(std::move(logits));
}

// Model.rerank: sentence-transformers' CrossEncoder.rank shape, [{"corpus_id", "score"[, "text"]}] best first.
py::list Rerank(const ModelObject& self, const std::string& query, const std::vector<std::string>& documents,
                std::optional<size_t> top_k, bool return_documents, bool raw_scores, int num_threads) {
  const std::vector<std::string> queries(documents.size(), query);
  const std::vector<RankedDocument> ranked =
      RankDocuments(PairLogits(self, queries, documents, num_threads), raw_scores, top_k.value_or(0));
  py::list out;
  for (const RankedDocument& doc : ranked) {
    py::dict item;
    item["corpus_id"] = doc.index;
    item["score"] = doc.score;
    if (return_documents) item["text"] = documents[doc.index];
    out.append(item);
  }
  return out;
}

// Model.predict: float32 [N] (one label) or [N, L] scores of pairs or texts, as CrossEncoder.predict.
py::array_t<float> Predict(const ModelObject& self, py::handle inputs, bool raw_scores, int num_threads) {
  std::vector<std::string> a, b;
  bool pairs = false, texts = false;
  for (py::handle item : inputs) {
    if (PyUnicode_Check(item.ptr())) {
      texts = true;
      a.push_back(item.cast<std::string>());
    } else {
      auto pair = item.cast<std::vector<std::string>>();
      if (pair.size() != 2) throw py::value_error("predict takes texts or (text, text) pairs");
      pairs = true;
      a.push_back(std::move(pair[0]));
      b.push_back(std::move(pair[1]));
    }
  }
  if (pairs && texts) throw py::value_error("predict takes texts or (text, text) pairs, not both in one call");
  const std::vector<std::vector<float>> logits = PairLogits(self, a, b, num_threads);
  const size_t labels = self.head().labels().size();
  Matrix scores(static_cast<int64_t>(logits.size()), static_cast<int64_t>(labels));
  for (size_t i = 0; i < logits.size(); ++i) {
    const std::vector<float> row = ScoresOf(logits[i], raw_scores);
    std::copy(row.begin(), row.end(), scores.row(static_cast<int64_t>(i)));
  }
  py::array_t<float> out = ToArray(std::move(scores));
  if (labels == 1) return out.attr("reshape")(py::make_tuple(static_cast<py::ssize_t>(logits.size())));
  return out;
}

py::array Embed(const ModelObject& self, py::handle texts, const std::string& pooling, bool normalize,
                         size_t batch_size, int num_threads, int64_t window, int64_t stride,
                         std::optional<int64_t> truncate_dim, std::optional<std::string> prompt,
                         std::optional<std::string> prompt_name, bool default_prompt, py::handle truncate,
                         std::optional<int64_t> max_length, const std::string& precision) {
  const Precision quantize_to = Check(ParsePrecision(precision));
  py::list items;
  if (PyUnicode_Check(texts.ptr()) || PyBytes_Check(texts.ptr())) {
    items.append(texts);
  } else {
    items = py::list(py::reinterpret_borrow<py::object>(texts));
  }
  std::vector<std::string_view> views(items.size());
  for (size_t i = 0; i < views.size(); ++i) views[i] = TextView(items[i]);
  const PoolingChoice choice = Check(ChoosePooling(self.dir(), pooling, normalize));
  if (choice.pooling == Pooling::kNone) {
    throw py::value_error(fmt::format(
        "embed gives one vector per text and needs a pooling: pass pooling=\"mean\", \"cls\", \"last\" or \"max\" "
        "('{}' has no sentence-transformers pooling for \"auto\"); token_vectors gives every token's vector",
        self.dir().path()));
  }
  if (batch_size == 0) throw py::value_error("batch_size must be at least 1");
  if (stride > 0 && window == 0) throw py::value_error("stride needs window");
  if (prompt && prompt_name) throw py::value_error("give prompt or prompt_name, not both");
  const std::string prompt_text =
      Check(ChoosePrompt(self.dir().sentence_config(), prompt, prompt_name.value_or(""), default_prompt));
  // truncate: None/False (a too-long text is an error), True or "right", "left"; max_length implies "right".
  Truncation truncation = Truncation::kNone;
  if (PyUnicode_Check(truncate.ptr())) {
    truncation = Check(ParseTruncation(py::cast<std::string>(truncate)));
  } else if (PyBool_Check(truncate.ptr())) {
    truncation = truncate.ptr() == Py_True ? Truncation::kRight : Truncation::kNone;
  } else if (!truncate.is_none()) {
    throw py::type_error("truncate must be None, a bool, \"right\" or \"left\"");
  }
  if (max_length) {
    if (*max_length < 1) throw py::value_error("max_length must be at least 1");
    if (truncation == Truncation::kNone) truncation = Truncation::kRight;
  }
  if (truncation != Truncation::kNone && window > 0) throw py::value_error("truncate and window exclude each other");
  EmbedTextsOptions options{.pooling = choice.pooling,
                            .normalize = choice.normalize,
                            .dense = choice.dense,
                            .threads = Threads(num_threads),
                            .batch_sequences = batch_size,
                            .window = window,
                            .stride = window > 0 && stride == 0 ? std::max<int64_t>(1, window / 2) : stride,
                            .prompt = prompt_text,
                            .pool_skip = Check(PromptPoolingSkip(self.dir(), choice, pooling == "auto", prompt_text)),
                            .truncate = truncation,
                            .max_length = max_length.value_or(0),
                            .item_name = "text"};
  Matrix all;  // [N, D]
  absl::Status status;
  {
    py::gil_scoped_release release;
    absl::StatusOr<std::vector<TextVectors>> results = EmbedTexts(self.dir(), views, options);
    status = results.status();
    if (results.ok()) all = StackVectors(*results, OutputWidth(self.dir(), choice));
  }
  Check(status);
  if (truncate_dim) all = Check(TruncateDimensions(all.view(), *truncate_dim));  // Matryoshka, renormalised
  if (quantize_to != Precision::kFloat32) {  // sentence-transformers' encode(precision=...): ranges from these rows
    return CodesToNumpy(Check(Quantize(all.view(), quantize_to, nullptr)));
  }
  return ToArray(std::move(all));
}

py::tuple TokenVectors(const ModelObject& self, py::handle text, int num_threads) {
  const std::string_view view = TextView(text);
  absl::StatusOr<EmbeddedText> embedded = absl::UnknownError("not embedded");
  {
    py::gil_scoped_release release;
    embedded = self.dir().Embed(view, {.threads = Threads(num_threads)});
  }
  EmbeddedText result = Check(std::move(embedded));
  return py::make_tuple(py::cast(result.tokens), ToArray(std::move(result.hidden)));
}

py::array_t<float> Attention(const ModelObject& self, py::handle text, int64_t layer, int64_t head) {
  const ModelConfig& config = self.dir().model().config();
  if (layer < 0 || layer >= config.n_layers) {
    throw py::value_error(fmt::format("layer {} does not exist; the model has layers 0..{}", layer,
                                      config.n_layers - 1));
  }
  if (head < 0 || head >= config.n_heads) {
    throw py::value_error(fmt::format("head {} does not exist; the model has heads 0..{}", head, config.n_heads - 1));
  }
  const std::string_view view = TextView(text);
  absl::StatusOr<EmbeddedText> embedded = absl::UnknownError("not embedded");
  {
    py::gil_scoped_release release;
    embedded = self.dir().Embed(view, {.keep_weights_of = {layer}});
  }
  EmbeddedText result = Check(std::move(embedded));
  if (result.ids.empty()) throw py::value_error("the text has no tokens: nothing attends to anything");
  return ToArray(std::move(result.attention_weights.at(layer)[static_cast<size_t>(head)]));  // [T, T]
}

}  // namespace

void RegisterModel(py::module_& m) {
  py::class_<ModelObject>(m, "Model", "A model directory: tokenizer + config.json + model.safetensors.")
      .def_static(
          "load",
          [](const std::string& path, const std::string& dtype_name) {
            const LinearDtype dtype = Check(ParseLinearDtype(dtype_name));
            Check(CheckCpuSupports(dtype));  // before the (slow) load
            absl::StatusOr<ModelDirectory> dir = absl::UnknownError("not loaded");
            {
              py::gil_scoped_release release;
              dir = ModelDirectory::Load(path, dtype);
            }
            return std::make_unique<ModelObject>(Check(std::move(dir)));
          },
          py::arg("path"), py::arg("dtype") = "f32",
          "Loads a model directory (tokenizer, config.json, model.safetensors[, modules.json]); dtype f32 | bf16 "
          "(AVX-512 BF16) | int8 (AVX-512 VNNI) is the big linear layers' precision, as `tokvec embed --dtype` "
          "(ValueError on a CPU without the instructions).")
      .def_property_readonly(
          "dtype",
          [](const ModelObject& self) { return std::string(LinearDtypeName(self.dir().model().linear_dtype())); },
          "The big linear layers' precision: f32, bf16 or int8 (Model.load's dtype).")
      .def("embed", &Embed, py::arg("texts"), py::arg("pooling") = "auto", py::arg("normalize") = false,
           py::arg("batch_size") = 32, py::arg("num_threads") = 0, py::arg("window") = 0, py::arg("stride") = 0,
           py::arg("truncate_dim") = py::none(), py::arg("prompt") = py::none(), py::arg("prompt_name") = py::none(),
           py::arg("default_prompt") = true, py::arg("truncate") = py::none(), py::arg("max_length") = py::none(),
           py::arg("precision") = "float32",
           "float32 [N, D]: one pooled vector per text (pooling: auto = the directory's sentence-transformers "
           "pooling, or mean, cls, last, max); the bits of `tokvec embed --lines --format npy`. Texts share "
           "forward passes of at most batch_size texts and 2048 tokens (GPT-2 and encoders: any lengths; decoders: "
           "equal token counts); window/stride embed long texts; truncate_dim keeps the first K values of each vector, "
           "rescaled to unit length (Matryoshka; `tokvec embed --dimensions`); prompt / prompt_name: text put before "
           "each one, as sentence-transformers' encode (the model's default_prompt_name unless default_prompt=False); "
           "truncate=True|\"right\"|\"left\" cuts long texts to max_length or the model's max_seq_length; precision "
           "int8|uint8|binary|ubinary returns sentence-transformers' codes (quantize_embeddings).")
      .def("token_vectors", &TokenVectors, py::arg("text"), py::arg("num_threads") = 1,
           "(tokens, float32 [T, D]): every token's contextual vector.")
      .def("attention", &Attention, py::arg("text"), py::arg("layer"), py::arg("head"),
           "float32 [T, T]: one head's attention weights (rows: queries, each sums to 1).")
      .def("tokenize",
           [](const ModelObject& self, py::handle text) { return Check(self.dir().Tokenize(TextView(text))); },
           py::arg("text"), "Ids as the model takes them (RoBERTa: <s> ... </s>).")
      .def("rerank", &Rerank, py::arg("query"), py::arg("documents"), py::arg("top_k") = py::none(),
           py::arg("return_documents") = false, py::arg("raw_scores") = false, py::arg("num_threads") = 0,
           "Cross-encoders: the documents by their score for the query, best first, as sentence-transformers' "
           "CrossEncoder.rank: [{'corpus_id': i, 'score': s[, 'text': ...]}]; scores are the sigmoid of the "
           "logit (raw_scores: the logit). `tokvec rerank`.")
      .def("predict", &Predict, py::arg("inputs"), py::arg("raw_scores") = false, py::arg("num_threads") = 0,
           "Sequence classifiers and cross-encoders: float32 scores of (text, text) pairs or of texts, as "
           "CrossEncoder.predict: [N] for a one-label model (sigmoid), [N, labels] otherwise (softmax); raw_scores: "
           "the logits. Label names: Model.labels.")
      .def_property_readonly("labels", [](const ModelObject& self) { return self.head().labels(); },
                             "The classification head's label names (config.json's id2label).")
      .def_property_readonly("d_model", [](const ModelObject& self) { return self.dir().model().config().d_model; })
      .def_property_readonly("n_layers", [](const ModelObject& self) { return self.dir().model().config().n_layers; })
      .def_property_readonly("n_heads", [](const ModelObject& self) { return self.dir().model().config().n_heads; })
      .def_property_readonly("max_len", [](const ModelObject& self) { return self.dir().model().config().max_len; })
      .def("__repr__", [](const ModelObject& self) {
        const ModelConfig& c = self.dir().model().config();
        return fmt::format("<tokvec.Model '{}' d_model={} n_layers={} n_heads={}>", self.dir().path(), c.d_model,
                           c.n_layers, c.n_heads);
      });
}

}  // namespace tokvec::python
