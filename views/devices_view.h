// The Devices view: the session's devices with their properties and a checkbox each, "Run on
// selected" (asks the window to recompile and run on those), and a comparison of the runs: time
// per kernel and in total per run's devices, speed-ups, and achieved GB/s and GFLOP/s against peaks.
#pragma once
#include <QWidget>
#include <memory>

#include "views/session_view.h"

class QChartView;
class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace ks {

class DevicesView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit DevicesView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;

  QStandardItemModel* devicesModel() const { return devices_; }
  QStandardItemModel* runsModel() const { return runs_; }
  QTableView* devicesTable() const { return devicesTable_; }
  QTableView* runsTable() const { return runsTable_; }
  QPushButton* runButton() const { return run_; }
  // The checked devices as a --devices list ("opencl:0:0,openblas").
  QString checkedDevices() const;
  int chartBarCount() const;

 signals:
  // The user asked to compile and run on these devices (a --devices list).
  void runRequested(const QString& devices);

 private:
  void buildComparison();
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  QStandardItemModel* devices_;
  QStandardItemModel* runs_;
  QTableView* devicesTable_;
  QTableView* runsTable_;
  QPushButton* run_;
  QLabel* summary_;
  QChartView* chartView_;
  bool updating_ = false;
};

}  // namespace ks
