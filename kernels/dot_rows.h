// Dot products of queries with many rows, each summed in one fixed order, so a score depends only on the two
// vectors: not on how many queries or rows are scored together, the thread count, or the CPU's vector width
// (a GEMM library picks kernels by the matrices' shapes, and a 1-query call can round differently from a
// 100-query call). Exact top-k search (retrieval/vector_search.h) scores with it.
//
//   DotRows(queries, 3, rows, n, d, scores);   // scores[q * n + i] = queries[q] . rows[i]
//
// The order: the d products are taken 16 at a time (chunk c holds elements 16c .. 16c + 15, the last padded with
// zeros); lane l of one accumulator adds the product of element 16c + l with a fused multiply-add, chunks in
// increasing order; then the 16 lanes are summed as a tree (l + l+8, then + l+4, + l+2, + l+1). The AVX-512 path
// (tiles of 4 queries x 4 rows: 16 independent accumulators), the AVX2+FMA path (two 8-lane halves per chunk) and
// the portable loop (std::fma) all follow it, so they give the same bits.
#ifndef TOKVEC_KERNELS_DOT_ROWS_H_
#define TOKVEC_KERNELS_DOT_ROWS_H_

#include <cstdint>

namespace tokvec {

// scores[q * n + i] = queries[q] . rows[i] for nq queries and n rows of d floats each (row-major).
void DotRows(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores);

// The AVX2 + FMA path alone, for tests on machines that would take the AVX-512 one; false (nothing written)
// when the CPU lacks AVX2 or FMA.
bool DotRowsAvx2Fma(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores);

// The portable loop alone (the reference the vector paths are tested against).
void DotRowsPortable(const float* queries, int64_t nq, const float* rows, int64_t n, int64_t d, float* scores);

}  // namespace tokvec

#endif  // TOKVEC_KERNELS_DOT_ROWS_H_
