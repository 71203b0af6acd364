// CompareDialog: two choices, each with its fields; OK gives the request.
#include "app/gui/compare_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include "engine/tune/autotuner.h"

namespace ks {

CompareDialog::CompareDialog(const SessionOptions& current, QWidget* parent) : QDialog(parent), current_(current) {
  setWindowTitle(tr("Compare with"));
  setObjectName("CompareDialog");
  auto* layout = new QVBoxLayout(this);
  fromOptions_ = new QRadioButton(tr("This program compiled with other options"), this);
  fromFile_ = new QRadioButton(tr("A saved session (.kss.json)"), this);
  fromOptions_->setChecked(true);

  auto* form = new QFormLayout;
  tune_ = new QComboBox(this);
  for (TuneLevel l : {TuneLevel::None, TuneLevel::Quick, TuneLevel::Full}) tune_->addItem(tuneLevelName(l), int(l));
  // The level most worth comparing with is the other end from the shown one.
  tune_->setCurrentIndex(current.tune == TuneLevel::None ? 1 : 0);
  devices_ = new QLineEdit(QString::fromStdString(current.devices), this);
  devices_->setToolTip(tr("A --devices list: all, host, opencl:0:0, opencl:0:0,openblas"));
  rewrite_ = new QComboBox(this);
  for (RewriteMode m : {RewriteMode::None, RewriteMode::Default, RewriteMode::Aggressive})
    rewrite_->addItem(rewriteModeName(m), int(m));
  rewrite_->setCurrentIndex(rewrite_->findData(int(current.rewrite.mode)));
  rewrite_->setToolTip(tr("none: rewrite rules off"));
  form->addRow(tr("Tune level"), tune_);
  form->addRow(tr("Devices"), devices_);
  form->addRow(tr("Rewrites"), rewrite_);

  auto* fileRow = new QHBoxLayout;
  file_ = new QLineEdit(this);
  file_->setPlaceholderText(tr("session.kss.json"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  fileRow->addWidget(file_, 1);
  fileRow->addWidget(browse);

  layout->addWidget(fromOptions_);
  layout->addLayout(form);
  layout->addWidget(fromFile_);
  layout->addLayout(fileRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QPushButton::clicked, this, &CompareDialog::browse);
  connect(fromFile_, &QRadioButton::toggled, this, &CompareDialog::updateEnabled);
  connect(file_, &QLineEdit::textChanged, this, &CompareDialog::updateEnabled);
  updateEnabled();
}

void CompareDialog::browse() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Compare with session"), QString(), tr("Sessions (*.kss.json *.json)"));
  if (path.isEmpty()) return;
  file_->setText(path);
  fromFile_->setChecked(true);
}

void CompareDialog::updateEnabled() {
  const bool file = fromFile_->isChecked();
  for (QWidget* w : std::initializer_list<QWidget*>{tune_, devices_, rewrite_}) w->setEnabled(!file);
  file_->setEnabled(file);
  if (auto* box = findChild<QDialogButtonBox*>()) box->button(QDialogButtonBox::Ok)->setEnabled(!file || !file_->text().isEmpty());
}

DiffRequest CompareDialog::request() const {
  DiffRequest r;
  if (fromFile_->isChecked()) {
    r.file = file_->text();
    return r;
  }
  // Only what differs from the shown session names B.
  const auto tune = TuneLevel(tune_->currentData().toInt());
  const auto rewrite = RewriteMode(rewrite_->currentData().toInt());
  const std::string devices = devices_->text().trimmed().toStdString();
  if (tune != current_.tune) r.tune = tune;
  if (!devices.empty() && devices != current_.devices) r.devices = devices;
  if (rewrite != current_.rewrite.mode) r.rewrite = rewrite;
  return r;
}

}  // namespace ks
