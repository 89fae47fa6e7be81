// ChunkedEncoder (tokenizer/batch/chunked_encoder.h): the chunks' ids, put together in the sink's order, are the
// ids of the whole input for any thread count; lines stay whole and numbered; a failed chunk stops the run after
// the chunks before it; TextSource reads files (mapped), memory, and names a missing file.
#include "tokenizer/batch/chunked_encoder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

std::unique_ptr<Tokenizer> Gpt2Shaped() {
  // A byte-level BPE of the repository (GPT-2 vocab.json + merges.txt: its split pattern and byte alphabet).
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_gpt2_f32/vocab.json");
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return std::move(*tokenizer);
}

// About 1.3 MB: data/corpus.txt repeated, so there are many chunks of 256 KB.
std::string LargeText() {
  absl::StatusOr<std::string> corpus = ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt");
  EXPECT_TRUE(corpus.ok()) << corpus.status();
  std::string text;
  while (text.size() < 1300000) text += *corpus;
  return text;
}

std::string IdsText(const std::vector<TokenId>& ids) {
  std::string out;
  for (TokenId id : ids) out += std::to_string(id) + " ";
  return out;
}

TEST(ChunkedEncoderTest, ChunksInOrderGiveTheIdsOfTheWholeForAnyThreadCount) {
  const std::unique_ptr<Tokenizer> tokenizer = Gpt2Shaped();
  const std::string text = LargeText();
  std::vector<TokenId> whole;
  ASSERT_TRUE(tokenizer->EncodeIds(text, {}, &whole).ok());
  for (int threads : {1, 2, 3}) {
    ChunkedEncoder encoder(*tokenizer, {.threads = threads});
    TextSource source = TextSource::Memory(text);
    std::string joined;
    std::vector<size_t> bases;
    const absl::Status status = encoder.Run(
        source,
        [&](EncodeChunk* chunk, const IdTextCaches& caches) {
          std::vector<TokenId> ids;
          chunk->status = tokenizer->EncodeIds(chunk->text, {}, &ids, chunk->base, caches.shared_pieces,
                                               caches.local_pieces);
          chunk->output = IdsText(ids);
        },
        [&](EncodeChunk& chunk) {
          EXPECT_TRUE(bases.empty() ? chunk.base == 0 : chunk.base > bases.back()) << "chunks out of order";
          bases.push_back(chunk.base);
          joined += chunk.output;
          return absl::OkStatus();
        });
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_GT(bases.size(), 3u) << "threads " << threads;
    EXPECT_EQ(joined, IdsText(whole)) << "threads " << threads;
  }
}

TEST(ChunkedEncoderTest, LinesStayWholeNumberedAndInOrder) {
  const std::unique_ptr<Tokenizer> tokenizer = Gpt2Shaped();
  const std::string text = LargeText();
  ChunkedEncoder encoder(*tokenizer, {.lines = true, .threads = 2});
  TextSource source = TextSource::Memory(text);
  std::string joined;
  uint64_t next_line = 1;
  const absl::Status status = encoder.Run(
      source, [&](EncodeChunk* chunk, const IdTextCaches&) { chunk->output = std::string(chunk->text); },
      [&](EncodeChunk& chunk) {
        EXPECT_EQ(chunk.first_line, next_line);
        EXPECT_TRUE(chunk.output.back() == '\n' || joined.size() + chunk.output.size() == text.size());
        next_line += std::count(chunk.output.begin(), chunk.output.end(), '\n');
        joined += chunk.output;
        return absl::OkStatus();
      });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(joined, text);
}

TEST(ChunkedEncoderTest, AFailedChunkStopsTheRunAfterTheChunksBeforeIt) {
  const std::unique_ptr<Tokenizer> tokenizer = Gpt2Shaped();
  const std::string text = LargeText();
  ChunkedEncoder encoder(*tokenizer, {.lines = true, .threads = 2});
  TextSource source = TextSource::Memory(text);
  const size_t bad_base = text.size() / 2;  // the chunk holding the middle byte fails
  size_t written_end = 0;
  const absl::Status status = encoder.Run(
      source,
      [&](EncodeChunk* chunk, const IdTextCaches&) {
        if (chunk->base <= bad_base && bad_base < chunk->base + chunk->text.size()) {
          chunk->status = absl::InvalidArgumentError("bad chunk");
        }
        chunk->output = std::string(chunk->text);
      },
      [&](EncodeChunk& chunk) {
        EXPECT_LE(chunk.base + chunk.output.size(), bad_base + 1) << "a chunk after the failed one was written";
        written_end = chunk.base + chunk.output.size();
        return absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "bad chunk");
  EXPECT_GT(written_end, 0u);
  // A failing sink stops it too.
  TextSource again = TextSource::Memory(text);
  const absl::Status sink_status = encoder.Run(
      again, [](EncodeChunk* chunk, const IdTextCaches&) { chunk->output = "x"; },
      [](EncodeChunk&) { return absl::DataLossError("disk full"); });
  EXPECT_EQ(sink_status.code(), absl::StatusCode::kDataLoss);
}

TEST(ChunkedEncoderTest, TextSourceMapsFilesAndNamesMissingOnes) {
  const std::string path = ::testing::TempDir() + "/chunked_encoder_input.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << "low lower newest\nwidest\n";
  }
  absl::StatusOr<TextSource> file = TextSource::Open(path);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->in_memory());
  EXPECT_EQ(file->size(), 24u);
  EXPECT_EQ(file->memory(), "low lower newest\nwidest\n");
  std::remove(path.c_str());

  absl::StatusOr<TextSource> missing = TextSource::Open(path);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message().rfind("cannot open '" + path + "': ", 0), 0u) << missing.status();

  TextSource memory = TextSource::Memory("abc");
  EXPECT_TRUE(memory.in_memory());
  EXPECT_EQ(memory.size(), 3u);
}

}  // namespace
}  // namespace tokvec
