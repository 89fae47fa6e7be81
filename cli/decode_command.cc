// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterDecodeCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("decode", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'decode' is not built yet"); }; });
}

}  // namespace tokvec::cli
