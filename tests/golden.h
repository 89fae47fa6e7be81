// Loads the PyTorch goldens written by scripts/gen_attention_goldens.py (tests/data/attention/*.json) and compares
// our outputs with them, printing the measured max abs difference.
//
//   Golden g = Golden::Load("mha_self_causal");
//   MatrixView x = g.Batch("x", 0);                    // [T, D] of batch element 0 of a [B, T, D] tensor
//   ExpectClose("mha_self_causal output", out.view(), g.Batch("output", 0), 1e-5);
//
// Format (see the script's docstring): {"description", "config", "tensors": {name: {"shape", "data"}}}.
#ifndef TOKVEC_TESTS_GOLDEN_H_
#define TOKVEC_TESTS_GOLDEN_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/tensor.h"
#include "nlohmann/json.hpp"

namespace tokvec {

struct GoldenTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major
};

class Golden {
 public:
  // Throws (a test failure) when the file is missing or malformed: the goldens are committed.
  static Golden Load(const std::string& name) {
    const std::string path = std::string(TOKVEC_SOURCE_DIR) + "/tests/data/attention/" + name + ".json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("missing golden " + path + "; run scripts/gen_attention_goldens.py");
    nlohmann::json doc = nlohmann::json::parse(in);
    Golden golden;
    golden.config = doc.at("config");
    for (const auto& [key, value] : doc.at("tensors").items()) {
      GoldenTensor t;
      t.shape = value.at("shape").get<std::vector<int64_t>>();
      t.data = value.at("data").get<std::vector<float>>();
      golden.tensors_[key] = std::move(t);
    }
    return golden;
  }

  const GoldenTensor& Tensor(const std::string& key) const {
    auto it = tensors_.find(key);
    if (it == tensors_.end()) throw std::runtime_error("golden has no tensor " + key);
    return it->second;
  }
  bool Has(const std::string& key) const { return tensors_.count(key) != 0; }
  std::span<const float> Span(const std::string& key) const { return Tensor(key).data; }
  // A 2-D tensor as [rows, cols]; a 1-D one as [1, n].
  MatrixView View(const std::string& key) const {
    const GoldenTensor& t = Tensor(key);
    const int64_t cols = t.shape.back();
    return {t.data.data(), static_cast<int64_t>(t.data.size()) / std::max<int64_t>(cols, 1), cols};
  }
  // Element b of the leading dimension of an N-D tensor, as a matrix over the last dimension.
  MatrixView Batch(const std::string& key, int64_t b) const {
    const GoldenTensor& t = Tensor(key);
    const int64_t per = static_cast<int64_t>(t.data.size()) / t.shape.front();
    const int64_t cols = t.shape.back();
    return {t.data.data() + b * per, per / cols, cols};
  }
  // 0/1 mask values as bytes.
  std::vector<uint8_t> Mask(const std::string& key, int64_t b, int64_t n) const {
    const float* p = Tensor(key).data.data() + b * n;
    std::vector<uint8_t> mask(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) mask[static_cast<size_t>(i)] = p[i] != 0.0f;
    return mask;
  }

  nlohmann::json config;

 private:
  std::map<std::string, GoldenTensor> tensors_;
};

inline Matrix ToMatrix(MatrixView v) {
  Matrix m(v.rows, v.cols);
  std::copy_n(v.data, v.size(), m.data());
  return m;
}

inline double MaxAbsDiff(std::span<const float> actual, std::span<const float> expected) {
  double diff = 0.0;
  for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    const double d = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    if (!(d <= diff)) diff = d;  // NaN propagates as the max
  }
  return diff;
}

// Asserts same shape and max |actual - expected| <= tolerance, printing the measured difference.
inline void ExpectClose(const std::string& what, MatrixView actual, MatrixView expected, double tolerance) {
  ASSERT_EQ(actual.rows, expected.rows) << what;
  ASSERT_EQ(actual.cols, expected.cols) << what;
  const double diff = MaxAbsDiff({actual.data, static_cast<size_t>(actual.size())},
                                 {expected.data, static_cast<size_t>(expected.size())});
  std::printf("[ vs torch ] %-58s max abs diff %.3g (tolerance %.0e)\n", what.c_str(), diff, tolerance);
  EXPECT_LE(diff, tolerance) << what << ": tokvec and PyTorch differ";
  if (!(diff <= tolerance)) {
    std::ostringstream rows;
    for (int64_t r = 0; r < actual.rows; ++r) {
      rows << "row " << r << " tokvec:";
      for (int64_t c = 0; c < actual.cols; ++c) rows << ' ' << actual.at(r, c);
      rows << "\n      torch: ";
      for (int64_t c = 0; c < expected.cols; ++c) rows << ' ' << expected.at(r, c);
      rows << '\n';
    }
    ADD_FAILURE() << rows.str();
  }
}

}  // namespace tokvec

#endif  // TOKVEC_TESTS_GOLDEN_H_
