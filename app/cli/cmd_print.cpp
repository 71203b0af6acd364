// `print`: loads a program and prints its e-graph dump (a quick look without compiling), or the
// program as .ks text (--ks: the source, or the graph form for ONNX; --ks-graph: always the graph
// form), which parses back to the same e-graph.
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/io/ks_printer.h"
#include "engine/io/program_source.h"

namespace ks::cli {

int cmdPrint(int argc, char** argv) {
  Args args("print");
  bool dump = false, ks = false, ksGraph = false;
  args.app().add_flag("--dump", dump, "the e-graph dump (the default)");
  args.app().add_flag("--ks", ks, "the program as .ks text");
  args.app().add_flag("--ks-graph", ksGraph, "the e-graph as .ks text");
  args.positionals("FILE", "a .ks program or an .onnx model");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1) throw UsageError{"expects one FILE"};
  Program p = loadProgram(args.positional()[0]);
  if (ks || ksGraph) {
    std::printf("%s", (ksGraph ? printKsGraph(p) : printKs(p)).c_str());
    return 0;
  }
  std::printf("program %s: %zu inputs, %zu params, %zu outputs, %zu classes, key %016llx\n", p.name.c_str(),
              p.inputs.size(), p.params.size(), p.outputs.size(), p.graph.classCount(),
              static_cast<unsigned long long>(p.cacheKey()));
  std::printf("%s", p.graph.dump().c_str());
  return 0;
}

}  // namespace ks::cli
