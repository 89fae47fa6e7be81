// Usage errors found after parsing (exit code 2, see cli/command.h): the message with kUsagePrefix in front.
//
//   return absl::InvalidArgumentError(UsageErrorText("--threads must be > 0"));   // "usage: --threads must be > 0"
#ifndef TOKVEC_CLI_USAGE_ERROR_H_
#define TOKVEC_CLI_USAGE_ERROR_H_

#include <string>

#include "cli/command.h"

namespace tokvec::cli {

// A command-line usage error (exit code 2, see command.h).
inline std::string UsageErrorText(const std::string& text) { return std::string(kUsagePrefix) + text; }

}  // namespace tokvec::cli

#endif  // TOKVEC_CLI_USAGE_ERROR_H_
