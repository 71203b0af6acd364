// CompareDialog: asks what to set the shown session beside — a saved session file, or the shown
// program compiled under other options (tune level, devices, rewrites) — as a DiffRequest.
#pragma once
#include <QDialog>

#include "app/gui/diff_request.h"

class QComboBox;
class QLineEdit;
class QRadioButton;

namespace ks {

class CompareDialog : public QDialog {
  Q_OBJECT
 public:
  // `current`: the shown session's options, which the "compile" choices start from.
  CompareDialog(const SessionOptions& current, QWidget* parent = nullptr);
  DiffRequest request() const;

 private:
  void browse();
  void updateEnabled();
  QRadioButton* fromFile_;
  QRadioButton* fromOptions_;
  QLineEdit* file_;
  QComboBox* tune_;
  QLineEdit* devices_;
  QComboBox* rewrite_;
  SessionOptions current_;
};

}  // namespace ks
