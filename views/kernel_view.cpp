// KernelView: combo boxes filled from the trace's measurements; the texts come from the kernel
// record (IR) and Session::kernelSource (lowered IR and OpenCL C, on the query worker: lowering
// and emission of a large kernel take long enough to stall the GUI).
#include "views/kernel_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cstdint>

#include "engine/core/error.h"
#include "views/rule_highlighter.h"

namespace ks {

namespace {
QPlainTextEdit* codePane(QWidget* parent) {
  auto* t = new QPlainTextEdit(parent);
  t->setReadOnly(true);
  t->setLineWrapMode(QPlainTextEdit::NoWrap);
  t->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  new RuleHighlighter(RuleHighlighter::Language::OpenCl, t->document());
  return t;
}
}  // namespace

KernelView::KernelView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  kernel_ = new QComboBox(this);
  kernel_->setToolTip(tr("Kernel (follows the shared selection)"));
  device_ = new QComboBox(this);
  device_->setToolTip(tr("Device the kernel was tuned on"));
  schedule_ = new QComboBox(this);
  schedule_->setToolTip(tr("Schedule to lower with: the measured ones, the winner (★) first"));
  // Two rows, and combos that may shrink below their longest entry: the dock shares a column
  // and must not force the window wider than a laptop screen.
  for (QComboBox* c : {kernel_, device_, schedule_}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(8);
  }
  auto* top = new QGridLayout;
  top->addWidget(new QLabel(tr("Kernel"), this), 0, 0);
  top->addWidget(kernel_, 0, 1);
  top->addWidget(new QLabel(tr("Device"), this), 0, 2);
  top->addWidget(device_, 0, 3);
  top->addWidget(new QLabel(tr("Schedule"), this), 1, 0);
  top->addWidget(schedule_, 1, 1, 1, 3);
  top->setColumnStretch(1, 2);
  top->setColumnStretch(3, 1);
  header_ = new QLabel(tr("Nothing compiled."), this);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tabs_ = new QTabWidget(this);
  ir_ = codePane(tabs_);
  lowered_ = codePane(tabs_);
  source_ = codePane(tabs_);
  tabs_->addTab(ir_, tr("IR"));
  tabs_->addTab(lowered_, tr("Lowered IR"));
  tabs_->addTab(source_, tr("OpenCL C"));
  tabs_->setCurrentWidget(source_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(header_);
  layout->addWidget(tabs_, 1);

  connect(kernel_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (updating_ || i < 0) return;
    fillDevices();
    if (context_) {
      Selection s = context_->selection();
      s.kernel = static_cast<uint32_t>(i);
      if (device_->currentIndex() >= 0) s.device = device_->currentData().toUInt();
      context_->select(s, this);
    }
  });
  connect(device_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (!updating_ && i >= 0) fillSchedules();
  });
  connect(schedule_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (!updating_ && i >= 0) showSource();
  });
}

void KernelView::sessionLoaded(const SessionSnapshot& s) {
  session_ = s.session;
  updating_ = true;
  kernel_->clear();
  if (session_)
    for (const KernelRecord& k : session_->trace().kernels) kernel_->addItem(QString::fromStdString(k.name));
  updating_ = false;
  if (!session_ || session_->trace().kernels.empty()) {
    sessionClosed();
    header_->setText(session_ ? tr("No kernels: nothing was fused.") : tr("Not compiled yet: compile to see kernels."));
    return;
  }
  const Selection sel = context_ ? context_->selection() : Selection{};
  updating_ = true;
  kernel_->setCurrentIndex(sel.kernel && *sel.kernel < session_->trace().kernels.size() ? int(*sel.kernel) : 0);
  updating_ = false;
  fillDevices();
  if (sel.device) selectionChanged(sel);
}

void KernelView::sessionClosed() {
  updating_ = true;
  kernel_->clear();
  device_->clear();
  schedule_->clear();
  updating_ = false;
  ir_->clear();
  lowered_->clear();
  source_->clear();
  header_->setText(tr("Nothing compiled."));
}

void KernelView::selectionChanged(const Selection& s) {
  if (!session_ || !s.kernel || *s.kernel >= session_->trace().kernels.size()) return;
  const bool sameKernel = kernel_->currentIndex() == int(*s.kernel);
  updating_ = true;
  kernel_->setCurrentIndex(int(*s.kernel));
  updating_ = false;
  if (!sameKernel) fillDevices();
  if (s.device) {
    const int d = device_->findData(*s.device);
    if (d >= 0 && d != device_->currentIndex()) {
      updating_ = true;
      device_->setCurrentIndex(d);
      updating_ = false;
      fillSchedules();
    }
  }
}

void KernelView::fillDevices() {
  const uint32_t k = static_cast<uint32_t>(std::max(0, kernel_->currentIndex()));
  const CompileTrace& t = session_->trace();
  updating_ = true;
  device_->clear();
  std::vector<uint32_t> seen;
  for (const TuneMeasurement& m : t.measurements)
    if (m.kernel == k && std::find(seen.begin(), seen.end(), m.device) == seen.end()) seen.push_back(m.device);
  // Untuned kernels (tune level none) still lower: offer every compiling device.
  if (seen.empty())
    for (uint32_t d = 0; d < session_->devices().size(); ++d)
      if (session_->devices()[d].compiles()) seen.push_back(d);
  for (uint32_t d : seen)
    device_->addItem(d < session_->devices().size() ? QString::fromStdString(session_->devices()[d].name) : QString::number(d), d);
  if (device_->count() == 0) device_->addItem(tr("(any)"), 0u);
  // The plan's device for this kernel first when it has one.
  for (const KernelEntry& e : t.entries)
    if (e.kind == KernelEntry::Kind::Fused && e.fused == k) {
      const int i = device_->findData(e.device);
      if (i >= 0) device_->setCurrentIndex(i);
      break;
    }
  updating_ = false;
  fillSchedules();
}

void KernelView::fillSchedules(std::optional<uint32_t>) {
  const uint32_t k = static_cast<uint32_t>(std::max(0, kernel_->currentIndex()));
  const uint32_t dev = device_->currentData().toUInt();
  const CompileTrace& t = session_->trace();
  std::string winner;
  for (const TuneSearch& s : t.searches)
    if (s.kernel == k && s.device == dev) winner = s.winner;
  updating_ = true;
  schedule_->clear();
  if (!winner.empty()) schedule_->addItem(QString::fromUtf8("★ ") + QString::fromStdString(winner), QString::fromStdString(winner));
  for (const TuneMeasurement& m : t.measurements) {
    if (m.kernel != k || m.device != dev || m.schedule == winner) continue;
    const QString sched = QString::fromStdString(m.schedule);
    if (schedule_->findData(sched) >= 0) continue;
    QString label = sched;
    if (m.status == TuneStatus::Ok) label += QString("  (%1 us)").arg(m.ns / 1e3, 0, 'f', 1);
    else label += QString("  (%1)").arg(QString(toString(m.status)));
    schedule_->addItem(label, sched);
  }
  if (schedule_->findData(QString("default")) < 0) schedule_->addItem("default", QString("default"));
  schedule_->setCurrentIndex(0);
  updating_ = false;
  showSource();
}

void KernelView::showSource() {
  if (!session_ || kernel_->currentIndex() < 0) return;
  const uint32_t k = static_cast<uint32_t>(kernel_->currentIndex());
  const KernelRecord& rec = session_->trace().kernels[k];
  const std::string sched = schedule_->currentData().toString().toStdString();
  header_->setText(tr("%1 — %2 ops, %3 MFLOP, %4 KiB moved; %5; schedule %6 on %7")
                       .arg(QString::fromStdString(rec.name))
                       .arg(rec.fused.kernel.ops.size())
                       .arg(rec.flops / 1e6, 0, 'f', 3)
                       .arg(rec.bytes / 1024.0, 0, 'f', 1)
                       .arg(QString::fromStdString(rec.fused.phase))
                       .arg(QString::fromStdString(sched), device_->currentText()));
  ir_->setPlainText(QString::fromStdString(rec.fused.kernel.print()));
  if (!context_) return;
  lowered_->setPlainText(tr("/* lowering… */"));
  source_->setPlainText(tr("/* generating… */"));
  std::shared_ptr<const Session> session = session_;
  const std::string key = "source " + std::to_string(reinterpret_cast<std::uintptr_t>(session.get())) + " " +
                          std::to_string(k) + " " + sched;
  postQuery<KernelSource>(
      context_->queries(), RequestKind::KernelSource, key,
      [session, k, sched] {
        KernelSource r;
        r.source = session->kernelSource(k, sched, &r.lowered);
        return r;
      },
      this, [this, name = rec.name, sched](const KernelSource& r) { showText(r, name, sched); },
      [this, name = rec.name, sched](const std::string& error) {
        KernelSource r;
        r.error = error;
        showText(r, name, sched);
      });
}

void KernelView::showText(const KernelSource& r, const std::string& kernel, const std::string& schedule) {
  ++answered_;
  if (r.error.empty()) {
    lowered_->setPlainText(QString::fromStdString(r.lowered));
    source_->setPlainText(QString::fromStdString(r.source));
    return;
  }
  const QString msg = tr("/* could not lower %1 with schedule %2:\n   %3 */")
                          .arg(QString::fromStdString(kernel), QString::fromStdString(schedule), QString::fromStdString(r.error));
  lowered_->setPlainText(msg);
  source_->setPlainText(msg);
}

}  // namespace ks
