#include "word2vec/evaluate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <thread>

#include "fmt/format.h"
#include "word2vec/kernels.h"

namespace tokvec::word2vec {
namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    const size_t begin = i;
    while (i < line.size() && !space(line[i])) ++i;
    if (i > begin) out.push_back(line.substr(begin, i - begin));
  }
  return out;
}

// The lines of `text` without their '\n'.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// compute-accuracy.c counts the first five sections as semantic.
constexpr size_t kSemanticSections = 5;

}  // namespace

std::string AsciiUpper(std::string_view word) {
  std::string out(word);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

UnitVectors::UnitVectors(const Vectors& vectors, int64_t max_words) : dim_(vectors.dim) {
  size_t n = vectors.size();
  if (max_words > 0) n = std::min(n, static_cast<size_t>(max_words));
  words_.assign(vectors.words.begin(), vectors.words.begin() + static_cast<std::ptrdiff_t>(n));
  values_.assign(vectors.values.begin(), vectors.values.begin() + static_cast<std::ptrdiff_t>(n * static_cast<size_t>(dim_)));
  for (size_t i = 0; i < n; ++i) {
    float* r = values_.data() + i * static_cast<size_t>(dim_);
    float len = 0;  // float, in order, as compute-accuracy.c
    for (int64_t d = 0; d < dim_; ++d) len += r[d] * r[d];
    len = std::sqrt(len);
    if (len > 0) {
      for (int64_t d = 0; d < dim_; ++d) r[d] /= len;
    }
    exact_.try_emplace(words_[i], static_cast<int64_t>(i));
    upper_.try_emplace(AsciiUpper(words_[i]), static_cast<int64_t>(i));
  }
}

int64_t UnitVectors::Find(std::string_view word, bool case_sensitive) const {
  const auto& map = case_sensitive ? exact_ : upper_;
  auto it = map.find(case_sensitive ? std::string(word) : AsciiUpper(word));
  return it == map.end() ? -1 : it->second;
}

std::vector<Neighbour> UnitVectors::Nearest(const float* query, int64_t k, const std::vector<int64_t>& exclude) const {
  const Kernels& kern = BestKernels();
  std::vector<Neighbour> best;  // sorted by cosine descending, at most k
  if (k <= 0) return best;
  for (int64_t r = 0; r < size(); ++r) {
    if (std::find(exclude.begin(), exclude.end(), r) != exclude.end()) continue;
    const float c = kern.dot(query, row(r), dim_);
    if (static_cast<int64_t>(best.size()) == k && !(c > best.back().cosine)) continue;
    auto at = std::upper_bound(best.begin(), best.end(), c,
                               [](float value, const Neighbour& n) { return value > n.cosine; });
    best.insert(at, Neighbour{r, c});
    if (static_cast<int64_t>(best.size()) > k) best.pop_back();
  }
  return best;
}

absl::StatusOr<AnalogyReport> EvaluateAnalogies(const UnitVectors& unit, std::string_view text,
                                                const std::string& name, const AnalogyOptions& options) {
  // 1. Parse: sections and questions (row ids, -1 when unknown).
  struct Question {
    size_t section;
    int64_t a, b, c, d;
    std::string answer;  // d as compared (upper-cased unless case_sensitive)
  };
  AnalogyReport report;
  std::vector<Question> questions;
  int64_t line_number = 0;
  for (std::string_view line : Lines(text)) {
    ++line_number;
    std::vector<std::string_view> f = Fields(line);
    if (f.empty()) continue;
    if (f[0] == ":" || f[0].front() == ':') {
      std::string section = f[0] == ":" ? (f.size() > 1 ? std::string(f[1]) : "") : std::string(f[0].substr(1));
      report.sections.push_back({section});
      continue;
    }
    if (f.size() != 4) {
      return absl::InvalidArgumentError(fmt::format(
          "'{}' line {}: an analogy question has 4 words (`a b c d`: a is to b as c is to d), this line has {}",
          name, line_number, f.size()));
    }
    if (report.sections.empty()) report.sections.push_back({""});
    Question q{report.sections.size() - 1, unit.Find(f[0], options.case_sensitive),
               unit.Find(f[1], options.case_sensitive), unit.Find(f[2], options.case_sensitive),
               unit.Find(f[3], options.case_sensitive),
               options.case_sensitive ? std::string(f[3]) : AsciiUpper(f[3])};
    ++report.sections[q.section].questions;
    if (q.a >= 0 && q.b >= 0 && q.c >= 0 && q.d >= 0) questions.push_back(std::move(q));
  }
  // 2. Answer every question whose words are known: argmax over rows of (b - a + c) . w, a, b, c excluded.
  //    compute-accuracy.c starts its best score at 0, so a question whose every score is <= 0 is answered wrong.
  std::vector<char> right(questions.size(), 0);
  const int threads = std::max(1, options.threads);
  auto work = [&](int t) {
    std::vector<float> query(static_cast<size_t>(unit.dim()));
    for (size_t i = static_cast<size_t>(t); i < questions.size(); i += static_cast<size_t>(threads)) {
      const Question& q = questions[i];
      for (int64_t d = 0; d < unit.dim(); ++d) query[static_cast<size_t>(d)] = unit.row(q.b)[d] - unit.row(q.a)[d] + unit.row(q.c)[d];
      std::vector<Neighbour> best = unit.Nearest(query.data(), 1, {q.a, q.b, q.c});
      if (!best.empty() && best[0].cosine > 0) {
        const std::string& w = unit.word(best[0].row);
        right[i] = (options.case_sensitive ? w : AsciiUpper(w)) == q.answer;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& thread : pool) thread.join();
  // 3. Count.
  for (size_t i = 0; i < questions.size(); ++i) {
    AnalogySection& s = report.sections[questions[i].section];
    ++s.answered;
    s.correct += right[i];
  }
  report.total.name = "total";
  report.semantic.name = "semantic";
  report.syntactic.name = "syntactic";
  for (size_t i = 0; i < report.sections.size(); ++i) {
    const AnalogySection& s = report.sections[i];
    for (AnalogySection* sum : {&report.total, i < kSemanticSections ? &report.semantic : &report.syntactic}) {
      sum->questions += s.questions;
      sum->answered += s.answered;
      sum->correct += s.correct;
    }
  }
  return report;
}

double Spearman(const std::vector<double>& x, const std::vector<double>& y) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
      const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
      for (size_t k = i; k <= j; ++k) r[order[k]] = mean;
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  if (n < 2) return 0;
  const double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n, my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

absl::StatusOr<SimilarityReport> EvaluateSimilarity(const UnitVectors& unit, std::string_view text,
                                                    const std::string& name, bool case_sensitive) {
  SimilarityReport report;
  std::vector<double> human, model;
  int64_t line_number = 0;
  bool first = true;
  for (std::string_view line : Lines(text)) {
    ++line_number;
    std::vector<std::string_view> f = Fields(line);
    if (f.empty() || f[0].front() == '#') continue;
    double score = 0;
    bool numeric = false;
    if (f.size() >= 3) {
      auto [ptr, ec] = std::from_chars(f[2].data(), f[2].data() + f[2].size(), score);
      numeric = ec == std::errc() && ptr == f[2].data() + f[2].size() && std::isfinite(score);
    }
    if (!numeric) {
      if (first) {  // a header line such as SimLex's `word1 word2 POS SimLex999 ...`
        first = false;
        continue;
      }
      return absl::InvalidArgumentError(fmt::format(
          "'{}' line {}: a similarity line is `word1 word2 score` with a numeric score", name, line_number));
    }
    first = false;
    ++report.pairs;
    const int64_t a = unit.Find(f[0], case_sensitive), b = unit.Find(f[1], case_sensitive);
    if (a < 0 || b < 0) continue;
    ++report.used;
    human.push_back(score);
    model.push_back(BestKernels().dot(unit.row(a), unit.row(b), unit.dim()));
  }
  report.spearman = Spearman(human, model);
  return report;
}

}  // namespace tokvec::word2vec
