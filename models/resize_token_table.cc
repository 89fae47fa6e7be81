#include "models/resize_token_table.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>

#include "base/status_macros.h"
#include "embeddings/random_init.h"
#include "embeddings/safetensors.h"
#include "embeddings/safetensors_shards.h"
#include "fmt/format.h"
#include "kernels/ops.h"

namespace tokvec {
namespace {

constexpr double kEpsilon = 1e-9;  // Hugging Face's scale of the covariance

// The lower Cholesky factor of the symmetric [n, n] matrix `a` (in place, the upper part left as is); false when
// `a` is not positive definite (a pivot not above 0), as torch's positive_definite check says.
bool Cholesky(std::vector<double>& a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double diagonal = a[j * n + j];
    for (int64_t k = 0; k < j; ++k) diagonal -= a[j * n + k] * a[j * n + k];
    if (!(diagonal > 0.0)) return false;
    const double pivot = std::sqrt(diagonal);
    a[j * n + j] = pivot;
    for (int64_t i = j + 1; i < n; ++i) {
      double sum = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) sum -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = sum / pivot;
    }
  }
  return true;
}

}  // namespace

bool DrawMeanResizedRows(const float* table, int64_t old_rows, int64_t cols, int64_t count, uint64_t seed,
                         std::vector<float>* out) {
  // 1. Mean and covariance of the old rows, in double.
  std::vector<double> mean(cols, 0.0);
  for (int64_t r = 0; r < old_rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) mean[c] += table[r * cols + c];
  }
  for (double& m : mean) m /= static_cast<double>(old_rows);
  // Σ's lower triangle by BLAS (dsyrk on blocks of centered rows): O(rows · cols²) is 10^12 for a 128k x 4096 table.
  std::vector<double> covariance(cols * cols, 0.0);
  constexpr int64_t kBlock = 512;
  std::vector<double> block(static_cast<size_t>(std::min(old_rows, kBlock) * cols));
  UseSingleThreadedBlas();
  for (int64_t r0 = 0; r0 < old_rows; r0 += kBlock) {
    const int64_t n = std::min(kBlock, old_rows - r0);
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < cols; ++c) block[r * cols + c] = table[(r0 + r) * cols + c] - mean[c];
    }
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(cols), static_cast<int>(n), 1.0,
                block.data(), static_cast<int>(cols), 1.0, covariance.data(), static_cast<int>(cols));
  }
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j <= i; ++j) covariance[i * cols + j] *= kEpsilon / static_cast<double>(old_rows);
  }
  // 2. Rows μ + L z, z standard normal (L L^T = 1e-9 Σ); μ alone when Σ is not positive definite.
  const bool positive = Cholesky(covariance, cols);
  NormalSampler sampler(seed);
  std::vector<double> z(cols);
  for (int64_t n = 0; n < count; ++n) {
    if (positive) {
      for (double& v : z) v = sampler.Next();
    }
    for (int64_t i = 0; i < cols; ++i) {
      double v = mean[i];
      if (positive) {
        for (int64_t k = 0; k <= i; ++k) v += covariance[i * cols + k] * z[k];
      }
      out->push_back(static_cast<float>(v));
    }
  }
  return positive;
}

namespace {

// Whether `name` is a token table's (input embeddings, an untied LM head) or an LM head's bias, by the names of the
// architectures tokvec reads; the shape decides the rest.
bool TokenTableName(std::string_view name) {
  for (std::string_view part : {"wte.", "word_embeddings.", "embed_tokens.", "tok_embeddings.", "lm_head.",
                                "decoder.", "embed_out."}) {
    if (name.find(part) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<ResizeReport> ResizeTokenTables(const std::string& weights_path, const ResizeShape& shape,
                                               const ResizeOptions& options, const std::string& out_path) {
  if (shape.new_ids <= shape.old_ids) {
    return absl::InvalidArgumentError(fmt::format(
        "the new tokenizer has {} ids, the old one {}: nothing to grow (a tokenizer from `tokvec extend` has more)",
        shape.new_ids, shape.old_ids));
  }
  if (shape.old_ids > shape.table_rows || shape.old_ids <= 0) {
    return absl::InvalidArgumentError(fmt::format(
        "the model's tokenizer has {} ids but its token table {} rows", shape.old_ids, shape.table_rows));
  }
  const int64_t rows = std::max(shape.table_rows, shape.new_ids);
  TOKVEC_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsShards> weights, SafetensorsShards::Open(weights_path));
  ResizeReport report;
  std::deque<std::vector<float>> grown;  // storage of the grown tables
  std::vector<NamedTensor> tensors;
  uint64_t draw = 0;  // each table draws from its own seed: seed, seed + 1, ... in name order
  for (const std::string& name : weights->Names()) {
    const std::string& dtype = weights->Find(name)->dtype;
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16") {  // e.g. BERT's I64 position_ids buffer
      report.dropped.push_back(name);
      continue;
    }
    TOKVEC_ASSIGN_OR_RETURN(FloatTensor tensor, weights->ReadFloat32(name));
    const std::vector<int64_t>& s = tensor.shape;
    const bool matrix = s.size() == 2 && s[0] == shape.table_rows && s[1] == shape.hidden;
    const bool bias = s.size() == 1 && s[0] == shape.table_rows && name.find("bias") != std::string::npos;
    if (!TokenTableName(name) || !(matrix || bias)) {
      tensors.push_back({name, tensor.shape, tensor.data});
      continue;
    }
    report.tables.push_back(name);
    const int64_t cols = matrix ? shape.hidden : 1;
    std::vector<float>& values = grown.emplace_back();
    values.reserve(static_cast<size_t>(rows * cols));
    values.assign(tensor.data, tensor.data + shape.old_ids * cols);  // the old tokenizer's rows
    if (bias) {
      double mean = 0.0;
      for (int64_t i = 0; i < shape.old_ids; ++i) mean += tensor.data[i];
      values.resize(static_cast<size_t>(shape.new_ids), static_cast<float>(mean / static_cast<double>(shape.old_ids)));
    } else {
      report.sampled &= DrawMeanResizedRows(tensor.data, shape.old_ids, cols, shape.new_ids - shape.old_ids,
                                            options.seed + draw++, &values);
      if (name == options.table_name) {
        for (const auto& [id, row] : options.given_rows) {
          if (id >= shape.old_ids && id < shape.new_ids) std::copy(row, row + cols, values.begin() + id * cols);
        }
      }
    }
    // Rows past the new ids (a table padded beyond its tokenizer) stay as they were.
    if (shape.new_ids < shape.table_rows) {
      values.insert(values.end(), tensor.data + shape.new_ids * cols, tensor.data + shape.table_rows * cols);
    }
    std::vector<int64_t> grown_shape = tensor.shape;
    grown_shape[0] = rows;
    tensors.push_back({name, std::move(grown_shape), values.data()});
  }
  if (report.tables.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "'{}' holds no token table: no tensor named like wte / word_embeddings / embed_tokens / lm_head of shape "
        "[{}, {}] (config.json's vocab_size, hidden size)",
        weights_path, shape.table_rows, shape.hidden));
  }
  TOKVEC_RETURN_IF_ERROR(WriteSafetensors(out_path, tensors));
  return report;
}

}  // namespace tokvec
