// encode_and_embed TOKENIZER MODEL_DIR TEXT: prints TEXT's ids, then its mean-pooled unit vector (tab-separated).
#include <cstdio>
#include <string>

#include "fmt/format.h"
#include "pipeline/embed_texts.h"
#include "tokenizer/tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: encode_and_embed TOKENIZER MODEL_DIR TEXT\n"), 2;
  auto tokenizer = tokvec::Tokenizer::Load(argv[1]);
  if (!tokenizer.ok()) return std::fprintf(stderr, "error: %s\n", tokenizer.status().ToString().c_str()), 1;
  auto encoding = (*tokenizer)->Encode(argv[3]);
  if (!encoding.ok()) return std::fprintf(stderr, "error: %s\n", encoding.status().ToString().c_str()), 1;
  fmt::print("{}\n", fmt::join(encoding->ids, " "));

  auto model = tokvec::ModelDirectory::Load(argv[2]);
  if (!model.ok()) return std::fprintf(stderr, "error: %s\n", model.status().ToString().c_str()), 1;
  auto vectors = tokvec::EmbedTexts(*model, {argv[3]}, {.pooling = tokvec::Pooling::kMean, .normalize = true});
  if (!vectors.ok()) return std::fprintf(stderr, "error: %s\n", vectors.status().ToString().c_str()), 1;
  const tokvec::Matrix& v = (*vectors)[0].vectors;  // [1, D]
  fmt::print("{}\n", fmt::join(v.data(), v.data() + v.cols(), "\t"));
  return 0;
}
