// tokvec.train / tokvec.train_from_iterator (the Python wrappers in tokvec/__init__.py check and document the
// arguments): a training run of tokenizer/trainers/tokenizer_trainer.h, as `tokvec train` does it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fmt/format.h"
#include "python/src/bindings.h"
#include "python/src/tokenizer_object.h"
#include "tokenizer/trainers/tokenizer_trainer.h"

namespace tokvec::python {
namespace {

TokenizerTrainerOptions MakeOptions(const std::string& type, std::optional<size_t> vocab_size,
                                    std::optional<size_t> merges, std::optional<std::string> pattern,
                                    std::vector<std::string> special_tokens, uint64_t min_frequency, size_t threads,
                                    const std::string& normalize, bool split_lines) {
  TokenizerTrainerOptions options;
  if (type == "word") {
    options.type = ModelType::kWord;
  } else if (type == "byte") {
    options.type = ModelType::kByte;
  } else {
    throw py::value_error(fmt::format("type must be \"word\" or \"byte\", not \"{}\"", type));
  }
  options.pattern = pattern.value_or("");
  options.normalize = normalize;
  options.vocab_size = vocab_size;
  options.merges = merges;
  options.special_tokens = std::move(special_tokens);
  options.min_frequency = min_frequency;
  options.threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  options.split_lines = split_lines;
  return options;
}

std::unique_ptr<TokenizerObject> Finish(TokenizerTrainer trainer) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer = absl::UnknownError("not trained");
  {
    py::gil_scoped_release release;
    tokenizer = std::move(trainer).Train();
  }
  return std::make_unique<TokenizerObject>(Check(std::move(tokenizer)));
}

}  // namespace

void RegisterTraining(py::module_& m) {
  m.def(
      "_train",
      [](const std::vector<std::string>& files, const std::string& type, std::optional<size_t> vocab_size,
         std::optional<size_t> merges, std::optional<std::string> pattern, std::vector<std::string> special_tokens,
         uint64_t min_frequency, size_t threads, const std::string& normalize, bool split_lines) {
        TokenizerTrainer trainer = Check(TokenizerTrainer::Create(MakeOptions(
            type, vocab_size, merges, pattern, std::move(special_tokens), min_frequency, threads, normalize,
            split_lines)));
        absl::Status counted;
        {
          py::gil_scoped_release release;
          counted = trainer.CountFiles(files);
        }
        Check(counted);
        return Finish(std::move(trainer));
      },
      py::arg("files"), py::arg("type"), py::arg("vocab_size"), py::arg("merges"), py::arg("pattern"),
      py::arg("special_tokens"), py::arg("min_frequency"), py::arg("threads"), py::arg("normalize"),
      py::arg("split_lines"));
  m.def(
      "_train_from_iterator",
      [](py::iterable texts, const std::string& type, std::optional<size_t> vocab_size,
         std::optional<size_t> merges, std::optional<std::string> pattern, std::vector<std::string> special_tokens,
         uint64_t min_frequency, size_t threads, const std::string& normalize, bool split_lines) {
        TokenizerTrainer trainer = Check(TokenizerTrainer::Create(MakeOptions(
            type, vocab_size, merges, pattern, std::move(special_tokens), min_frequency, threads, normalize,
            split_lines)));
        size_t index = 0;
        for (py::handle text : texts) {
          Check(trainer.CountText(TextView(text), fmt::format("item {}", index)));
          ++index;
        }
        return Finish(std::move(trainer));
      },
      py::arg("texts"), py::arg("type"), py::arg("vocab_size"), py::arg("merges"), py::arg("pattern"),
      py::arg("special_tokens"), py::arg("min_frequency"), py::arg("threads"), py::arg("normalize"),
      py::arg("split_lines"));
}

}  // namespace tokvec::python
