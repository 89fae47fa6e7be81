#include "pipeline/heatmap.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace tokvec {
namespace {

constexpr size_t kMaxLabel = 12;  // code points shown per token label
constexpr int kCell = 28;         // SVG cell side, pixels
constexpr int kCharWidth = 8;     // approximate pixels per label character (12px monospace)

size_t CodePoints(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The first kMaxLabel code points, with "…" when cut.
std::string Label(std::string_view token) {
  if (CodePoints(token) <= kMaxLabel) return std::string(token);
  size_t seen = 0, i = 0;
  for (; i < token.size(); ++i) {
    if ((token[i] & 0xC0) != 0x80 && seen++ == kMaxLabel - 1) break;
  }
  return std::string(token.substr(0, i)) + "\xE2\x80\xA6";
}

std::string Pad(const std::string& s, size_t width, bool right_align) {
  const size_t n = CodePoints(s);
  const std::string fill(width > n ? width - n : 0, ' ');
  return right_align ? fill + s : s + fill;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// White (0) to dark blue (1), as matplotlib's "Blues" endpoints.
std::string Shade(float weight) {
  const float w = std::clamp(weight, 0.0f, 1.0f);
  auto mix = [w](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * w)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(247, 8), mix(251, 48), mix(255, 107));
}

// JSON placed inside <script> must not contain "</" (it would close the element).
std::string EscapeScriptJson(std::string json) {
  for (size_t i = json.find("</"); i != std::string::npos; i = json.find("</", i + 3)) json.replace(i, 2, "<\\/");
  return json;
}

}  // namespace

std::string WeightsTable(const std::vector<std::string>& tokens, MatrixView weights) {
  std::vector<std::string> labels;
  size_t row_width = 0, col_width = 5;  // "0.000"
  for (const auto& t : tokens) {
    labels.push_back(Label(t));
    row_width = std::max(row_width, CodePoints(labels.back()));
    col_width = std::max(col_width, CodePoints(labels.back()));
  }
  std::string out = Pad("", row_width, false);
  for (const auto& l : labels) out += "  " + Pad(l, col_width, true);
  out += '\n';
  for (int64_t q = 0; q < weights.rows; ++q) {
    out += Pad(labels[q], row_width, false);
    for (int64_t k = 0; k < weights.cols; ++k) out += "  " + Pad(fmt::format("{:.3f}", weights.at(q, k)), col_width, true);
    out += '\n';
  }
  return out;
}

std::string WeightsJson(const std::vector<std::string>& tokens, MatrixView weights, int64_t layer, int64_t head) {
  nlohmann::ordered_json j;
  j["layer"] = layer;
  j["head"] = head;
  j["tokens"] = tokens;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (int64_t q = 0; q < weights.rows; ++q) {
    rows.push_back(std::vector<float>(weights.row(q), weights.row(q) + weights.cols));
  }
  j["weights"] = std::move(rows);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string WeightsSvg(const std::vector<std::string>& tokens, MatrixView weights, std::string_view title) {
  size_t longest = 1;
  for (const auto& t : tokens) longest = std::max(longest, CodePoints(Label(t)));
  const int margin = static_cast<int>(longest) * kCharWidth + 12;  // room for the row labels and column labels
  const int n = static_cast<int>(weights.rows);
  const std::string caption = fmt::format("{} (rows: queries, columns: keys)", title);
  const int caption_width = static_cast<int>(CodePoints(caption)) * kCharWidth + 12;
  const int width = std::max(margin + n * kCell + 10, caption_width), height = margin + n * kCell + 40;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"monospace\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"4\" y=\"{3}\" font-size=\"13\">{4}</text>\n",
      width, height, XmlEscape(title), height - 12, XmlEscape(caption));
  for (int i = 0; i < n; ++i) {
    const std::string label = XmlEscape(Label(tokens[i]));
    const int center = margin + i * kCell + kCell / 2;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                       margin - 6, center, label);
    out += fmt::format("<text transform=\"translate({},{}) rotate(-90)\" dominant-baseline=\"middle\">{}</text>\n",
                       center, margin - 6, label);
  }
  for (int q = 0; q < n; ++q) {
    for (int k = 0; k < n; ++k) {
      const float w = weights.at(q, k);
      out += fmt::format(
          "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ddd\" "
          "data-q=\"{}\" data-k=\"{}\" data-w=\"{:.4f}\"><title>{} -&gt; {}: {:.4f}</title></rect>\n",
          margin + k * kCell, margin + q * kCell, kCell, kCell, Shade(w), q, k, w, XmlEscape(tokens[q]),
          XmlEscape(tokens[k]), w);
    }
  }
  out += "</svg>\n";
  return out;
}

std::string WeightsHtml(const std::vector<std::string>& tokens, MatrixView weights, std::string_view title) {
  nlohmann::json names = tokens;
  return fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;margin:20px}} #info{{font-family:monospace;height:1.5em;margin:8px 0}}"
      " .cell:hover{{stroke:#e6550d;stroke-width:3}}</style></head>\n<body>\n<h3>{0}</h3>\n"
      "<div id=\"info\">hover a cell: query token -&gt; key token: weight</div>\n{1}"
      "<script>\nconst tokens = {2};\n"
      "for (const cell of document.querySelectorAll('.cell')) {{\n"
      "  cell.addEventListener('mouseover', () => {{\n"
      "    const q = +cell.dataset.q, k = +cell.dataset.k;\n"
      "    document.getElementById('info').textContent =\n"
      "      `query ${{q}} ${{JSON.stringify(tokens[q])}} -> key ${{k}} ${{JSON.stringify(tokens[k])}}: ${{cell.dataset.w}}`;\n"
      "  }});\n}}\n</script>\n</body></html>\n",
      XmlEscape(title), WeightsSvg(tokens, weights, title),
      EscapeScriptJson(names.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)));
}

}  // namespace tokvec
