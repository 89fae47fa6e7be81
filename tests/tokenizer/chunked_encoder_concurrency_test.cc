// ChunkedEncoder (tokenizer/batch/chunked_encoder.h) on several threads, for ThreadSanitizer too: the workers share
// the tokenizer and read the shared piece and id-text caches while one task writes and reads, and the caches are
// folded between batches. The output must be the serial one, in both of tokvec encode's modes (ids as text, ids).
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"
#include "tokenizer/batch/chunked_encoder.h"
#include "tokenizer/tokenizer.h"

namespace tokvec {
namespace {

TEST(ChunkedEncoderConcurrencyTest, ThreadsGiveTheSerialOutput) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> tokenizer =
      Tokenizer::Load(std::string(TOKVEC_SOURCE_DIR) + "/tests/attention/testdata/hf_gpt2_f32/vocab.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::string> corpus = ReadFile(std::string(TOKVEC_SOURCE_DIR) + "/data/corpus.txt");
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  std::string text;
  while (text.size() < 1300000) text += *corpus;  // about 5 chunks of 256 KB, and two batches at 32 KB chunks

  for (bool id_text : {false, true}) {
    std::string serial;
    for (int threads : {1, 2, 3}) {
      ChunkedEncoder encoder(**tokenizer, {.threads = threads, .chunk_bytes = size_t{32} << 10, .id_text = id_text});
      TextSource source = TextSource::Memory(text);
      std::string out;
      const absl::Status status = encoder.Run(
          source,
          [&](EncodeChunk* chunk, const IdTextCaches& caches) {
            if (id_text) {
              chunk->status = (*tokenizer)->EncodeIdText(chunk->text, {}, chunk->base, caches, chunk->id_text);
            } else {
              chunk->status = (*tokenizer)->EncodeIds(chunk->text, {}, &chunk->ids, chunk->base,
                                                      caches.shared_pieces, caches.local_pieces);
            }
          },
          [&](EncodeChunk& chunk) {
            if (id_text) {
              out += chunk.id_text->view();
            } else {
              for (TokenId id : chunk.ids) out += " " + std::to_string(id);
            }
            return absl::OkStatus();
          });
      ASSERT_TRUE(status.ok()) << status;
      if (threads == 1) {
        serial = out;
        ASSERT_FALSE(serial.empty());
      } else {
        EXPECT_EQ(out, serial) << "threads " << threads << (id_text ? ", id text" : ", ids");
      }
    }
  }
}

}  // namespace
}  // namespace tokvec
