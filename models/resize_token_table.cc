#include "models/resize_token_table.h"

#include <cmath>
#include <deque>
#include <memory>

#include "base/status_macros.h"
#include "embeddings/random_init.h"
#include "embeddings/safetensors.h"
#include "embeddings/safetensors_shards.h"
#include "fmt/format.h"

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
  std::vector<double> covariance(cols * cols, 0.0);
  std::vector<double> centered(cols);
  for (int64_t r = 0; r < old_rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) centered[c] = table[r * cols + c] - mean[c];
    for (int64_t i = 0; i < cols; ++i) {
      const double ci = centered[i];
      double* row = &covariance[i * cols];
      for (int64_t j = 0; j <= i; ++j) row[j] += ci * centered[j];
    }
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

absl::StatusOr<ResizeReport> ResizeTokenTables(const std::string& weights_path, int64_t old_vocab, int64_t new_vocab,
                                               const ResizeOptions& options, const std::string& out_path) {
  if (new_vocab < old_vocab) {
    return absl::InvalidArgumentError(fmt::format(
        "the new vocabulary ({} ids) is smaller than the model's ({}); token tables only grow", new_vocab, old_vocab));
  }
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
    const bool table = (tensor.shape.size() == 1 || tensor.shape.size() == 2) && tensor.shape[0] == old_vocab;
    if (!table || new_vocab == old_vocab) {
      tensors.push_back({name, tensor.shape, tensor.data});
      continue;
    }
    report.tables.push_back(name);
    const int64_t cols = tensor.shape.size() == 2 ? tensor.shape[1] : 1;
    std::vector<float>& values = grown.emplace_back(tensor.data, tensor.data + tensor.num_elements());
    values.reserve(static_cast<size_t>(new_vocab * cols));
    if (tensor.shape.size() == 1) {
      double mean = 0.0;
      for (int64_t i = 0; i < old_vocab; ++i) mean += tensor.data[i];
      values.resize(static_cast<size_t>(new_vocab), static_cast<float>(mean / static_cast<double>(old_vocab)));
    } else {
      report.sampled &=
          DrawMeanResizedRows(tensor.data, old_vocab, cols, new_vocab - old_vocab, options.seed + draw++, &values);
      if (name == options.table_name) {
        for (const auto& [id, row] : options.given_rows) {
          if (id >= old_vocab && id < new_vocab) std::copy(row, row + cols, values.begin() + id * cols);
        }
      }
    }
    std::vector<int64_t> shape = tensor.shape;
    shape[0] = new_vocab;
    tensors.push_back({name, std::move(shape), values.data()});
  }
  if (report.tables.empty() && new_vocab != old_vocab) {
    return absl::InvalidArgumentError(fmt::format(
        "'{}' holds no tensor with {} rows (config.json's vocab_size): no token table to grow", weights_path,
        old_vocab));
  }
  TOKVEC_RETURN_IF_ERROR(WriteSafetensors(out_path, tensors));
  return report;
}

}  // namespace tokvec
