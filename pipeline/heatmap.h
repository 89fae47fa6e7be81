// Showing one head's attention weights: rows are query tokens, columns the key tokens they attend to.
//
//   std::string table = WeightsTable(tokens, weights);   // aligned text, 3 decimals
//   std::string svg = WeightsSvg(tokens, weights, "layer 0, head 1");
//   std::string html = WeightsHtml(tokens, weights, "layer 0, head 1");  // hover a cell to read its value
//
// weights: [T, T], tokens: [T]. The SVG and HTML are self-contained (no scripts or fonts fetched); cells shade
// from white (0) to dark blue (1), and every SVG cell carries a <title> tooltip "query -> key: weight".
#ifndef TOKVEC_PIPELINE_HEATMAP_H_
#define TOKVEC_PIPELINE_HEATMAP_H_

#include <string>
#include <string_view>
#include <vector>

#include "kernels/tensor.h"

namespace tokvec {

std::string WeightsTable(const std::vector<std::string>& tokens, MatrixView weights);
// {"tokens": [...], "weights": [[...], ...]} plus "layer" and "head".
std::string WeightsJson(const std::vector<std::string>& tokens, MatrixView weights, int64_t layer, int64_t head);
std::string WeightsSvg(const std::vector<std::string>& tokens, MatrixView weights, std::string_view title);
std::string WeightsHtml(const std::vector<std::string>& tokens, MatrixView weights, std::string_view title);

}  // namespace tokvec

#endif  // TOKVEC_PIPELINE_HEATMAP_H_
