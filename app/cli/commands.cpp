// The command table. Add a command: write cmd_<name>.cpp defining int cmd<Name>(int, char**),
// declare it here and add a row.
#include "app/cli/commands.h"

namespace ks::cli {

int cmdPrint(int argc, char** argv);
int cmdCheck(int argc, char** argv);
int cmdDevices(int argc, char** argv);
int cmdRun(int argc, char** argv);

const Command kCommands[] = {
    {"devices", "devices [--json]   list every device: host, opencl:P:D, openblas", cmdDevices},
    {"run",
     "run FILE [--devices L] [--input NAME=FILE]... [--seed N] [--verify] [--save-outputs DIR] [--tune none|quick|full] "
     "[--cache PATH|none] [--session OUT.kss.json] [--json]   compile, tune, plan, execute",
     cmdRun},
    {"check", "check [--devices L] [--min-pass P] [--summary] [--verbose] [--timeout S] DIR...   run ONNX backend-test folders",
     cmdCheck},
    {"print", "print FILE [--dump] [--ks] [--ks-graph]   parse a .ks/.onnx program and print its e-graph, or (--ks) the program as .ks text", cmdPrint},
};
const int kNumCommands = sizeof(kCommands) / sizeof(kCommands[0]);

}  // namespace ks::cli
