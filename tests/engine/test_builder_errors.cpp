// Program-builder error cases: every misuse throws ks::Error with the right code and a message that
// names the op and the shapes/dtypes involved; nothing aborts and nothing else is thrown.
#include <QtTest>

#include <functional>

#include "engine/eval/host_executor.h"
#include "engine/program/builder.h"

using namespace ks;

namespace {

struct ErrorCase {
  const char* name;
  ErrorCode code;
  std::vector<std::string> texts;  // each must appear in what()
  std::function<void(ProgramBuilder&)> build;
};

Value in(ProgramBuilder& b, const std::string& name, Shape s, DType t = DType::F32) { return b.input(name, t, std::move(s)); }

const std::vector<ErrorCase>& errorCases() {
  static const std::vector<ErrorCase> cases = {
      {"bad broadcast add", ErrorCode::Shape, {"add: cannot broadcast shapes [2, 3] and [4, 3]"},
       [](ProgramBuilder& b) { op::add(in(b, "a", {2, 3}), in(b, "b", {4, 3})); }},
      {"bad broadcast where", ErrorCode::Shape, {"where", "[2, 3]", "[2]"},
       [](ProgramBuilder& b) { op::where(in(b, "c", {2, 3}, DType::Bool), in(b, "a", {2, 3}), in(b, "b", {2})); }},
      {"bad broadcast expand", ErrorCode::Shape, {"expand: cannot broadcast [2, 3] to [4, 3]"},
       [](ProgramBuilder& b) { op::expand(in(b, "a", {2, 3}), {4, 3}); }},
      {"matmul inner dims", ErrorCode::Shape, {"matmul", "inner dimensions differ (3 vs 4)", "f32[2, 3] @ f32[4, 5]"},
       [](ProgramBuilder& b) { op::matmul(in(b, "a", {2, 3}), in(b, "b", {4, 5})); }},
      {"matmul batch broadcast", ErrorCode::Shape, {"matmul", "[2]", "[3]"},
       [](ProgramBuilder& b) { op::matmul(in(b, "a", {2, 2, 3}), in(b, "b", {3, 3, 4})); }},
      {"matmul rank 0", ErrorCode::Shape, {"matmul", "rank-0"},
       [](ProgramBuilder& b) { op::matmul(in(b, "a", {}), in(b, "b", {3})); }},
      {"bad axis sum", ErrorCode::Axis, {"sum: axis 2 is out of range for a tensor of rank 2"},
       [](ProgramBuilder& b) { op::sum(in(b, "a", {2, 3}), {2}); }},
      {"bad negative axis", ErrorCode::Axis, {"max: axis -3 is out of range for a tensor of rank 2"},
       [](ProgramBuilder& b) { op::max(in(b, "a", {2, 3}), {-3}); }},
      {"repeated axis", ErrorCode::Axis, {"mean", "repeated axis"},
       [](ProgramBuilder& b) { op::mean(in(b, "a", {2, 3}), {1, -1}); }},
      {"bad axis softmax", ErrorCode::Axis, {"softmax", "axis 2"},
       [](ProgramBuilder& b) { op::softmax(in(b, "a", {2, 3}), 2); }},
      {"bad axis argmax", ErrorCode::Axis, {"argmax", "axis 5"},
       [](ProgramBuilder& b) { op::argmax(in(b, "a", {2, 3}), 5); }},
      {"bad axis permute", ErrorCode::Axis, {"permute", "got 3 axes for a tensor of rank 2"},
       [](ProgramBuilder& b) { op::permute(in(b, "a", {2, 3}), {0, 1, 2}); }},
      {"bad axis concat", ErrorCode::Axis, {"concat", "axis 2"},
       [](ProgramBuilder& b) { op::concat({in(b, "a", {2, 3}), in(b, "b", {2, 3})}, 2); }},
      {"bad reshape", ErrorCode::Shape, {"reshape", "f32[2, 3] (6 elements) to [4, 2] (8 elements)"},
       [](ProgramBuilder& b) { op::reshape(in(b, "a", {2, 3}), {4, 2}); }},
      {"reshape two -1", ErrorCode::Shape, {"reshape", "more than one -1"},
       [](ProgramBuilder& b) { op::reshape(in(b, "a", {2, 3}), {-1, -1}); }},
      {"reshape -1 not dividing", ErrorCode::Shape, {"reshape", "cannot reshape [2, 3] to [4, -1]"},
       [](ProgramBuilder& b) { op::reshape(in(b, "a", {2, 3}), {4, -1}); }},
      {"squeeze non-1", ErrorCode::Shape, {"squeeze", "axis 1 of [2, 3] has size 3, not 1"},
       [](ProgramBuilder& b) { op::squeeze(in(b, "a", {2, 3}), {1}); }},
      {"neg of bool", ErrorCode::DType, {"neg", "bool"},
       [](ProgramBuilder& b) { op::neg(in(b, "a", {3}, DType::Bool)); }},
      {"matmul of bool", ErrorCode::DType, {"matmul", "bool[2, 2] @ bool[2, 2]"},
       [](ProgramBuilder& b) { op::matmul(in(b, "a", {2, 2}, DType::Bool), in(b, "b", {2, 2}, DType::Bool)); }},
      {"one_hot of floats", ErrorCode::DType, {"one_hot", "indices must be integers, got f32[3]"},
       [](ProgramBuilder& b) { op::oneHot(in(b, "a", {3}), 4); }},
      {"embedding of floats", ErrorCode::DType, {"embedding", "f32[2]"},
       [](ProgramBuilder& b) { op::embedding(in(b, "a", {2}), in(b, "t", {4, 3})); }},
      {"slice step zero", ErrorCode::Usage, {"slice", "step cannot be zero"},
       [](ProgramBuilder& b) { op::slice(in(b, "a", {5}), 0, 0, 5, 0); }},
      {"narrow out of range", ErrorCode::Shape, {"narrow", "outside dimension of size 3"},
       [](ProgramBuilder& b) { op::narrow(in(b, "a", {2, 3}), 1, 2, 2); }},
      {"pad too many pairs", ErrorCode::Shape, {"pad", "3 pad pairs for a tensor of rank 2"},
       [](ProgramBuilder& b) { op::pad(in(b, "a", {2, 3}), {{1, 1}, {1, 1}, {1, 1}}); }},
      {"concat shapes", ErrorCode::Shape, {"concat", "[2, 3] and [2, 4] differ outside axis 0"},
       [](ProgramBuilder& b) { op::concat({in(b, "a", {2, 3}), in(b, "b", {2, 4})}, 0); }},
      {"stack shapes", ErrorCode::Shape, {"stack", "[2, 3] and [3, 2] differ"},
       [](ProgramBuilder& b) { op::stack({in(b, "a", {2, 3}), in(b, "b", {3, 2})}); }},
      {"split sizes", ErrorCode::Shape, {"split", "add up to 4, but axis 0 of [5] has 5"},
       [](ProgramBuilder& b) { op::split(in(b, "a", {5}), {2, 2}); }},
      {"repeat too few", ErrorCode::Shape, {"repeat", "1 repeat counts for a tensor of rank 2"},
       [](ProgramBuilder& b) { op::repeat(in(b, "a", {2, 3}), {2}); }},
      {"conv2d groups", ErrorCode::Shape, {"conv2d", "f32[1, 4, 5, 5]", "f32[2, 3, 3, 3]", "groups=2"},
       [](ProgramBuilder& b) { op::conv2d(in(b, "x", {1, 4, 5, 5}), in(b, "w", {2, 3, 3, 3}), std::nullopt, {1, 1}, {0, 0}, {1, 1}, 2); }},
      {"conv2d rank", ErrorCode::Shape, {"conv2d", "[N, C, H, W]", "f32[4, 5]"},
       [](ProgramBuilder& b) { op::conv2d(in(b, "x", {4, 5}), in(b, "w", {2, 3, 3, 3})); }},
      {"pool window too large", ErrorCode::Shape, {"max_pool2d", "window of 5 does not fit a padded size of 4"},
       [](ProgramBuilder& b) { op::maxPool2d(in(b, "x", {1, 1, 4, 4}), {5, 5}); }},
      {"max of empty dim", ErrorCode::Shape, {"max", "empty dimension"},
       [](ProgramBuilder& b) { op::max(in(b, "a", {2, 0}), {1}); }},
      {"batch_norm channels", ErrorCode::Shape, {"batch_norm", "running mean must have shape [3], got f32[4]"},
       [](ProgramBuilder& b) { op::batchNorm(in(b, "x", {2, 3}), in(b, "m", {4}), in(b, "v", {3}), std::nullopt, std::nullopt); }},
      {"cross_entropy shapes", ErrorCode::Shape, {"cross_entropy", "f32[4, 3]", "i64[5]"},
       [](ProgramBuilder& b) { op::crossEntropy(in(b, "x", {4, 3}), in(b, "t", {5}, DType::I64)); }},
      {"layer_norm dims", ErrorCode::Axis, {"layer_norm", "last 3 dimensions of f32[2, 3]"},
       [](ProgramBuilder& b) { op::layerNorm(in(b, "x", {2, 3}), std::nullopt, std::nullopt, 3); }},
      {"duplicate input name", ErrorCode::Usage, {"name 'a' is already declared"},
       [](ProgramBuilder& b) { in(b, "a", {2}); in(b, "a", {3}); }},
      {"no outputs", ErrorCode::Usage, {"declares no output"}, [](ProgramBuilder& b) { b.finish(); }},
      {"location carried", ErrorCode::Shape, {"prog.ks:3:7: matmul: inner dimensions differ"},
       [](ProgramBuilder& b) {
         Value x = in(b, "a", {2, 3}), y = in(b, "b", {2, 3});
         b.setLocation(SourceLoc("prog.ks", 3, 7));
         op::matmul(x, y);
       }},
      {"location on graph error", ErrorCode::Shape, {"prog.ks:9:1: narrow"},
       [](ProgramBuilder& b) {
         Value x = in(b, "a", {2, 3});
         b.setLocation(SourceLoc("prog.ks", 9, 1));
         op::narrow(x, 0, 1, 5);
       }},
      {"host: missing input", ErrorCode::Usage, {"leaf 'a' needs f32[2, 3], got nothing"},
       [](ProgramBuilder& b) {
         Value x = in(b, "a", {2, 3});
         HostExecutor::run(b.graph(), {op::exp(x).id()}, {});
       }},
      {"host: wrong input shape", ErrorCode::Usage, {"leaf 'a' needs f32[2, 3], got f32[3, 2]"},
       [](ProgramBuilder& b) {
         Value x = in(b, "a", {2, 3});
         HostExecutor::run(b.graph(), {op::exp(x).id()}, {HostTensor(DType::F32, {3, 2})});
       }},
  };
  return cases;
}

}  // namespace

class TestBuilderErrors : public QObject {
  Q_OBJECT

 private slots:
  void errors_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < errorCases().size(); ++i) QTest::newRow(errorCases()[i].name) << static_cast<int>(i);
  }

  void errors() {
    QFETCH(int, index);
    const ErrorCase& c = errorCases()[index];
    ProgramBuilder b("errors");
    try {
      c.build(b);
      QFAIL("no error was thrown");
    } catch (const Error& e) {
      QVERIFY2(e.code() == c.code, (std::string("wrong code: ") + errorCodeName(e.code()) + " in: " + e.what()).c_str());
      for (const std::string& t : c.texts)
        QVERIFY2(std::string(e.what()).find(t) != std::string::npos, ("'" + t + "' not in: " + e.what()).c_str());
    } catch (const std::exception& e) {
      QFAIL((std::string("not a ks::Error: ") + e.what()).c_str());
    }
  }

  // After an error the builder is still usable: the failed op added nothing that breaks later ops.
  void builderSurvivesErrors() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    QVERIFY_THROWS_EXCEPTION(Error, op::reshape(x, {5}));
    Value y = op::sum(x, {1});
    b.output("y", y);
    Program p = b.finish();
    HostTensor t(DType::F32, {2, 3});
    for (int i = 0; i < 6; ++i) t.setDouble(i, i);
    const auto out = HostExecutor::run(p.graph, p.outputClasses(), {t});
    QCOMPARE(out[0].getDouble(0), 3.0);
    QCOMPARE(out[0].getDouble(1), 12.0);
  }
};

QTEST_GUILESS_MAIN(TestBuilderErrors)
#include "test_builder_errors.moc"
