// Status helpers that Abseil 20220623 does not ship.
//
//   TOKVEC_RETURN_IF_ERROR(file.Close());
//   TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
#ifndef TOKVEC_BASE_STATUS_MACROS_H_
#define TOKVEC_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TOKVEC_STATUS_CONCAT_INNER_(a, b) a##b
#define TOKVEC_STATUS_CONCAT_(a, b) TOKVEC_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define TOKVEC_RETURN_IF_ERROR(expr)                  \
  do {                                                \
    ::absl::Status tokvec_status_ = (expr);           \
    if (!tokvec_status_.ok()) return tokvec_status_;  \
  } while (0)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, else moves the value into `lhs`.
#define TOKVEC_ASSIGN_OR_RETURN(lhs, rexpr) \
  TOKVEC_ASSIGN_OR_RETURN_IMPL_(TOKVEC_STATUS_CONCAT_(tokvec_statusor_, __LINE__), lhs, rexpr)

#define TOKVEC_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

#endif  // TOKVEC_BASE_STATUS_MACROS_H_
