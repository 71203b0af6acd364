// E-graph tests: hashconsing (CSE), topological order, cache-key stability and sensitivity,
// dump/DOT text, and the graph's own validation errors.
#include <QtTest>

#include <algorithm>
#include <functional>

#include "engine/eval/host_executor.h"
#include "engine/program/builder.h"

using namespace ks;

namespace {

Node makeNode(NodeKind k, std::vector<ClassId> in, std::vector<int64_t> attr = {}, uint8_t op = 0) {
  Node n;
  n.kind = k;
  n.in = std::move(in);
  n.attr = std::move(attr);
  n.op = op;
  return n;
}

// One program; every field of Variant changes exactly one thing in it.
struct Variant {
  bool mulInsteadOfAdd = false;  // op
  int64_t axis = 1;              // attribute
  double scale = 2.0;            // constant value
  double data0 = 1.0;            // constant tensor data
  Shape shape{2, 3};             // shape
  DType dtype = DType::F32;      // dtype
  bool outputExp = false;        // requested output
  double padValue = 0.0;         // attribute (pad fill value)
};

uint64_t keyOf(const Variant& v) {
  ProgramBuilder b("variant");
  Value x = b.input("x", v.dtype, v.shape);
  Value y = b.input("y", v.dtype, v.shape);
  HostTensor data(v.dtype, {v.shape.back()});
  data.setDouble(0, v.data0);
  Value k = b.constant(data, "k");
  Value e = v.mulInsteadOfAdd ? op::mul(x, y) : op::add(x, y);
  Value s = op::sum(op::mul(op::add(e, k), v.scale), {v.axis});
  Value z = op::exp(op::pad(x, {{1, 0}}, v.padValue));
  b.output("out", v.outputExp ? z : s);
  return b.program().cacheKey();
}

}  // namespace

class TestGraph : public QObject {
  Q_OBJECT

 private slots:
  void hashconsingGivesCse() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    Value y = b.input("y", DType::F32, {3});
    Value a1 = op::exp(op::add(x, y));
    const std::size_t classes = b.graph().classCount(), nodes = b.graph().nodeCount();
    Value a2 = op::exp(op::add(x, y));  // the same expression again
    QCOMPARE(a2.id(), a1.id());
    QCOMPARE(b.graph().classCount(), classes);
    QCOMPARE(b.graph().nodeCount(), nodes);
    // equal constants are one class; different ones are not
    QCOMPARE(b.scalar(2.0, DType::F32).id(), b.scalar(2.0, DType::F32).id());
    QVERIFY(b.scalar(2.0, DType::F32).id() != b.scalar(2.0, DType::F64).id());
    QVERIFY(b.scalar(0.0, DType::F32).id() != b.scalar(-0.0, DType::F32).id());
    // a different op, operand order or attribute is a different class
    QVERIFY(op::mul(x, y).id() != a1.id());
    QVERIFY(op::sub(x, y).id() != op::sub(y, x).id());
    QVERIFY(op::sum(x, {0}).id() != op::sum(x, {1}).id());
    // two inputs of equal shape and dtype are still two leaves
    Value z = b.input("z", DType::F32, {2, 3});
    QVERIFY(z.id() != x.id());
    // the shared subexpression is evaluated once and both uses see it
    Value shared = op::add(op::mul(x, 2.0), op::mul(x, 2.0));
    const Node& n = b.graph().structural(shared.id());
    QCOMPARE(n.in[0], n.in[1]);
  }

  void shapeAndDtypePerClass() {
    ProgramBuilder b;
    Value x = b.input("x", DType::I32, {2, 1, 3});
    Value y = b.input("y", DType::F32, {4, 1});
    Value s = op::add(x, y);
    QCOMPARE(shapeStr(s.shape()), std::string("[2, 4, 3]"));
    QCOMPARE(s.dtype(), DType::F32);
    QCOMPARE(op::lt(x, y).dtype(), DType::Bool);
    QCOMPARE(op::sum(x).dtype(), DType::I64);
    QCOMPARE(shapeStr(op::sum(x, {-1}, true).shape()), std::string("[2, 1, 1]"));
  }

  void topoOrderPutsOperandsFirst() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 4});
    Value unused = op::exp(x);
    Value y = op::softmax(op::matmul(x, x));
    const std::vector<ClassId> order = b.graph().topoOrder({y.id()});
    QVERIFY(std::find(order.begin(), order.end(), unused.id()) == order.end());
    QCOMPARE(order.back(), y.id());
    for (std::size_t i = 0; i < order.size(); ++i)
      for (ClassId d : b.graph().structural(order[i]).in) {
        auto pos = std::find(order.begin(), order.end(), d);
        QVERIFY(pos != order.end());
        QVERIFY(static_cast<std::size_t>(pos - order.begin()) < i);
      }
  }

  void cacheKeyIsStable() {
    const Variant base;
    QCOMPARE(keyOf(base), keyOf(base));
    Variant other;
    other.shape = {4, 5};
    QCOMPARE(keyOf(other), keyOf(other));
  }

  void cacheKeyChanges_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("op") << 0;
    QTest::newRow("attribute axis") << 1;
    QTest::newRow("constant value") << 2;
    QTest::newRow("constant tensor data") << 3;
    QTest::newRow("shape") << 4;
    QTest::newRow("dtype") << 5;
    QTest::newRow("requested output") << 6;
    QTest::newRow("attribute pad value") << 7;
  }
  void cacheKeyChanges() {
    QFETCH(int, which);
    Variant v;
    switch (which) {
      case 0: v.mulInsteadOfAdd = true; break;
      case 1: v.axis = 0; break;
      case 2: v.scale = 3.0; break;
      case 3: v.data0 = 5.0; break;
      case 4: v.shape = {3, 3}; break;
      case 5: v.dtype = DType::F64; break;
      case 6: v.outputExp = true; break;
      case 7: v.padValue = 1.0; break;
    }
    QVERIFY(keyOf(v) != keyOf(Variant{}));
  }

  void cacheKeyIgnoresMeasuredTime() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {8});
    Value y = op::exp(x);
    Graph& g = b.graph();
    const ClassId moved = g.addToDevice(y.id(), 1, 100.0);
    const uint64_t before = g.cacheKey({moved});
    g.setTime(g.eclass(moved).nodes.front(), 5000.0);
    QCOMPARE(g.cacheKey({moved}), before);
    // but the device is part of the node
    QVERIFY(g.addToDevice(y.id(), 2, 100.0) != moved);
  }

  void dump() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    Value y = op::sum(op::add(x, 1.0), {1});
    b.output("y", y);
    const std::string dump = b.graph().dump();
    QVERIFY(dump.find("leaf #0 'x'") != std::string::npos);
    QVERIFY(dump.find("reduce sum [1]") != std::string::npos);
    QVERIFY(dump.find(": f32[2]") != std::string::npos);
  }

  // The graph validates primitive nodes itself (the builder's checks are in test_builder_errors).
  void graphRejectsBadNodes_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("text");
    QTest::newRow("binary dtypes differ") << 0 << int(ErrorCode::DType) << "operand dtypes differ: f32[2, 3] vs i32[2, 3]";
    QTest::newRow("binary shapes differ") << 1 << int(ErrorCode::Shape) << "operand shapes differ: f32[2, 3] vs f32[3, 2]";
    QTest::newRow("expand rank") << 2 << int(ErrorCode::Shape) << "ranks differ";
    QTest::newRow("expand non-1 dim") << 3 << int(ErrorCode::Shape) << "cannot expand [2, 3] to [4, 3]";
    QTest::newRow("permute") << 4 << int(ErrorCode::Axis) << "not a permutation of the axes of [2, 3]";
    QTest::newRow("reshape numel") << 5 << int(ErrorCode::Shape) << "(6 elements) to [4, 2] (8 elements)";
    QTest::newRow("reduce axes unsorted") << 6 << int(ErrorCode::Axis) << "axes must be sorted";
    QTest::newRow("where cond dtype") << 7 << int(ErrorCode::DType) << "condition must be bool, got f32[2, 3]";
    QTest::newRow("unary float op on int") << 8 << int(ErrorCode::DType) << "exp needs a float operand, got i32[2, 3]";
    QTest::newRow("logical op on floats") << 9 << int(ErrorCode::DType) << "logical/bitwise op on float operands";
    QTest::newRow("pad crops too much") << 10 << int(ErrorCode::Shape) << "pads crop more than the dimension";
    QTest::newRow("narrow out of range") << 11 << int(ErrorCode::Shape) << "is outside dimension of size 3";
    QTest::newRow("kernel via add") << 12 << int(ErrorCode::Internal) << "addAlternative";
    QTest::newRow("bitcast sizes") << 13 << int(ErrorCode::DType) << "different sizes";
  }
  void graphRejectsBadNodes() {
    QFETCH(int, which);
    QFETCH(int, code);
    QFETCH(QString, text);
    Graph g;
    const ClassId f = g.addLeaf({"f", LeafKind::Input, DType::F32, {2, 3}, nullptr});
    const ClassId f2 = g.addLeaf({"f2", LeafKind::Input, DType::F32, {3, 2}, nullptr});
    const ClassId i = g.addLeaf({"i", LeafKind::Input, DType::I32, {2, 3}, nullptr});
    const std::size_t classes = g.classCount();
    auto binary = [](BinaryOp b, ClassId x, ClassId y) {
      return makeNode(NodeKind::Binary, {x, y}, {}, static_cast<uint8_t>(b));
    };
    Node n;
    switch (which) {
      case 0: n = binary(BinaryOp::Add, f, i); break;
      case 1: n = binary(BinaryOp::Add, f, f2); break;
      case 2: n = makeNode(NodeKind::Expand, {f}, {1, 2, 3}); break;
      case 3: n = makeNode(NodeKind::Expand, {f}, {4, 3}); break;
      case 4: n = makeNode(NodeKind::Permute, {f}, {0, 0}); break;
      case 5: n = makeNode(NodeKind::Reshape, {f}, {4, 2}); break;
      case 6: n = makeNode(NodeKind::Reduce, {f}, {1, 0}); break;
      case 7: n = makeNode(NodeKind::Where, {f, f, f}); break;
      case 8: n = makeNode(NodeKind::Unary, {i}, {}, static_cast<uint8_t>(UnaryOp::Exp)); break;
      case 9: n = binary(BinaryOp::And, f, f); break;
      case 10:
        n = makeNode(NodeKind::Pad, {f}, {1, -4, 0});
        n.value = Scalar::of(DType::F32, 0.0);
        break;
      case 11: n = makeNode(NodeKind::Narrow, {f}, {1, 2, 2}); break;
      case 12: n = makeNode(NodeKind::Kernel, {f}); break;
      case 13:
        n = makeNode(NodeKind::Bitcast, {f});
        n.dtype = DType::F64;
        break;
    }
    try {
      g.add(n);
      QFAIL("the graph accepted an invalid node");
    } catch (const Error& e) {
      QCOMPARE(int(e.code()), code);
      QVERIFY2(std::string(e.what()).find(text.toStdString()) != std::string::npos, e.what());
      QVERIFY2(!e.op().empty(), "the error names the op");
    }
    QCOMPARE(g.classCount(), classes);  // nothing half-added
  }

  // The node patterns later stages match (documented in composite_ops.cpp) are a contract.
  void matmulIsBroadcastMultiplyReduce() {
    ProgramBuilder b;
    Value a = b.input("a", DType::F32, {2, 3, 4});
    Value w = b.input("w", DType::F32, {4, 5});
    Value y = op::matmul(a, w);
    const Graph& g = b.graph();
    auto node = [&](ClassId c) -> const Node& { return g.structural(c); };
    const Node& red = node(y.id());
    QCOMPARE(red.kind, NodeKind::Reduce);
    QCOMPARE(red.reduceOp(), ReduceOp::Sum);
    QCOMPARE(red.attr, (std::vector<int64_t>{3}));
    QCOMPARE(shapeStr(g.shape(y.id())), std::string("[2, 3, 5]"));
    const Node& mul = node(red.in[0]);
    QCOMPARE(mul.kind, NodeKind::Binary);
    QCOMPARE(mul.binaryOp(), BinaryOp::Mul);
    QCOMPARE(shapeStr(g.shape(red.in[0])), std::string("[2, 3, 5, 4]"));
    // a: Expand <- Reshape [2, 3, 1, 4] <- a
    const Node& ea = node(mul.in[0]);
    QCOMPARE(ea.kind, NodeKind::Expand);
    const Node& ra = node(ea.in[0]);
    QCOMPARE(ra.kind, NodeKind::Reshape);
    QCOMPARE(ra.attr, (std::vector<int64_t>{2, 3, 1, 4}));
    QCOMPARE(ra.in[0], a.id());
    // b: Expand <- Reshape [1, 1, 5, 4] <- Permute [1, 0] <- w
    const Node& eb = node(mul.in[1]);
    QCOMPARE(eb.kind, NodeKind::Expand);
    const Node& rb = node(eb.in[0]);
    QCOMPARE(rb.kind, NodeKind::Reshape);
    QCOMPARE(rb.attr, (std::vector<int64_t>{1, 1, 5, 4}));
    const Node& pb = node(rb.in[0]);
    QCOMPARE(pb.kind, NodeKind::Permute);
    QCOMPARE(pb.attr, (std::vector<int64_t>{1, 0}));
    QCOMPARE(pb.in[0], w.id());
  }

  void softmaxIsMaxShiftedExpOverSum() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    Value y = op::softmax(x, -1);
    const Graph& g = b.graph();
    const Node& div = g.structural(y.id());
    QCOMPARE(div.kind, NodeKind::Binary);
    QCOMPARE(div.binaryOp(), BinaryOp::Div);
    const Node& e = g.structural(div.in[0]);
    QCOMPARE(e.kind, NodeKind::Unary);
    QCOMPARE(e.unaryOp(), UnaryOp::Exp);
    const Node& sub = g.structural(e.in[0]);
    QCOMPARE(sub.binaryOp(), BinaryOp::Sub);
    QCOMPARE(sub.in[0], x.id());
    auto reduceUnder = [&](ClassId c) {  // Expand <- Reshape (keepdim) <- Reduce
      const Node& ex = g.structural(c);
      if (ex.kind != NodeKind::Expand) return Node{};
      const Node& rs = g.structural(ex.in[0]);
      return rs.kind == NodeKind::Reshape ? g.structural(rs.in[0]) : Node{};
    };
    const Node mx = reduceUnder(sub.in[1]);
    QCOMPARE(mx.kind, NodeKind::Reduce);
    QCOMPARE(mx.reduceOp(), ReduceOp::Max);
    const Node sm = reduceUnder(div.in[1]);
    QCOMPARE(sm.kind, NodeKind::Reduce);
    QCOMPARE(sm.reduceOp(), ReduceOp::Sum);
    QCOMPARE(sm.in[0], div.in[0]);  // the sum is over the same exp (CSE)
  }

  // The host executor evaluates the structural node of each class; a rank-0 constant broadcasts.
  void hostRunsSharedSubexpressionOnce() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {3});
    Value e = op::exp(x);
    Value y = op::add(e, e);
    HostTensor in(DType::F32, {3});
    for (int i = 0; i < 3; ++i) in.setDouble(i, i - 1.0);
    std::vector<ClassId> evaluated;
    const auto out = HostExecutor::run(b.graph(), {y.id(), e.id()}, {in}, &evaluated);
    QCOMPARE(out.size(), std::size_t{2});
    // exp is read twice by the add and once as an output, and computed once.
    QCOMPARE(std::count(evaluated.begin(), evaluated.end(), e.id()), std::ptrdiff_t{1});
    QCOMPARE(std::count(evaluated.begin(), evaluated.end(), y.id()), std::ptrdiff_t{1});
    QCOMPARE(evaluated.size(), std::size_t{3});  // x, exp, add
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(out[1].getDouble(i), double(std::exp(float(i - 1.0))));
      QCOMPARE(out[0].getDouble(i), double(std::exp(float(i - 1.0)) * 2.0f));
    }
  }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "test_graph.moc"
