// The ONNX nodes a program was imported from, as a table (name, op type, operands, results), so
// views and the CLI can show the model as its author wrote it. The classes each node made are not
// stored here: the program's Provenance already names the node of every class it created.
#pragma once
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/graph/graph.h"

namespace ks {

class Provenance;

struct OnnxNodeInfo {
  std::string name;  // the node's name, or "<op type>_<index>" when the model leaves it empty
  std::string opType;
  std::vector<std::string> inputs;   // ONNX tensor names; "" = absent optional input
  std::vector<std::string> outputs;  // "" = unused optional output
  std::vector<Shape> outputShapes;   // one per output (empty shape for an unused one)
  std::vector<DType> outputDTypes;
};

// The e-classes (canonical ids, ascending, without repeats) whose places name each node, one list
// per entry of `nodes`. A folded node (all operands constant) made no classes of its own.
std::vector<std::vector<ClassId>> onnxNodeClasses(const std::vector<OnnxNodeInfo>& nodes, const Provenance& places,
                                                  const Graph& g);

// The ONNX name scope of a node: "/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0/conv1"
// ("" for a name with no '/' before its last part).
std::string onnxNameScope(const std::string& nodeName);

}  // namespace ks
