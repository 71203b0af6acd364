// The command table. Add a command: write cmd_<name>.cpp defining int cmd<Name>(int, char**),
// declare it here and add a row.
#include "app/cli/commands.h"

namespace ks::cli {

int cmdPrint(int argc, char** argv);
int cmdCheck(int argc, char** argv);

const Command kCommands[] = {
    {"check", "check [--devices L] [--min-pass P] [--summary] [--verbose] [--timeout S] DIR...   run ONNX backend-test folders",
     cmdCheck},
    {"print", "print FILE [--dump]   parse a .ks/.onnx program and print it (--dump: the e-graph)", cmdPrint},
};
const int kNumCommands = sizeof(kCommands) / sizeof(kCommands[0]);

}  // namespace ks::cli
