// The Devices view: the device selections worth comparing (host, each OpenCL device, each with
// openblas) with their devices' properties and measured peaks and a checkbox each; "Compare
// checked" (asks the window to compile and run the program once per checked selection); and the
// engine's DeviceComparison side by side: per-kernel and total time per selection, speed-ups
// against the slowest or a chosen selection, achieved GFLOP/s and GB/s against each device's peak.
#pragma once
#include <QStringList>
#include <QWidget>
#include <memory>

#include "views/session_view.h"

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
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
  void comparisonChanged(const SessionSnapshot& s) override;

  QStandardItemModel* devicesModel() const { return devices_; }
  QStandardItemModel* comparisonModel() const { return compare_; }
  QTableView* devicesTable() const { return devicesTable_; }
  QTableView* comparisonTable() const { return compareTable_; }
  QPushButton* compareButton() const { return compareButton_; }
  QComboBox* baselineBox() const { return baseline_; }
  // Why no OpenCL device is listed (hidden when one is).
  QLabel* noteLabel() const { return note_; }
  // The checked selections (each a --devices list: "host", "opencl:0:0,openblas").
  QStringList checkedSelections() const;
  void setChecked(const QStringList& selections);
  // Bars in the chart: one per shown row and selection (at most 7 kernels, the rest as one
  // "other kernels" bar, then copies and total).
  int chartBarCount() const;
  // Columns of the comparison table per selection (after "kernel" and "kind").
  // "us (speed-up)" (value: us, UserRole+2: the speed-up), "GFLOP/s (% peak)", "GB/s (% peak)"
  // (value: the rate, UserRole+2: % of peak); numbers in UserRole+1.
  static constexpr int kColumnsPerSelection = 3;

 signals:
  // The user asked to compile and run the program once per selection.
  void compareRequested(const QStringList& selections);

 private:
  void fillDevices(const SessionSnapshot& s);
  void fillComparison();
  void buildChart(const std::vector<ComparisonRow>& rows);
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  std::shared_ptr<const DeviceComparison> comparison_;
  bool live_ = false;
  QStandardItemModel* devices_;
  QStandardItemModel* compare_;
  QTableView* devicesTable_;
  QTableView* compareTable_;
  QPushButton* compareButton_;
  QComboBox* baseline_;
  QLabel* summary_;
  QLabel* note_;
  QChartView* chartView_;
  QSplitter* split_;
  bool updating_ = false;
};

}  // namespace ks
