// Robustness of the ONNX importer (label long): thousands of mutated models (byte flips and
// truncations, plus structure-aware edits of dims, attributes, op types and input wiring) must
// import or fail with ks::Error, and whatever imports must run on the host executor or fail with
// ks::Error. A crash or another exception type fails the suite. Deterministic (fixed seeds).
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/eval/host_executor.h"
#include "engine/io/onnx_importer.h"
#include "engine/io/onnx_node.h"
#ifdef KS_WITH_ONNX
#include <onnx/onnx_pb.h>
#endif

using namespace ks;
namespace fs = std::filesystem;

namespace {

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> seedModels() {
  std::vector<std::string> r;
  for (const char* s : {"samples/onnx/cnn.onnx", "samples/onnx/attention.onnx"})
    r.push_back(std::string(KS_SOURCE_DIR) + "/" + s);
  const std::string node = "/usr/share/libonnx-testdata/data/node";
  if (fs::exists(node))
    for (const char* n : {"test_reshape_reordered_all_dims", "test_slice_neg_steps", "test_conv_with_autopad_same",
                          "test_convtranspose_pads", "test_maxpool_2d_ceil", "test_averagepool_2d_pads",
                          "test_gather_elements_negative_indices", "test_resize_upsample_scales_cubic",
                          "test_einsum_batch_diagonal", "test_nllloss_NCd1d2d3_sum_weight_high_ii_expanded",
                          "test_scatternd_add", "test_top_k", "test_pad", "test_split_variable_parts_2d",
                          "test_layer_normalization_4d_axis_negative_2_expanded", "test_cumsum_2d_axis_1",
                          "test_range_int32_type_negative_delta_expanded", "test_onehot_with_axis", "test_tile_precomputed",
                          "test_expand_dim_changed", "test_unsqueeze_negative_axes", "test_trilu_square_neg"})
      if (fs::exists(node + "/" + n)) r.push_back(node + "/" + n + "/model.onnx");
  return r;
}

// Imports and, when that works and the leaves are small, runs. Only ks::Error may come out.
void tryModel(const std::string& bytes, int& imported, int& ran) {
  try {
    OnnxImportResult r = importOnnxBytes(bytes, "fuzz.onnx");
    ++imported;
    int64_t total = 0;
    for (const auto& l : r.program.graph.leaves()) total += numel(l.shape);
    for (const auto& o : r.program.outputs) total += numel(r.program.graph.shape(o.cls));
    if (total > (int64_t{1} << 22)) return;
    HostExecutor::run(r.program.graph, r.program.outputClasses(), bindLeaves(r.program, {}, 1));
    ++ran;
  } catch (const Error&) {
  }
}

}  // namespace

class TestLongOnnxFuzz : public QObject {
  Q_OBJECT

 private slots:
  void byteMutations() {
    std::mt19937_64 rng(7);
    int imported = 0, ran = 0, cases = 0;
    for (const auto& path : seedModels()) {
      const std::string seed = readBytes(path);
      QVERIFY2(!seed.empty(), path.c_str());
      for (int k = 0; k < 300; ++k, ++cases) {
        std::string b = seed;
        switch (rng() % 4) {
          case 0: b.resize(rng() % b.size()); break;
          case 1:
            for (int f = 0; f < 1 + static_cast<int>(rng() % 4); ++f) b[rng() % b.size()] ^= static_cast<char>(1 << (rng() % 8));
            break;
          case 2: b[rng() % b.size()] = static_cast<char>(rng()); break;
          default: {
            const std::size_t at = rng() % b.size(), len = std::min<std::size_t>(rng() % 16, b.size() - at);
            b.insert(rng() % b.size(), b.substr(at, len));
          }
        }
        tryModel(b, imported, ran);
      }
    }
    qInfo("byte mutations: %d cases, %d imported, %d ran", cases, imported, ran);
  }

  void structureMutations() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    std::mt19937_64 rng(11);
    const std::vector<std::string> ops = onnxSupportedOps();
    int imported = 0, ran = 0, cases = 0;
    for (const auto& path : seedModels()) {
      onnx::ModelProto seed;
      QVERIFY(seed.ParseFromString(readBytes(path)));
      for (int k = 0; k < 300; ++k, ++cases) {
        onnx::ModelProto m = seed;
        auto* g = m.mutable_graph();
        for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e) {
          const int what = static_cast<int>(rng() % 6);
          if (what == 0 && g->input_size() > 0) {  // change an input dim
            auto* sh = g->mutable_input(rng() % g->input_size())->mutable_type()->mutable_tensor_type()->mutable_shape();
            if (sh->dim_size() > 0) sh->mutable_dim(rng() % sh->dim_size())->set_dim_value(static_cast<int64_t>(rng() % 9) - 1);
          } else if (what == 1 && g->node_size() > 0) {  // change an int attribute
            auto* n = g->mutable_node(rng() % g->node_size());
            if (n->attribute_size() > 0) {
              auto* a = n->mutable_attribute(rng() % n->attribute_size());
              const int64_t v = static_cast<int64_t>(rng() % 11) - 5;
              if (a->ints_size() > 0) a->set_ints(rng() % a->ints_size(), v);
              else a->set_i(v);
            }
          } else if (what == 2 && g->node_size() > 0) {  // another op type
            g->mutable_node(rng() % g->node_size())->set_op_type(ops[rng() % ops.size()]);
          } else if (what == 3 && g->node_size() > 0) {  // rewire an input
            auto* n = g->mutable_node(rng() % g->node_size());
            if (n->input_size() > 0 && g->input_size() > 0) n->set_input(rng() % n->input_size(), g->input(rng() % g->input_size()).name());
          } else if (what == 4 && g->initializer_size() > 0) {  // bad initializer dims
            auto* t = g->mutable_initializer(rng() % g->initializer_size());
            if (t->dims_size() > 0) t->set_dims(rng() % t->dims_size(), static_cast<int64_t>(rng() % 5) - 1);
          } else if (what == 5 && g->node_size() > 0) {  // drop a node
            g->mutable_node()->DeleteSubrange(static_cast<int>(rng() % g->node_size()), 1);
          }
        }
        std::string b;
        m.SerializeToString(&b);
        tryModel(b, imported, ran);
      }
    }
    qInfo("structure mutations: %d cases, %d imported, %d ran", cases, imported, ran);
#endif
  }
};

QTEST_GUILESS_MAIN(TestLongOnnxFuzz)
#include "test_long_onnx_fuzz.moc"
