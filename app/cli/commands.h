// The commands of kernelscope-cli, one file each (cmd_<name>.cpp). Each returns the exit code:
// 0 ok, 1 input or engine error (message on stderr naming file and place), 2 usage.
#pragma once
#include "app/cli/args.h"

namespace ks::cli {

struct Command {
  const char* name;
  const char* usage;  // one line, after "kernelscope-cli "
  int (*run)(int argc, char** argv);  // argv after the command name
};

// Defined in commands.cpp: the table main() dispatches on.
extern const Command kCommands[];
extern const int kNumCommands;

}  // namespace ks::cli
