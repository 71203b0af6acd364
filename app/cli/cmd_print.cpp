// `print`: loads a program and prints its e-graph dump (a quick look without compiling), or the
// program as .ks text (--ks: the source, or the graph form for ONNX; --ks-graph: always the graph
// form), which parses back to the same e-graph; --weights DIR writes parameter data as .npy files
// beside it instead of inline lists; or the ONNX nodes it was imported from (--onnx-nodes, also
// from a session of a model, which keeps them).
#include <cstdio>
#include <filesystem>

#include "app/cli/commands.h"
#include "app/cli/onnx_node_table.h"
#include "app/cli/program_loader.h"
#include "engine/core/file_io.h"
#include "engine/io/ks_printer.h"
#include "engine/io/program_source.h"
#include "engine/session/session.h"

namespace ks::cli {

int cmdPrint(int argc, char** argv) {
  Args args("print");
  bool dump = false, ks = false, ksGraph = false, onnxNodes = false, json = false;
  args.app().add_flag("--dump", dump, "the e-graph dump (the default)");
  args.app().add_flag("--ks", ks, "the program as .ks text");
  args.app().add_flag("--ks-graph", ksGraph, "the e-graph as .ks text");
  args.app().add_flag("--onnx-nodes", onnxNodes, "the ONNX nodes of a model: name, op type, inputs, outputs, shapes, classes");
  args.app().add_flag("--json", json, "with --onnx-nodes: a JSON array");
  std::string weightsDir, outPath;
  args.app().add_option("--weights", weightsDir,
                        "with --ks: write parameter data as DIR/NAME.npy, read back by data(...) (implies the graph form)");
  args.app().add_option("--out", outPath, "write the .ks text to this file (data paths are then relative to it)");
  args.positionals("FILE", "a .ks program or an .onnx model (with --onnx-nodes also a .kss.json session of a model)");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1) throw UsageError{"expects one FILE"};
  if (json && !onnxNodes) throw UsageError{"--json goes with --onnx-nodes"};
  if (!ks && !ksGraph && (!weightsDir.empty() || !outPath.empty()))
    throw UsageError{"--weights and --out go with --ks or --ks-graph"};
  const std::string& file = args.positional()[0];
  if (onnxNodes) {
    // A model's table comes from the model or from a session compiled from one (it keeps it); a
    // .ks program has none: an error says so rather than an empty table.
    const bool session = file.ends_with(".kss.json");
    if (std::filesystem::path(file).extension() != ".onnx" && !session)
      throw Error(ErrorCode::Unsupported, "not an ONNX model (.onnx) or a session of one: it has no ONNX nodes", {file});
    const Program p = session ? Session::load(file).program() : loadProgram(file);
    if (p.onnxNodes.empty())
      throw Error(ErrorCode::Unsupported, "the session's program was not imported from an ONNX model (or was saved before "
                                          "sessions kept the node table): it has no ONNX nodes", {file});
    std::printf("%s", (json ? onnxNodeTableJson(p) : onnxNodeTableText(p)).c_str());
    return 0;
  }
  Program p = loadProgram(file);
  if (ks || ksGraph) {
    std::string text;
    if (!weightsDir.empty()) {
      namespace fs = std::filesystem;
      KsWeightFiles weights{weightsDir, weightsDir};
      // data("...") is read relative to the .ks file, so name the folder as the output file sees it.
      if (!outPath.empty()) {
        const fs::path from = fs::absolute(fs::path(outPath)).lexically_normal().parent_path();
        weights.reference = fs::absolute(fs::path(weightsDir)).lexically_normal().lexically_relative(from).generic_string();
        if (weights.reference.empty()) weights.reference = fs::absolute(fs::path(weightsDir)).generic_string();
        if (weights.reference == ".") weights.reference.clear();
      }
      text = printKsGraph(p, &weights);
    } else {
      text = ksGraph ? printKsGraph(p) : printKs(p);
    }
    if (outPath.empty()) std::printf("%s", text.c_str());
    else writeFileAtomically(outPath, text, "a .ks program");
    return 0;
  }
  std::printf("program %s: %zu inputs, %zu params, %zu outputs, %zu classes, key %016llx\n", p.name.c_str(),
              p.inputs.size(), p.params.size(), p.outputs.size(), p.graph.classCount(),
              static_cast<unsigned long long>(p.cacheKey()));
  std::printf("%s", p.graph.dump().c_str());
  return 0;
}

}  // namespace ks::cli
