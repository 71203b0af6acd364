// OutputView on a real run of samples/softmax.ks: one summary row per output, values equal the tensor.
#include <QLabel>
#include <QTableView>
#include <QtTest>
#include <cmath>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "views/output_view.h"

using namespace ks;

class TestOutputView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    session_ = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/softmax.ks"), o);
    session_->run({}, true);
  }

  void summaryRows() {
    OutputView v(nullptr);
    v.showSession(session_);
    const auto& outs = session_->runs().back().outputs;
    QVERIFY(!outs.empty());
    QCOMPARE(v.summaryModel()->rowCount(), static_cast<int>(outs.size()));
    for (int r = 0; r < static_cast<int>(outs.size()); ++r) {
      QCOMPARE(v.summaryModel()->data(v.summaryModel()->index(r, OutputSummaryModel::Name), Qt::DisplayRole).toString(),
               QString::fromStdString(outs[r].name));
      QCOMPARE(v.summaryModel()->data(v.summaryModel()->index(r, OutputSummaryModel::ShapeCol), Qt::DisplayRole).toString(),
               QString::fromStdString(shapeStr(outs[r].value.shape())));
      QVERIFY(outs[r].verified);
      QVERIFY(v.summaryModel()->data(v.summaryModel()->index(r, OutputSummaryModel::Verify), Qt::DisplayRole).toString().startsWith("ok"));
    }
  }

  void valuesMatchTensor() {
    OutputView v(nullptr);
    v.showSession(session_);
    const HostTensor& t = session_->runs().back().outputs[0].value;
    const TensorSliceModel* m = v.sliceModel();
    const Shape& s = t.shape();
    QCOMPARE(m->columnCount(), static_cast<int>(s.empty() ? 1 : s.back()));
    // Softmax rows sum to 1: an independent check that the cells are the tensor's values in order.
    if (isFloat(t.dtype()) && s.size() >= 1) {
      for (int r = 0; r < m->rowCount(); ++r) {
        double sum = 0;
        for (int c = 0; c < m->columnCount(); ++c) sum += m->data(m->index(r, c), Qt::DisplayRole).toDouble();
        QVERIFY2(std::abs(sum - 1.0) < 1e-4, qPrintable(QString("row %1 sums to %2").arg(r).arg(sum)));
      }
    }
    for (int r = 0; r < m->rowCount(); ++r)
      for (int c = 0; c < m->columnCount(); ++c)
        QCOMPARE(m->data(m->index(r, c), Qt::DisplayRole).toDouble(),
                 QString::number(t.getDouble(m->flatIndex(r, c)), 'g', 6).toDouble());
  }

  void slicesAndPages() {
    // A [3, 300, 2] tensor: 3 slices, 2 pages of at most 256 rows; cell (r, c) of slice b page p.
    HostTensor t(DType::I32, {3, 300, 2});
    for (int64_t i = 0; i < t.numel(); ++i) t.setInt(i, i);
    TensorSliceModel m;
    m.setTensor(&t);
    QCOMPARE(m.sliceCount(), int64_t(3));
    QCOMPARE(m.pageCount(), 2);
    QCOMPARE(m.rowCount(), 256);
    QCOMPARE(m.columnCount(), 2);
    m.setSlice(2);
    m.setPage(1);
    QCOMPARE(m.rowCount(), 300 - 256);
    QCOMPARE(m.data(m.index(0, 1), Qt::DisplayRole).toLongLong(), qlonglong(2 * 600 + 256 * 2 + 1));
    QCOMPARE(m.headerData(0, Qt::Vertical, Qt::DisplayRole).toLongLong(), qlonglong(256));
    m.setSlice(99);  // clamps
    QCOMPARE(m.data(m.index(0, 0), Qt::DisplayRole).toLongLong(), qlonglong(2 * 600 + 256 * 2));
  }
};

QTEST_MAIN(TestOutputView)
#include "test_output_view.moc"
