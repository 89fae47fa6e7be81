// Placeholder registration until the subcommand lands; it reports that it is not built yet.
#include "cli/command.h"

namespace tokvec::cli {

void RegisterEmbedCommand(CLI::App& app, CommandAction* action) {
  CLI::App* sub = app.add_subcommand("embed", "(not built yet)");
  sub->callback([action] { *action = [] { return absl::UnimplementedError("'embed' is not built yet"); }; });
}

}  // namespace tokvec::cli
