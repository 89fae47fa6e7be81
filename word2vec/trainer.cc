#include "word2vec/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <thread>

#include "fmt/format.h"
#include "word2vec/kernels.h"
#include "word2vec/sampling.h"

namespace tokvec::word2vec {
namespace {

// word2vec.c's limits: a sentence is at most this many (kept) words; sigmoid arguments past +-kMaxExp count as
// saturated.
constexpr int64_t kMaxSentence = 1000;
constexpr float kMaxExp = 6.0f;
// How often (in words read by one thread) Hogwild threads publish their count and recompute alpha.
constexpr int64_t kAlphaEvery = 10000;

// word2vec.c's linear congruential generator (same constants as Java's Random), one per thread or block.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    state = state * 25214903917ULL + 11;
    return state;
  }
};

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser: independent streams from (seed, epoch, block)
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The logistic function on [-kMaxExp, kMaxExp] from a table, as word2vec.c's expTable. (word2vec.c indexes its
// 1000 entries with (f + 6) * (1000 / 6 / 2) in integer arithmetic, i.e. * 83, which reads the value of a point
// about 0.02 left of f; this table is indexed exactly.)
class SigmoidTable {
 public:
  SigmoidTable() {
    for (int i = 0; i <= kSize; ++i) {
      const double x = (static_cast<double>(i) / kSize * 2 - 1) * kMaxExp;
      values_[i] = static_cast<float>(1.0 / (1.0 + std::exp(-x)));
    }
  }
  // f must be in [-kMaxExp, kMaxExp].
  float operator()(float f) const { return values_[static_cast<int>((f + kMaxExp) * (kSize / (2 * kMaxExp)) + 0.5f)]; }

 private:
  static constexpr int kSize = 4096;
  float values_[kSize + 1];
};

// Everything the workers read and nothing they write.
struct Model {
  const TrainOptions& options;
  const Kernels& k;
  int64_t dim;
  int64_t vocab_size;
  int64_t total;            // Words per epoch (train_words).
  float start_alpha;
  SigmoidTable sigmoid;
  NegativeSampler negatives;
  HuffmanCodes huffman;
  std::vector<float> keep;  // [V] subsampling: a word is kept when a 16-bit random value is <= keep[w].

  float AlphaAt(double words_done) const {
    // Linear decay to zero over all epochs, floored at 1e-4 of the start (word2vec.c).
    const double a = start_alpha * (1 - words_done / (static_cast<double>(options.epochs) * total + 1));
    return static_cast<float>(std::max(a, start_alpha * 1e-4));
  }
};

// Rows of the shared matrices, used in place (Hogwild).
struct SharedRows {
  float* input;   // [V, D] syn0
  float* output;  // [V, D] syn1neg, or [V - 1, D] syn1 (Huffman inner nodes)
  size_t dim;
  float* In(int64_t w) { return input + static_cast<size_t>(w) * dim; }
  float* Out(int64_t r) { return output + static_cast<size_t>(r) * dim; }
};

// A block's private copies of the rows it touches (deterministic mode): a row is copied from the round's weights
// on first use, then trained in place; Finish() turns the copies into changes (copy - weights).
struct LocalRows {
  // One block's rows of one matrix; kept per block of a round and reused (capacity and all) by later rounds:
  // fresh vectors per block cost about a third of the run in copies and page faults (perf, 1 thread).
  struct Changes {
    std::vector<int32_t> rows;  // touched rows in first-touch order
    std::vector<float> values;  // [rows.size(), D] the block's copies, then (copy - weights)
  };
  struct Side {
    const float* weights = nullptr;  // [rows, D] the round's starting weights (read only during a round)
    std::vector<int32_t> slot;       // [rows] index into changes->rows, -1 when untouched (per worker)
    Changes* changes = nullptr;      // the block being trained
    float* Get(int64_t r, size_t dim) {
      int32_t& s = slot[static_cast<size_t>(r)];
      if (s < 0) {
        s = static_cast<int32_t>(changes->rows.size());
        changes->rows.push_back(static_cast<int32_t>(r));
        changes->values.insert(changes->values.end(), weights + static_cast<size_t>(r) * dim,
                               weights + static_cast<size_t>(r + 1) * dim);
      }
      return changes->values.data() + static_cast<size_t>(s) * dim;
    }
    void Start(Changes* block) {
      changes = block;
      changes->rows.clear();
      changes->values.clear();
    }
    void Finish(size_t dim) {
      for (size_t i = 0; i < changes->rows.size(); ++i) {
        const float* w = weights + static_cast<size_t>(changes->rows[i]) * dim;
        float* v = changes->values.data() + i * dim;
        for (size_t d = 0; d < dim; ++d) v[d] -= w[d];
        slot[static_cast<size_t>(changes->rows[i])] = -1;
      }
    }
  };
  Side in, out;
  size_t dim;
  float* In(int64_t w) { return in.Get(w, dim); }
  float* Out(int64_t r) { return out.Get(r, dim); }
};

// The per-thread vectors of one training step.
struct Scratch {
  std::vector<int32_t> sentence;
  std::vector<float> neu1;  // [D] CBOW: mean of the context vectors
  std::vector<float> grad;  // [D] gradient for the input vector(s) (word2vec.c's neu1e)
  explicit Scratch(int64_t dim) : neu1(static_cast<size_t>(dim)), grad(static_cast<size_t>(dim)) {
    sentence.reserve(kMaxSentence);
  }
};

// One target word against `input` (a context vector for skip-gram, the context mean for CBOW); adds the gradient
// for `input` to `grad` and updates the output rows. Negative sampling (2013b, eq. 4): the target with label 1
// and `negative` words drawn from unigram^0.75 with label 0; g = (label - sigmoid(input . out)) * alpha.
template <typename Rows>
void LearnNegative(const Model& m, Rows& rows, Rng& rng, int32_t word, const float* input, float* grad, float alpha) {
  const int64_t dim = m.dim;
  for (int64_t d = 0; d <= m.options.negative; ++d) {
    int64_t target;
    float label;
    if (d == 0) {
      target = word;
      label = 1;
    } else {
      const uint64_t r = rng.Next();
      target = m.negatives.Sample(r >> 16);
      if (target == 0) target = static_cast<int64_t>(r % static_cast<uint64_t>(m.vocab_size - 1)) + 1;
      if (target == word) continue;
      label = 0;
    }
    float* out = rows.Out(target);  // [D]
    const float f = m.k.dot(input, out, dim);
    float g;
    if (f > kMaxExp) {
      g = (label - 1) * alpha;
    } else if (f < -kMaxExp) {
      g = label * alpha;
    } else {
      g = (label - m.sigmoid(f)) * alpha;
    }
    m.k.update(g, out, input, grad, dim);
  }
}

// Hierarchical softmax (2013a section 3.1; 2013b section 2.1): one binary decision per inner node on the
// target's Huffman path, g = (1 - code - sigmoid(input . node)) * alpha; saturated nodes are skipped.
template <typename Rows>
void LearnHierarchical(const Model& m, Rows& rows, int32_t word, const float* input, float* grad, float alpha) {
  const int64_t dim = m.dim;
  const int64_t begin = m.huffman.offsets[static_cast<size_t>(word)];
  const int64_t end = m.huffman.offsets[static_cast<size_t>(word) + 1];
  for (int64_t d = begin; d < end; ++d) {
    float* out = rows.Out(m.huffman.points[static_cast<size_t>(d)]);  // [D]
    const float f = m.k.dot(input, out, dim);
    if (f <= -kMaxExp || f >= kMaxExp) continue;
    const float g = (1 - m.huffman.codes[static_cast<size_t>(d)] - m.sigmoid(f)) * alpha;
    m.k.update(g, out, input, grad, dim);
  }
}

template <typename Rows>
void Learn(const Model& m, Rows& rows, Rng& rng, int32_t word, const float* input, float* grad, float alpha) {
  if (m.options.loss == Loss::kNegative) {
    LearnNegative(m, rows, rng, word, input, grad, alpha);
  } else {
    LearnHierarchical(m, rows, word, input, grad, alpha);
  }
}

// One sentence: for each position a window b in [0, window) is drawn and the words at distance
// 1..window - b on each side are its context (2013a: "dynamic window", nearer words weigh more on average).
template <typename Rows>
void TrainSentence(const Model& m, Rows& rows, Rng& rng, Scratch& s, float alpha) {
  const int64_t n = static_cast<int64_t>(s.sentence.size());
  const int64_t window = m.options.window, dim = m.dim;
  float* grad = s.grad.data();
  for (int64_t i = 0; i < n; ++i) {
    const int32_t word = s.sentence[static_cast<size_t>(i)];
    const int64_t b = static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(window));
    const int64_t lo = std::max<int64_t>(0, i - window + b), hi = std::min<int64_t>(n - 1, i + window - b);
    if (m.options.arch == Arch::kCbow) {
      // CBOW (2013a section 3.1): predict the word from the mean of its context vectors.
      float* neu1 = s.neu1.data();
      std::fill(s.neu1.begin(), s.neu1.end(), 0.0f);
      int64_t cw = 0;
      for (int64_t c = lo; c <= hi; ++c) {
        if (c == i) continue;
        m.k.axpy(1.0f, rows.In(s.sentence[static_cast<size_t>(c)]), neu1, dim);
        ++cw;
      }
      if (cw == 0) continue;
      const float inv = 1.0f / static_cast<float>(cw);
      for (int64_t d = 0; d < dim; ++d) neu1[d] *= inv;
      std::fill(s.grad.begin(), s.grad.end(), 0.0f);
      Learn(m, rows, rng, word, neu1, grad, alpha);
      for (int64_t c = lo; c <= hi; ++c) {
        if (c == i) continue;
        m.k.axpy(1.0f, grad, rows.In(s.sentence[static_cast<size_t>(c)]), dim);
      }
    } else {
      // Skip-gram (2013a section 3.2): each context word's vector predicts the word (word2vec.c's orientation).
      for (int64_t c = lo; c <= hi; ++c) {
        if (c == i) continue;
        float* input = rows.In(s.sentence[static_cast<size_t>(c)]);  // [D]
        std::fill(s.grad.begin(), s.grad.end(), 0.0f);
        Learn(m, rows, rng, word, input, grad, alpha);
        m.k.axpy(1.0f, grad, input, dim);
      }
    }
  }
}

// Trains on ids[begin, end): sentences end at "</s>" (id 0) or after kMaxSentence kept words; frequent words are
// dropped with the probability of 2013b eq. 5 in word2vec.c's form (see Model::keep). `on_read(n)` is told how
// many words each sentence consumed and returns the alpha to use.
template <typename Rows, typename OnRead>
void TrainSpan(const Model& m, Rows& rows, Rng& rng, Scratch& s, const int32_t* ids, int64_t begin, int64_t end,
               OnRead on_read) {
  const bool subsample = m.options.sample > 0;
  int64_t pos = begin;
  while (pos < end) {
    s.sentence.clear();
    const int64_t start = pos;
    while (pos < end) {
      const int32_t w = ids[pos++];
      if (w == 0) break;
      if (subsample && static_cast<float>(rng.Next() & 0xFFFF) > m.keep[static_cast<size_t>(w)]) continue;
      s.sentence.push_back(w);
      if (static_cast<int64_t>(s.sentence.size()) >= kMaxSentence) break;
    }
    const float alpha = on_read(pos - start);
    TrainSentence(m, rows, rng, s, alpha);
  }
}

void TrainHogwild(const Model& m, const std::vector<int32_t>& ids, float* input, float* output) {
  const TrainOptions& o = m.options;
  const int64_t n = static_cast<int64_t>(ids.size());
  std::atomic<int64_t> words_done{0};
  const auto started = std::chrono::steady_clock::now();
  auto worker = [&](int t) {
    SharedRows rows{input, output, static_cast<size_t>(m.dim)};
    Scratch scratch(m.dim);
    Rng rng{Mix(o.seed * 1000003 + static_cast<uint64_t>(t))};
    const int64_t begin = n * t / o.threads, end = n * (t + 1) / o.threads;
    float alpha = m.start_alpha;
    int64_t unpublished = 0;
    auto last_report = started;
    for (int64_t epoch = 0; epoch < o.epochs; ++epoch) {
      TrainSpan(m, rows, rng, scratch, ids.data(), begin, end, [&](int64_t read) {
        unpublished += read;
        if (unpublished > kAlphaEvery) {
          const int64_t done = words_done.fetch_add(unpublished, std::memory_order_relaxed) + unpublished;
          unpublished = 0;
          alpha = m.AlphaAt(static_cast<double>(done));
          if (t == 0 && o.progress) {
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report > std::chrono::milliseconds(500)) {
              last_report = now;
              const double seconds = std::chrono::duration<double>(now - started).count();
              o.progress(static_cast<double>(done) / (static_cast<double>(o.epochs) * n), alpha, done / seconds);
            }
          }
        }
        return alpha;
      });
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < o.threads; ++t) threads.emplace_back(worker, t);
  worker(0);
  for (auto& thread : threads) thread.join();
}

void TrainDeterministic(const Model& m, const std::vector<int32_t>& ids, float* input, float* output,
                        int64_t output_rows) {
  const TrainOptions& o = m.options;
  const int64_t n = static_cast<int64_t>(ids.size());
  const size_t dim = static_cast<size_t>(m.dim);
  const int64_t blocks = (n + kBlockTokens - 1) / kBlockTokens;
  const int threads = static_cast<int>(std::min<int64_t>(o.threads, kBlocksPerRound));
  const auto started = std::chrono::steady_clock::now();
  // Per worker: the slot tables (sized once) and scratch vectors.
  struct Worker {
    LocalRows rows;
    Scratch scratch;
  };
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t) {
    auto w = std::make_unique<Worker>(Worker{LocalRows{}, Scratch(m.dim)});
    w->rows.dim = dim;
    w->rows.in.weights = input;
    w->rows.in.slot.assign(static_cast<size_t>(m.vocab_size), -1);
    w->rows.out.weights = output;
    w->rows.out.slot.assign(static_cast<size_t>(output_rows), -1);
    workers.push_back(std::move(w));
  }
  std::vector<LocalRows::Changes> in_changes(kBlocksPerRound), out_changes(kBlocksPerRound);  // by block of the round
  for (int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    for (int64_t first = 0; first < blocks; first += kBlocksPerRound) {
      const int64_t count = std::min(kBlocksPerRound, blocks - first);
      // 1. Each block trains on copies of its rows, from the weights as they are now.
      std::atomic<int64_t> next{0};
      auto run = [&](int t) {
        Worker& w = *workers[static_cast<size_t>(t)];
        for (int64_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
          const int64_t block = first + i;
          const int64_t begin = block * kBlockTokens, end = std::min(n, begin + kBlockTokens);
          Rng rng{Mix(Mix(o.seed) ^ Mix(static_cast<uint64_t>(epoch) << 40 | static_cast<uint64_t>(block)))};
          const float alpha = m.AlphaAt(static_cast<double>(epoch * n + begin));
          w.rows.in.Start(&in_changes[static_cast<size_t>(i)]);
          w.rows.out.Start(&out_changes[static_cast<size_t>(i)]);
          TrainSpan(m, w.rows, rng, w.scratch, ids.data(), begin, end, [alpha](int64_t) { return alpha; });
          w.rows.in.Finish(dim);
          w.rows.out.Finish(dim);
        }
      };
      std::vector<std::thread> pool;
      for (int t = 1; t < threads; ++t) pool.emplace_back(run, t);
      run(0);
      for (auto& thread : pool) thread.join();
      // 2. Add the blocks' changes in block order: the same sums in the same order for any thread count.
      for (int64_t i = 0; i < count; ++i) {
        for (auto [side, weights] : {std::pair{&in_changes[static_cast<size_t>(i)], input},
                                     std::pair{&out_changes[static_cast<size_t>(i)], output}}) {
          for (size_t r = 0; r < side->rows.size(); ++r) {
            m.k.axpy(1.0f, side->values.data() + r * dim, weights + static_cast<size_t>(side->rows[r]) * dim,
                     m.dim);
          }
        }
      }
      if (o.progress) {
        const double done = static_cast<double>(epoch * n + std::min(n, (first + count) * kBlockTokens));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        o.progress(done / (static_cast<double>(o.epochs) * n), m.AlphaAt(done), done / seconds);
      }
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<float>> Train(const Corpus& corpus, const TrainOptions& options) {
  // 1. Check what the options and the vocabulary allow.
  const int64_t vocab_size = static_cast<int64_t>(corpus.vocab.size());
  if (vocab_size < 2) {
    return absl::InvalidArgumentError(
        "no word of the text is seen --min-count times; word2vec needs at least one (use a larger text or a "
        "smaller --min-count)");
  }
  if (options.dim < 1 || options.window < 1 || options.epochs < 1 || options.threads < 1 || options.negative < 0 ||
      options.sample < 0 || options.alpha < 0) {
    return absl::InvalidArgumentError("word2vec options out of range: dim, window, epochs and threads must be >= 1");
  }
  if (options.loss == Loss::kNegative && options.negative < 1) {
    return absl::InvalidArgumentError("--loss ns needs --negative >= 1");
  }
  const double floats = 2.0 * static_cast<double>(vocab_size) * static_cast<double>(options.dim);
  if (floats > 4e9) {
    return absl::ResourceExhaustedError(fmt::format(
        "{} words x {} dims need {:.1f} GB of weights; lower --dim, raise --min-count or set --max-vocab",
        vocab_size, options.dim, floats * 4 / 1e9));
  }
  // 2. Tables: sigmoid, unigram^0.75 sampler or Huffman codes, subsampling thresholds.
  Model m{options, BestKernels(), options.dim, vocab_size, corpus.vocab.total(),
          static_cast<float>(options.alpha > 0 ? options.alpha : options.arch == Arch::kCbow ? 0.05 : 0.025),
          SigmoidTable(), NegativeSampler(), HuffmanCodes(), {}};
  if (options.loss == Loss::kNegative) {
    m.negatives = NegativeSampler(corpus.vocab.counts);
  } else {
    m.huffman = HuffmanCodes(corpus.vocab.counts);
  }
  m.keep.resize(static_cast<size_t>(vocab_size));
  const double threshold = options.sample * static_cast<double>(m.total);
  for (size_t w = 0; w < m.keep.size(); ++w) {
    // 2013b eq. 5 as word2vec.c computes it: keep with probability (sqrt(f / (t N)) + 1) * (t N) / f, where f is
    // the word's count and N the words in the text (values >= 1 always keep).
    const double f = static_cast<double>(corpus.vocab.counts[w]);
    const double keep = f > 0 ? (std::sqrt(f / threshold) + 1) * threshold / f : 1.0;
    m.keep[w] = static_cast<float>(std::min(keep, 2.0) * 65536.0);
  }
  // 3. Weights: input vectors uniform in [-0.5, 0.5) / dim from word2vec.c's generator started at the seed
  //    (seed 1 gives word2vec.c's own start), output vectors zero.
  std::vector<float> input, output;
  const int64_t output_rows = options.loss == Loss::kNegative ? vocab_size : vocab_size - 1;
  try {
    input.resize(static_cast<size_t>(vocab_size * options.dim));
    output.assign(static_cast<size_t>(output_rows * options.dim), 0.0f);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(fmt::format("out of memory for {} x {} word vectors", vocab_size, options.dim));
  }
  Rng init{options.seed};
  for (float& v : input) v = (static_cast<float>(init.Next() & 0xFFFF) / 65536.0f - 0.5f) / static_cast<float>(options.dim);
  // 4. Train.
  if (options.deterministic) {
    TrainDeterministic(m, corpus.ids, input.data(), output.data(), output_rows);
  } else {
    TrainHogwild(m, corpus.ids, input.data(), output.data());
  }
  return input;
}

}  // namespace tokvec::word2vec
