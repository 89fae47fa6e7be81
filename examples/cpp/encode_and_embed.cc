// encode_and_embed TOKENIZER MODEL_DIR TEXT: prints TEXT's ids (as `tokvec encode`), then its mean-pooled unit
// vector, tab-separated (as `tokvec embed --lines --pooling mean --normalize --format tsv`).
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <tokvec/embed.h>
#include <tokvec/tokenizer.h>

namespace tv = tokvec::api;

// One line of numbers, each written as the shortest text that reads back to the same value.
template <typename T>
void PrintLine(std::span<const T> values, const char* separator) {
  for (size_t i = 0; i < values.size(); ++i) {
    char text[32];
    std::to_chars_result end = std::to_chars(text, text + sizeof(text), values[i]);
    std::printf("%s%.*s", i > 0 ? separator : "", static_cast<int>(end.ptr - text), text);
  }
  std::printf("\n");
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "error: %s\n", status.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: encode_and_embed TOKENIZER MODEL_DIR TEXT\n"), 2;
  const std::string text = argv[3];

  absl::StatusOr<tv::Tokenizer> tokenizer = tv::Tokenizer::Load(argv[1]);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  absl::StatusOr<tv::Encoding> encoding = tokenizer->Encode(text);
  if (!encoding.ok()) return Fail(encoding.status());
  PrintLine(std::span<const uint32_t>(encoding->ids), " ");

  absl::StatusOr<tv::Model> model = tv::Model::Load(argv[2]);
  if (!model.ok()) return Fail(model.status());
  absl::StatusOr<std::vector<tv::TextVectors>> vectors =
      model->Embed({text}, {.pooling = tv::Pooling::kMean, .normalize = true});
  if (!vectors.ok()) return Fail(vectors.status());
  PrintLine((*vectors)[0].Row(0), "\t");  // [D]
  return 0;
}
