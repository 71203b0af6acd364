// The Kernel view: the selected kernel's unlowered IR, its lowered IR and the OpenCL C generated
// for a chosen device and schedule (the measured ones, the winner by default), highlighted.
#pragma once
#include <QWidget>
#include <memory>
#include <optional>

#include "views/session_view.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace ks {

// What the query worker lowered and emitted for one kernel and schedule.
struct KernelSource {
  std::string lowered, source;
  std::string error;  // why it could not be lowered; empty on success
};

class KernelView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit KernelView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;

  QComboBox* kernelBox() const { return kernel_; }
  QComboBox* deviceBox() const { return device_; }
  QComboBox* scheduleBox() const { return schedule_; }
  QPlainTextEdit* irText() const { return ir_; }
  QPlainTextEdit* loweredText() const { return lowered_; }
  QPlainTextEdit* sourceText() const { return source_; }
  QTabWidget* tabs() const { return tabs_; }
  // Source texts shown so far (each comes from the query worker after a kernel or schedule change).
  int sourcesShown() const { return answered_; }

 private:
  void fillDevices();
  void fillSchedules(std::optional<uint32_t> preferDevice = std::nullopt);
  void showSource();
  void showText(const KernelSource& r, const std::string& kernel, const std::string& schedule);
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  QComboBox* kernel_;
  QComboBox* device_;
  QComboBox* schedule_;
  QLabel* header_;
  QTabWidget* tabs_;
  QPlainTextEdit* ir_;
  QPlainTextEdit* lowered_;
  QPlainTextEdit* source_;
  bool updating_ = false;
  int answered_ = 0;
};

}  // namespace ks
