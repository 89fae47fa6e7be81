// tokvec: one binary, one subcommand per job. See README.md for examples.
#include <cstdio>
#include <string>

#include "absl/strings/match.h"
#include "base/file_io.h"
#include "cli/command.h"
#include "distributed/world.h"
#include "kernels/ops.h"

int main(int argc, char** argv) {
  tokvec::InstallInterruptCleanup();
  tokvec::UseSingleThreadedBlas();  // Our threads only: OpenBLAS's idle workers would spin on a core at start.
  CLI::App app{"tokvec: BPE tokenizer, embeddings and self-attention, from text to contextual vectors"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  tokvec::cli::CommandAction action;
  tokvec::cli::RegisterTrainCommand(app, &action);
  tokvec::cli::RegisterCountCommand(app, &action);
  tokvec::cli::RegisterInspectCommand(app, &action);
  tokvec::cli::RegisterEncodeCommand(app, &action);
  tokvec::cli::RegisterDecodeCommand(app, &action);
  tokvec::cli::RegisterConvertCommand(app, &action);
  tokvec::cli::RegisterExtendCommand(app, &action);
  tokvec::cli::RegisterInitCommand(app, &action);
  tokvec::cli::RegisterFitCommand(app, &action);
  tokvec::cli::RegisterEvalCommand(app, &action);
  tokvec::cli::RegisterEmbedCommand(app, &action);
  tokvec::cli::RegisterAttendCommand(app, &action);
  tokvec::cli::RegisterBenchCommand(app, &action);
  tokvec::cli::RegisterWord2VecCommand(app, &action);
  tokvec::cli::RegisterServeCommand(app, &action);
  tokvec::cli::RegisterSearchCommand(app, &action);
  tokvec::cli::RegisterRerankCommand(app, &action);
  tokvec::cli::RegisterClassifyCommand(app, &action);
  // CLI11 reports "A subcommand is required" before it looks at unknown words; name the unknown word instead.
  if (argc >= 2) {
    const std::string first = argv[1];
    std::string names;
    bool known = first == "-h" || first == "--help" || first == "--help-all";
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == first;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "error: unknown %s '%s'; the subcommands are %s (see 'tokvec --help')\n",
                   first.starts_with('-') ? "option" : "subcommand", first.c_str(), names.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s\nRun 'tokvec --help' (or 'tokvec SUBCOMMAND --help') for usage.\n", e.what());
    return 2;
  }
  if (!action) return 0;
  // A binary without MPI under `mpirun -np P` (P > 1) would run P whole copies that race on the output.
  if (absl::Status launcher = tokvec::distributed::CheckLauncher(); !launcher.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(launcher.message()).c_str());
    return 1;
  }
  absl::Status status = action();
  if (!status.ok()) {
    if (tokvec::IsClosedPipe(status)) return 141;  // The reader of standard output went away: stop quietly.
    std::string message(status.message());
    const bool usage = absl::StartsWith(message, tokvec::cli::kUsagePrefix);
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return usage ? 2 : 1;
  }
  return 0;
}
