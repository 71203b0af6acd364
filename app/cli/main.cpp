// kernelscope-cli entry point: dispatches on the command; exit codes per DESIGN.md §4.2.
#include <cstdio>
#include <cstring>
#include <exception>

#include "app/cli/commands.h"
#include "engine/core/error.h"

namespace {
void usage() {
  std::fprintf(stderr, "usage: kernelscope-cli <command> [options]\n\ncommands:\n");
  for (int i = 0; i < ks::cli::kNumCommands; ++i) std::fprintf(stderr, "  %s\n", ks::cli::kCommands[i].usage);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  for (int i = 0; i < ks::cli::kNumCommands; ++i) {
    const ks::cli::Command& c = ks::cli::kCommands[i];
    if (std::strcmp(argv[1], c.name) != 0) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const ks::cli::UsageError& e) {
      std::fprintf(stderr, "kernelscope-cli %s: %s\nusage: kernelscope-cli %s\n", c.name, e.message.c_str(), c.usage);
      return 2;
    } catch (const ks::Error& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      if (e.code() == ks::ErrorCode::Usage) std::fprintf(stderr, "usage: kernelscope-cli %s\n", c.usage);
      return e.code() == ks::ErrorCode::Usage ? 2 : 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "kernelscope-cli: unknown command '%s'\n", argv[1]);
  usage();
  return 2;
}
