// ONNX import and `check`: the committed samples and Gelu/Mish cases (expected values from
// PyTorch, made by samples/onnx/make_models.py), a spread of ONNX's own node tests (expected values
// from ONNX's reference, libonnx-testdata), shape-subgraph folding, and malformed or unsupported
// models that must give ks::Error naming the place instead of crashing.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/check/onnx_check.h"
#include "engine/eval/host_executor.h"
#include "engine/io/npy.h"
#include "engine/io/onnx_importer.h"
#include "engine/io/program_source.h"
#include "engine/io/tensor_file.h"
#include "engine/session/session.h"
#ifdef KS_WITH_ONNX
#include <onnx/onnx_pb.h>
#endif

using namespace ks;
namespace fs = std::filesystem;

namespace {

const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

std::string src(const std::string& rel) { return std::string(KS_SOURCE_DIR) + "/" + rel; }

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("ks_test_onnx_" + std::to_string(::getpid()) + "_" + name)).string();
}

#ifdef KS_WITH_ONNX
// A one-graph model with float inputs of the given shapes (helpers below add nodes).
onnx::ModelProto modelWithInputs(const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs,
                                 int elemType = onnx::TensorProto::FLOAT) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(17);
  for (const auto& [name, shape] : inputs) {
    auto* in = m.mutable_graph()->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    for (int64_t d : shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  return m;
}
onnx::NodeProto* addNode(onnx::ModelProto& m, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}
void addOutput(onnx::ModelProto& m, const std::string& name) { m.mutable_graph()->add_output()->set_name(name); }
void addIntInit(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> v) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}
std::string bytesOf(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}
#endif

}  // namespace

class TestOnnx : public QObject {
  Q_OBJECT

 private slots:
  // Samples and own cases: each folder is model + inputs + PyTorch's outputs.
  void ownCases_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"mlp", "cnn", "attention", "test_gelu", "test_gelu_tanh", "test_mish", "dynamic_batch"})
      QTest::newRow(n) << n;
  }
  void ownCases() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    QFETCH(QString, name);
    OnnxCaseResult r = checkOnnxCase(src("tests/data/onnx/" + name.toStdString()), {});
    QVERIFY2(r.status == OnnxCaseResult::Status::Pass, r.reason.c_str());
  }

  // A spread of ONNX's node tests over op families, dtypes and both opset styles.
  void nodeCases_data() {
    QTest::addColumn<QString>("name");
    for (const char* n :
         {"test_add_bcast", "test_sub_uint8", "test_div_uint8", "test_pow_types_int32_float32", "test_mod_mixed_sign_int32",
          "test_mod_mixed_sign_float16", "test_cast_FLOAT_to_FLOAT16", "test_cast_DOUBLE_to_FLOAT", "test_where_long_example",
          "test_equal_bcast", "test_xor_bcast4v4d", "test_not_3d", "test_clip_default_int8_min", "test_max_int8",
          "test_mean_example", "test_sum_example", "test_relu", "test_leakyrelu", "test_selu", "test_celu", "test_elu",
          "test_hardswish", "test_hardsigmoid", "test_softplus", "test_softsign", "test_erf", "test_round", "test_sign",
          "test_prelu_broadcast", "test_matmul_4d", "test_gemm_all_attributes", "test_einsum_batch_diagonal",
          "test_einsum_transpose", "test_conv_with_strides_and_asymmetric_padding", "test_convtranspose_dilations",
          "test_convtranspose_output_shape", "test_maxpool_2d_ceil", "test_maxpool_3d_default", "test_maxpool_2d_uint8",
          "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_same_lower", "test_globalaveragepool",
          "test_batchnorm_epsilon", "test_instancenorm_example", "test_layer_normalization_3d_axis1_epsilon",
          "test_softmax_axis_0", "test_logsoftmax_large_number", "test_hardmax_one_hot", "test_reduce_sum_keepdims_random",
          "test_reduce_log_sum_exp_default_axes_keepdims_example", "test_reduce_l2_do_not_keepdims_example",
          "test_argmax_negative_axis_keepdims_random_select_last_index", "test_argmin_no_keepdims_example",
          "test_reshape_negative_extended_dims", "test_reshape_allowzero_reordered", "test_transpose_all_permutations_3",
          "test_flatten_negative_axis1", "test_squeeze_negative_axes", "test_unsqueeze_unsorted_axes",
          "test_concat_3d_axis_negative_1", "test_split_variable_parts_1d", "test_split_equal_parts_2d",
          "test_slice_neg_steps", "test_slice_default_steps", "test_gather_negative_indices", "test_gather_2d_indices",
          "test_gather_elements_negative_indices", "test_expand_dim_changed", "test_edge_pad", "test_reflect_pad",
          "test_constant_pad", "test_constantofshape_int_zeros", "test_shape_start_negative_1", "test_size_example",
          "test_range_float_type_positive_delta", "test_tile", "test_tril_one_row_neg", "test_onehot_negative_indices",
          "test_eyelike_with_dtype", "test_cumsum_2d_negative_axis", "test_cumsum_1d_reverse_exclusive",
          "test_dropout_default_mask_ratio", "test_nllloss_NCd1d2_with_weight_reduction_mean",
          "test_nllloss_NCd1_ii_expanded", "test_sce_NCd1d2d3_sum_weight_high_ii_log_prob",
          "test_castlike_FLOAT_to_DOUBLE_expanded", "test_depthtospace_crd_mode_example",
          "test_resize_downsample_scales_cubic_align_corners", "test_resize_upsample_sizes_nearest_ceil_half_pixel",
          "test_resize_tf_crop_and_resize", "test_top_k_smallest", "test_scatternd_multiply",
          "test_scatter_elements_with_duplicate_indices", "test_gathernd_example_int32_batch_dim1", "test_atan",
          "test_acos", "test_bitshift_right_uint8", "test_quantizelinear_axis", "test_dynamicquantizelinear_min_adjusted",
          "test_compress_negative_axis", "test_nonzero_example", "test_maxpool_with_argmax_2d_precomputed_strides",
          "test_qlinearconv", "test_matmulinteger", "test_blackmanwindow_symmetric", "test_batchnorm_example_training_mode",
          "test_mvn", "test_lrn"})
      QTest::newRow(n) << n;
  }
  void nodeCases() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    QFETCH(QString, name);
    const std::string dir = std::string(kNodeDir) + "/" + name.toStdString();
    if (!fs::exists(kNodeDir)) QSKIP("libonnx-testdata is not installed");
    QVERIFY2(fs::exists(dir), dir.c_str());
    OnnxCaseResult r = checkOnnxCase(dir, {});
    QVERIFY2(r.status == OnnxCaseResult::Status::Pass, r.reason.c_str());
  }

  // The MLP sample imports as one input, five Data parameters (the 10-element last bias is small
  // enough to be a constant) and one output.
  void sampleStructure() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    Program p = loadProgramFile(src("samples/onnx/mlp.onnx"));
    QCOMPARE(p.name, std::string("mlp"));
    QCOMPARE(p.inputs.size(), std::size_t{1});
    QCOMPARE(p.graph.leaf(p.inputs[0].leaf).shape, (Shape{64, 784}));
    QCOMPARE(p.params.size(), std::size_t{5});
    QCOMPARE(p.graph.leaves().size(), std::size_t{7});
    for (const auto& prm : p.params) QVERIFY(prm.init.kind == ParamInit::Kind::Data);
    QCOMPARE(p.outputs.size(), std::size_t{1});
    QCOMPARE(p.graph.shape(p.outputs[0].cls), (Shape{64, 10}));
    QCOMPARE(p.graph.dtype(p.outputs[0].cls), DType::F32);
  }

  // Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds to a static reshape.
  void shapeSubgraphFolds() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    onnx::ModelProto m = modelWithInputs({{"x", {2, 3, 4}}});
    addIntInit(m, "zero", {0});
    addIntInit(m, "minus1", {-1});
    addNode(m, "Shape", {"x"}, {"s"});
    addNode(m, "Gather", {"s", "zero"}, {"n"});  // [2] (1-D index keeps the axis)
    addNode(m, "Concat", {"n", "minus1"}, {"target"})->add_attribute()->CopyFrom([] {
      onnx::AttributeProto a;
      a.set_name("axis");
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(0);
      return a;
    }());
    addNode(m, "Reshape", {"x", "target"}, {"y"});
    addOutput(m, "y");
    OnnxImportResult r = importOnnxBytes(bytesOf(m), "fold.onnx");
    const Program& p = r.program;
    QCOMPARE(p.graph.shape(p.outputs[0].cls), (Shape{2, 12}));
    QCOMPARE(p.graph.leaves().size(), std::size_t{1});  // only x: the shape chain left nothing behind
    HostTensor x(DType::F32, {2, 3, 4});
    for (int i = 0; i < 24; ++i) x.setDouble(i, i * 0.5);
    auto out = HostExecutor::run(p.graph, p.outputClasses(), bindLeaves(p, {{"x", x}}, 0));
    for (int i = 0; i < 24; ++i) QCOMPARE(out[0].getDouble(i), i * 0.5);
#endif
  }

  // A model exported with a dynamic batch (tests/data/gen_dynamic_batch.py) runs at the batch of
  // the data given for its input, through the loader `run --input` uses; PyTorch's outputs at
  // batch 3 and 17 from the one model file.
  void dynamicBatchTakesTheDataBatch() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    const std::string dir = src("tests/data/onnx/dynamic_batch");
    for (const char* set : {"test_data_set_0", "test_data_set_1"}) {
      const HostTensor x = readTensorFile(dir + "/" + set + "/input_0.pb");
      const HostTensor want = readTensorFile(dir + "/" + set + "/output_0.pb");
      LoadedProgram loaded = loadProgramFile(dir + "/model.onnx", {{"x", x}});
      QCOMPARE(loaded.inputs.size(), std::size_t{1});  // x stays an input: only its shape was folded
      const Program& p = loaded.program;
      QCOMPARE(p.graph.shape(p.outputs[0].cls), (Shape{x.shape()[0], 4}));
      SessionOptions o;
      o.devices = "host";
      Session session(p, o);
      const RunRecord& r = session.run(loaded.inputs, false, Progress());
      QCOMPARE(r.outputs.size(), std::size_t{1});
      const std::string diff = compareOnnxOutput(r.outputs[0].value, want, 1e-3, 1e-7);
      QVERIFY2(diff.empty(), (std::string(set) + ": " + diff).c_str());
    }
    // Data given as f64 is cast to the model's f32, as when a .ks program's input is bound.
    const HostTensor x = readTensorFile(dir + "/test_data_set_0/input_0.pb");
    QCOMPARE(loadProgramFile(dir + "/model.onnx", {{"x", x.castTo(DType::F64)}}).program.graph.leaf(0).dtype, DType::F32);
    // Without data the symbolic dim is named; data of another rank is refused naming both shapes.
    try {
      loadProgramFile(dir + "/model.onnx", {});
      QFAIL("a symbolic input without data was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("symbolic") != std::string::npos, e.what());
    }
    try {
      loadProgramFile(dir + "/model.onnx", {{"x", x.reshaped({3, 12})}});
      QFAIL("data of the wrong rank was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("[3, 12], the model says [-1, 3, 4]") != std::string::npos, e.what());
    }
#endif
  }

  // Unsupported op: the error names the node, the op type and the file.
  void unsupportedOpNamesNode() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    onnx::ModelProto m = modelWithInputs({{"x", {4}}});
    addNode(m, "Relu", {"x"}, {"r"}, "first");
    addNode(m, "Unique", {"r"}, {"y"}, "my_unique");
    addOutput(m, "y");
    try {
      importOnnxBytes(bytesOf(m), "model_u.onnx");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Unsupported);
      QCOMPARE(e.where().node, std::string("my_unique"));
      QCOMPARE(e.where().file, std::string("model_u.onnx"));
      QCOMPARE(e.op(), std::string("Unique"));
      const std::string w = e.what();
      QVERIFY2(w.find("my_unique") != std::string::npos && w.find("unsupported op Unique") != std::string::npos, w.c_str());
    }
#endif
  }

  // Unsupported dtype and attribute values are errors naming what is missing.
  void unsupportedDTypeAndAttribute() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    onnx::ModelProto m = modelWithInputs({{"x", {4}}}, onnx::TensorProto::UINT16);
    addNode(m, "Relu", {"x"}, {"y"});
    addOutput(m, "y");
    try {
      importOnnxBytes(bytesOf(m), "u16.onnx");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Unsupported);
      QVERIFY2(std::string(e.what()).find("UINT16") != std::string::npos, e.what());
    }
    onnx::ModelProto g = modelWithInputs({{"x", {4}}});
    auto* n = addNode(g, "Gelu", {"x"}, {"y"}, "g0");
    auto* a = n->add_attribute();
    a->set_name("approximate");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("cubic");
    addOutput(g, "y");
    try {
      importOnnxBytes(bytesOf(g), "gelu.onnx");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(e.where().node, std::string("g0"));
      QVERIFY2(std::string(e.what()).find("cubic") != std::string::npos, e.what());
    }
#endif
  }

  // Malformed files: every prefix of a real model and random bytes give ks::Error or import
  // cleanly (a prefix can be a valid smaller message), never a crash.
  void malformedModels() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const std::string bytes = readBytes(src("samples/onnx/cnn.onnx"));
    QVERIFY(bytes.size() > 1000);
    int errors = 0;
    for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100}, bytes.size() / 3,
                            bytes.size() / 2, bytes.size() - 100, bytes.size() - 1}) {
      try {
        importOnnxBytes(bytes.substr(0, cut), "cut.onnx");
      } catch (const Error& e) {
        ++errors;
        QCOMPARE(e.where().file, std::string("cut.onnx"));
      }
    }
    QCOMPARE(errors, 8);
    std::string noise(4096, '\0');
    uint32_t s = 12345;
    for (auto& ch : noise) ch = static_cast<char>((s = s * 1664525u + 1013904223u) >> 24);
    QVERIFY_THROWS_EXCEPTION(Error, importOnnxBytes(noise, "noise.onnx"));
    // Flipped bytes inside the file: errors or a program, never a crash.
    for (std::size_t at = 200; at < bytes.size(); at += bytes.size() / 37) {
      std::string b = bytes;
      b[at] = static_cast<char>(b[at] ^ 0x5a);
      try {
        importOnnxBytes(b, "flip.onnx");
      } catch (const Error&) {
      }
    }
    QVERIFY_THROWS_EXCEPTION(Error, importOnnxModel(tempPath("does_not_exist.onnx")));
  }

  // A model that uses a name nothing defines.
  void undefinedInput() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    onnx::ModelProto m = modelWithInputs({{"x", {4}}});
    addNode(m, "Add", {"x", "ghost"}, {"y"}, "adder");
    addOutput(m, "y");
    try {
      importOnnxBytes(bytesOf(m), "ghost.onnx");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(e.where().node, std::string("adder"));
      QVERIFY2(std::string(e.what()).find("ghost") != std::string::npos, e.what());
    }
#endif
  }

  // Truncated tensor files are errors; good ones read with their name.
  void tensorFiles() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const std::string pb = src("tests/data/onnx/test_mish/test_data_set_0/input_0.pb");
    std::string name;
    HostTensor t = readOnnxTensorFile(pb, &name);
    QCOMPARE(name, std::string("x"));
    QCOMPARE(t.shape(), (Shape{6, 11}));
    QCOMPARE(t.dtype(), DType::F32);
    const std::string bytes = readBytes(pb);
    const std::string cut = tempPath("cut.pb");
    {
      std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 9);
    }
    QVERIFY_THROWS_EXCEPTION(Error, readTensorFile(cut));
    fs::remove(cut);
  }

  // .npy: round trip, and a file written by NumPy (bytes below are np.save of
  // np.arange(6, dtype=np.int16).reshape(2, 3)).
  void npyFiles() {
    HostTensor a(DType::F16, {2, 2});
    for (int i = 0; i < 4; ++i) a.setDouble(i, i - 1.5);
    const std::string path = tempPath("a.npy");
    writeNpy(path, a);
    HostTensor b = readNpy(path);
    fs::remove(path);
    QCOMPARE(b.dtype(), DType::F16);
    QCOMPARE(b.shape(), (Shape{2, 2}));
    for (int i = 0; i < 4; ++i) QCOMPARE(b.getDouble(i), i - 1.5);
    std::string np = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                     "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
    while ((np.size() + 1) % 64 != 0) np += ' ';
    np += '\n';
    for (int i = 0; i < 6; ++i) np += static_cast<char>(i), np += '\0';
    HostTensor c = parseNpy(np, "np.npy");
    QCOMPARE(c.dtype(), DType::I16);
    QCOMPARE(c.shape(), (Shape{2, 3}));
    QCOMPARE(c.getInt(5), int64_t{5});
    QVERIFY_THROWS_EXCEPTION(Error, parseNpy(np.substr(0, np.size() - 3), "short.npy"));
    QVERIFY_THROWS_EXCEPTION(Error, parseNpy("\x93NUMPX", "bad.npy"));
  }

  // The comparison ONNX's runner uses.
  void compare() {
    HostTensor e(DType::F32, {3});
    e.setDouble(0, 1.0), e.setDouble(1, NAN), e.setDouble(2, INFINITY);
    HostTensor g = e;
    QCOMPARE(compareOnnxOutput(g, e, 1e-3, 1e-7), std::string());
    g.setDouble(0, 1.0009);
    QCOMPARE(compareOnnxOutput(g, e, 1e-3, 1e-7), std::string());
    g.setDouble(0, 1.0011);
    QVERIFY(compareOnnxOutput(g, e, 1e-3, 1e-7).find("index 0") != std::string::npos);
    g = e;
    g.setDouble(2, -INFINITY);
    QVERIFY(!compareOnnxOutput(g, e, 1e-3, 1e-7).empty());
    QVERIFY(compareOnnxOutput(e.castTo(DType::F64), e, 1e-3, 1e-7).find("dtype") != std::string::npos);
    QVERIFY(compareOnnxOutput(e.reshaped({3, 1}), e, 1e-3, 1e-7).find("shape") != std::string::npos);
  }

  // A model over its deadline is a failure, reported without waiting for it.
  void deadline() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    OnnxCheckOptions o;
    o.timeoutSeconds = 1e-6;
    OnnxCaseResult r = checkOnnxCase(src("tests/data/onnx/cnn"), o);
    QCOMPARE(r.status, OnnxCaseResult::Status::Fail);
    QVERIFY2(r.reason.find("timeout") != std::string::npos, r.reason.c_str());
    std::this_thread::sleep_for(std::chrono::seconds(3));  // let the abandoned worker finish
  }
};

QTEST_GUILESS_MAIN(TestOnnx)
#include "test_onnx.moc"
