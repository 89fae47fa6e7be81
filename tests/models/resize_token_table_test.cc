// Growing token tables (models/resize_token_table.h): new rows drawn from N(μ, 1e-9 Σ) of the old rows, as Hugging
// Face's resize_token_embeddings (mean_resizing) draws them, checked by their sample statistics; the mean when Σ is
// singular; a bias grows by its mean; other tensors are copied bit for bit.
#include "models/resize_token_table.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "embeddings/safetensors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

using ::testing::HasSubstr;

// A [rows, 3] table with a known mean and a correlated covariance: x = μ + A z.
std::vector<float> CorrelatedTable(int64_t rows) {
  std::mt19937_64 engine(11);
  std::normal_distribution<double> normal;
  std::vector<float> table;
  for (int64_t r = 0; r < rows; ++r) {
    const double z0 = normal(engine), z1 = normal(engine), z2 = normal(engine);
    table.push_back(static_cast<float>(1.0 + 2.0 * z0));
    table.push_back(static_cast<float>(-0.5 + 1.0 * z0 + 0.5 * z1));
    table.push_back(static_cast<float>(0.25 + 0.3 * z2));
  }
  return table;
}

TEST(ResizeTokenTableTest, NewRowsFollowTheScaledCovarianceOfTheOldOnes) {
  const int64_t old_rows = 4000, cols = 3, count = 20000;
  const std::vector<float> table = CorrelatedTable(old_rows);
  // The old rows' own mean and covariance (what the draw must follow).
  double mean[3] = {}, cov[3][3] = {};
  for (int64_t r = 0; r < old_rows; ++r) {
    for (int c = 0; c < 3; ++c) mean[c] += table[r * cols + c] / static_cast<double>(old_rows);
  }
  for (int64_t r = 0; r < old_rows; ++r) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        cov[i][j] += (table[r * cols + i] - mean[i]) * (table[r * cols + j] - mean[j]) / static_cast<double>(old_rows);
      }
    }
  }
  std::vector<float> rows;
  ASSERT_TRUE(DrawMeanResizedRows(table.data(), old_rows, cols, count, 5, &rows));
  ASSERT_EQ(rows.size(), static_cast<size_t>(count * cols));
  // The draws' deviations from μ, scaled back by 1/sqrt(1e-9), have the old covariance (within sampling error).
  const double scale = 1.0 / std::sqrt(1e-9);
  double sample[3][3] = {}, offset[3] = {};
  for (int64_t n = 0; n < count; ++n) {
    double d[3];
    for (int c = 0; c < 3; ++c) {
      d[c] = (static_cast<double>(rows[n * cols + c]) - mean[c]) * scale;
      offset[c] += d[c] / static_cast<double>(count);
    }
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) sample[i][j] += d[i] * d[j] / static_cast<double>(count);
    }
  }
  for (int i = 0; i < 3; ++i) {
    // float32 rounding of μ + 3e-5 σ z costs ~2^-24 |μ| / 3e-5 σ in these units: allow for it.
    EXPECT_NEAR(offset[i], 0.0, 0.1) << i;
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(sample[i][j], cov[i][j], 0.08 * std::sqrt(cov[i][i] * cov[j][j]) + 0.02) << i << "," << j;
    }
  }
  // The same seed, the same rows; another seed, others.
  std::vector<float> again, other;
  DrawMeanResizedRows(table.data(), old_rows, cols, count, 5, &again);
  DrawMeanResizedRows(table.data(), old_rows, cols, count, 6, &other);
  EXPECT_EQ(again, rows);
  EXPECT_NE(other, rows);
}

TEST(ResizeTokenTableTest, ASingularCovarianceGivesTheMean) {
  // Every row equal in column 1: Σ has a zero row, not positive definite.
  const std::vector<float> table = {1, 7, 2, 3, 7, 4, 5, 7, 0};
  std::vector<float> rows;
  EXPECT_FALSE(DrawMeanResizedRows(table.data(), 3, 3, 2, 1, &rows));
  EXPECT_EQ(rows, (std::vector<float>{3, 7, 2, 3, 7, 2}));
}

TEST(ResizeTokenTableTest, TablesGrowBiasesByTheirMeanOtherTensorsStay) {
  const std::string in = ::testing::TempDir() + "/resize_in.safetensors";
  const std::string out = ::testing::TempDir() + "/resize_out.safetensors";
  const std::vector<float> table = CorrelatedTable(5);            // [5, 3]
  const std::vector<float> bias = {1, 2, 3, 4, 10};               // [5]
  const std::vector<float> same_shape = CorrelatedTable(5);       // [5, 3] but not named as a token table
  const std::vector<float> norm = {1, 1, 1, 1, 1};                // [5] named as no token table's bias
  ASSERT_TRUE(WriteSafetensors(in, {{"wte.weight", {5, 3}, table.data()},
                                    {"lm_head.bias", {5}, bias.data()},
                                    {"h.0.mlp.w", {5, 3}, same_shape.data()},
                                    {"h.0.ln.bias", {5}, norm.data()}})
                  .ok());
  const float given[3] = {9, 8, 7};
  absl::StatusOr<ResizeReport> report =
      ResizeTokenTables(in, {.table_rows = 5, .old_ids = 5, .new_ids = 8, .hidden = 3},
                        {.seed = 2, .table_name = "wte.weight", .given_rows = {{6, given}}}, out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->tables, (std::vector<std::string>{"lm_head.bias", "wte.weight"}));
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::Open(out);
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<FloatTensor> wte = (*file)->ReadFloat32("wte.weight");
  absl::StatusOr<FloatTensor> b = (*file)->ReadFloat32("lm_head.bias");
  absl::StatusOr<FloatTensor> w = (*file)->ReadFloat32("h.0.mlp.w");
  absl::StatusOr<FloatTensor> ln = (*file)->ReadFloat32("h.0.ln.bias");
  ASSERT_TRUE(wte.ok() && b.ok() && w.ok() && ln.ok());
  EXPECT_EQ(wte->shape, (std::vector<int64_t>{8, 3}));
  EXPECT_EQ(std::vector<float>(wte->data, wte->data + 15), table);  // old rows bit for bit
  EXPECT_EQ(std::vector<float>(wte->data + 18, wte->data + 21), std::vector<float>(given, given + 3));
  EXPECT_EQ(std::vector<float>(b->data, b->data + 8), (std::vector<float>{1, 2, 3, 4, 10, 4, 4, 4}));
  EXPECT_EQ(w->shape, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(std::vector<float>(w->data, w->data + 15), same_shape);
  EXPECT_EQ(ln->shape, (std::vector<int64_t>{5}));

  EXPECT_THAT(std::string(ResizeTokenTables(in, {.table_rows = 5, .old_ids = 5, .new_ids = 5, .hidden = 3}, {}, out)
                              .status()
                              .message()),
              HasSubstr("nothing to grow"));
  EXPECT_THAT(std::string(ResizeTokenTables(in, {.table_rows = 6, .old_ids = 5, .new_ids = 9, .hidden = 3}, {}, out)
                              .status()
                              .message()),
              HasSubstr("holds no token table"));
}

// A table padded beyond its tokenizer (Qwen, Pythia): the spare rows the new ids take are replaced by new ones,
// the rows past the new ids stay; a bias likewise.
TEST(ResizeTokenTableTest, APaddedTableKeepsItsSizeAndReplacesTheRowsNewIdsTake) {
  const std::string in = ::testing::TempDir() + "/resize_padded_in.safetensors";
  const std::string out = ::testing::TempDir() + "/resize_padded_out.safetensors";
  const std::vector<float> table = CorrelatedTable(8);  // [8, 3]: the tokenizer uses 5 rows
  const std::vector<float> bias = {1, 2, 3, 4, 10, -50, -60, -70};
  ASSERT_TRUE(WriteSafetensors(in, {{"model.embed_tokens.weight", {8, 3}, table.data()},
                                    {"lm_head.bias", {8}, bias.data()}})
                  .ok());
  absl::StatusOr<ResizeReport> report =
      ResizeTokenTables(in, {.table_rows = 8, .old_ids = 5, .new_ids = 7, .hidden = 3}, {.seed = 1}, out);
  ASSERT_TRUE(report.ok()) << report.status();
  absl::StatusOr<std::unique_ptr<SafetensorsFile>> file = SafetensorsFile::Open(out);
  ASSERT_TRUE(file.ok());
  absl::StatusOr<FloatTensor> t = (*file)->ReadFloat32("model.embed_tokens.weight");
  absl::StatusOr<FloatTensor> b = (*file)->ReadFloat32("lm_head.bias");
  ASSERT_TRUE(t.ok() && b.ok());
  EXPECT_EQ(t->shape, (std::vector<int64_t>{8, 3}));
  EXPECT_EQ(std::vector<float>(t->data, t->data + 15), std::vector<float>(table.begin(), table.begin() + 15));
  EXPECT_NE(std::vector<float>(t->data + 15, t->data + 21), std::vector<float>(table.begin() + 15, table.begin() + 21));
  EXPECT_EQ(std::vector<float>(t->data + 21, t->data + 24), std::vector<float>(table.begin() + 21, table.end()));
  EXPECT_EQ(std::vector<float>(b->data, b->data + 8), (std::vector<float>{1, 2, 3, 4, 10, 4, 4, -70}));
}

}  // namespace
}  // namespace tokvec
