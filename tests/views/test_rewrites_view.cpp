// RewritesView on a real compiled matmul chain (associativity and transpose rules fire): one table
// row per rule per round with the report's numbers, the stop reason in the summary, and a growth
// chart whose bars add up to the e-nodes each rule added.
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedBarSeries>
#include <QTableView>
#include <QTest>
#include <map>

#include "tests/views/session_fixture.h"
#include "views/rewrites_model.h"
#include "views/rewrites_view.h"

using namespace ks;
using namespace ks::testing;

namespace {
// Records the rule the view asks to switch off; the test answers as the controller would.
class AblationContext : public RecordingContext {
 public:
  void recompileWithoutRule(const QString& rule) override { asked << rule; }
  QStringList asked;
};
}  // namespace

class TestRewritesView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

  static QString cell(const QAbstractItemModel* m, int row, int col) { return m->index(row, col).data().toString(); }

 private slots:
  void initTestCase() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    o.rewrite.mode = RewriteMode::Default;
    session_ = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/matmul_chain.ks"), o);
    session_->runTo(Stage::Planned);
    QVERIFY(session_->trace().rewrite.ran);
    QVERIFY(!session_->trace().rewrite.report.rules.empty());
  }

  void tableEqualsTheReport() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    RewritesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.hideIdleBox()->setChecked(false);  // every row of the report
    const RewriteReport& r = session_->trace().rewrite.report;
    const QAbstractItemModel* m = v.table()->model();
    QCOMPARE(m->rowCount(), int(r.rules.size()));
    std::size_t grew = 0, classes = 0;
    for (int i = 0; i < m->rowCount(); ++i) {
      const RuleRound& x = r.rules[std::size_t(i)];
      QCOMPARE(cell(m, i, RewritesModel::Round), QString::number(x.round));
      QCOMPARE(cell(m, i, RewritesModel::Rule), QString::fromStdString(x.rule));
      QCOMPARE(cell(m, i, RewritesModel::Matches), QString::number(x.matches));
      QCOMPARE(cell(m, i, RewritesModel::Merges), QString::number(x.merges));
      QCOMPARE(cell(m, i, RewritesModel::NodesAdded), QString::number(x.nodesAdded));
      QCOMPARE(cell(m, i, RewritesModel::ClassesAdded), QString::number(x.classesAdded));
      QCOMPARE(cell(m, i, RewritesModel::Ms), QString::number(x.ms, 'f', 3));
      QCOMPARE(m->index(i, RewritesModel::Banned).data(Qt::EditRole).toBool(), x.banned);
      grew += x.nodesAdded;
      classes += x.classesAdded;
    }
    QVERIFY(grew > 0);     // the chain reassociates: the graph grew
    QVERIFY(classes > 0);  // with classes of its own (b @ c, c @ d, ...)
    const QString summary = v.summary()->text();
    QVERIFY2(summary.contains(QString::fromLatin1(rewriteStopName(r.stop))), qPrintable(summary));
    QVERIFY2(summary.contains(QString::fromStdString(r.stopDetail)), qPrintable(summary));
    QVERIFY2(summary.contains(QString("e-nodes %1 → %2").arg(r.nodesBefore).arg(r.nodesAfter)), qPrintable(summary));

    // The chart: one stacked series, a bar set per rule that grew the graph, a bar per round.
    std::map<QString, double> perRule;
    for (const RuleRound& x : r.rules) perRule[QString::fromStdString(x.rule)] += double(x.nodesAdded);
    const QList<QAbstractSeries*> series = v.chart()->chart()->series();
    QCOMPARE(int(series.size()), 1);
    auto* bars = qobject_cast<QStackedBarSeries*>(series[0]);
    QVERIFY(bars);
    int nonzero = 0;
    for (const auto& [rule, n] : perRule) nonzero += n > 0;
    QCOMPARE(bars->count(), nonzero);
    for (QBarSet* set : bars->barSets()) {
      QCOMPARE(set->count(), r.rounds);
      double sum = 0;
      for (int i = 0; i < set->count(); ++i) sum += set->at(i);
      QCOMPARE(sum, perRule[set->label()]);
    }
  }

  // Idle rows (no match, not banned) are hidden by default and counted on the box; the rule filter
  // keeps the rows whose rule contains the text; both together are an intersection.
  void filtersIdleRowsAndRules() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    RewritesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const auto& rules = session_->trace().rewrite.report.rules;
    int idle = 0;
    for (const RuleRound& x : rules) idle += x.matches == 0 && !x.banned;
    QVERIFY(idle > 0);  // the chain's saturation has rules that match nothing
    QVERIFY(v.hideIdleBox()->isChecked());
    const QAbstractItemModel* m = v.table()->model();
    QCOMPARE(m->rowCount(), int(rules.size()) - idle);
    QVERIFY2(v.hideIdleBox()->text().contains(QString::number(idle)), qPrintable(v.hideIdleBox()->text()));
    for (int i = 0; i < m->rowCount(); ++i)
      QVERIFY(m->index(i, RewritesModel::Matches).data(Qt::EditRole).toULongLong() > 0 ||
              m->index(i, RewritesModel::Banned).data(Qt::EditRole).toBool());
    // A rule that matched: its name selects its rows only, the idle ones of it still hidden.
    QString rule;
    for (const RuleRound& x : rules)
      if (x.matches > 0) rule = QString::fromStdString(x.rule);
    QVERIFY(!rule.isEmpty());
    v.ruleFilter()->setText(rule.toUpper());  // case-insensitive
    int want = 0, wantAll = 0;
    for (const RuleRound& x : rules) {
      const bool named = QString::fromStdString(x.rule).contains(rule, Qt::CaseInsensitive);
      want += named && (x.matches > 0 || x.banned);
      wantAll += named;
    }
    QCOMPARE(m->rowCount(), want);
    for (int i = 0; i < m->rowCount(); ++i) QVERIFY(cell(m, i, RewritesModel::Rule).contains(rule));
    v.hideIdleBox()->setChecked(false);
    QCOMPARE(m->rowCount(), wantAll);
    v.ruleFilter()->clear();
    QCOMPARE(m->rowCount(), int(rules.size()));
  }

  // "Recompile without this rule": the selected row's rule is asked for once, the button waits for
  // the answer, and the answer shows both plans' predicted times side by side.
  void recompileWithoutARule() {
    AblationContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    RewritesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.hideIdleBox()->setChecked(false);  // table rows are report rows
    QVERIFY(!v.recompileButton()->isEnabled());  // no row selected
    int row = -1;
    const auto& rules = session_->trace().rewrite.report.rules;
    for (std::size_t i = 0; i < rules.size() && row < 0; ++i)
      if (rules[i].nodesAdded > 0) row = int(i);
    QVERIFY(row >= 0);
    v.table()->selectRow(row);
    const QString rule = QString::fromStdString(rules[std::size_t(row)].rule);
    QCOMPARE(v.selectedRule(), rule);
    QVERIFY(v.recompileButton()->isEnabled());
    v.recompileButton()->click();
    QCOMPARE(ctx.asked, QStringList{rule});
    QVERIFY(!v.recompileButton()->isEnabled());

    SessionOptions o = session_->options();
    o.rewrite.off.push_back(rule.toStdString());
    auto without = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/matmul_chain.ks"), o);
    without->runTo(Stage::Planned);
    v.ruleAblated(RuleAblation{rule, without, QString()});
    const QString text = v.comparison()->text();
    const auto ms = [](double ns) { return QString::number(ns / 1e6, 'f', 3) + " ms"; };
    QVERIFY2(text.contains("without " + rule), qPrintable(text));
    QVERIFY2(text.contains(ms(session_->trace().plan.predictedNs)), qPrintable(text));
    QVERIFY2(text.contains(ms(without->trace().plan.predictedNs)), qPrintable(text));
    QVERIFY(v.recompileButton()->isEnabled());
    v.ruleAblated(RuleAblation{"other", nullptr, "late"});  // not asked for: ignored
    QCOMPARE(v.comparison()->text(), text);
  }

  // Without rewrites the view says so and draws nothing; closing empties it.
  void noRewritesAndClose() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    o.rewrite.mode = RewriteMode::None;
    auto s = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/softmax.ks"), o);
    s->runTo(Stage::Planned);
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(s));
    RewritesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    QCOMPARE(v.table()->model()->rowCount(), 0);
    QVERIFY(v.summary()->text().contains("No rewrites ran"));
    QVERIFY(v.chart()->chart()->series().isEmpty());
    v.sessionClosed();
    QCOMPARE(v.table()->model()->rowCount(), 0);
  }
};

QTEST_MAIN(TestRewritesView)
#include "test_rewrites_view.moc"
