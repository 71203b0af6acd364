// The Autotune view: every measured schedule of every kernel on every device (sortable, filterable
// table with the winners marked and each search's stop reason) and a bar chart of the schedule
// times of the selected kernel (views/autotune_chart.h), one bar set per device.
#pragma once
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <memory>
#include <optional>

#include "views/session_view.h"

class QTableView;
class QLineEdit;
class QCheckBox;
class QLabel;
class QChartView;
class QChart;
class QListWidget;

namespace ks {

// One row per TuneMeasurement of the session's trace.
class AutotuneModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Kernel, Device, Schedule, Status, TimeUs, Winner, StopReason, Reason, Cached, ColumnCount };
  static constexpr int SortRole = Qt::UserRole + 1;    // numbers sort as numbers
  static constexpr int KernelRole = Qt::UserRole + 2;  // kernel index (trace().kernels)
  static constexpr int DeviceRole = Qt::UserRole + 3;  // device index (session devices)

  explicit AutotuneModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setSession(std::shared_ptr<const Session> s);
  const Session* session() const { return session_.get(); }
  bool isWinner(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  const TuneSearch* searchOf(uint32_t kernel, uint32_t device) const;
  std::shared_ptr<const Session> session_;
};

// Text filter over every column plus an optional "only this kernel" filter (following the selection).
class AutotuneFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void setKernel(std::optional<uint32_t> k);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  std::optional<uint32_t> kernel_;
};

class AutotuneView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit AutotuneView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;

  QTableView* table() const { return table_; }
  AutotuneModel* model() const { return model_; }
  AutotuneFilter* proxy() const { return proxy_; }
  QLineEdit* filterBox() const { return filter_; }
  QCheckBox* followBox() const { return follow_; }
  QCheckBox* logBox() const { return log_; }
  // The selected kernel's schedules that have no time, one line each with its status.
  QListWidget* failedList() const { return failed_; }
  QChart* chart() const;
  // Bars in the chart (sets x categories); for the tests.
  int chartBarCount() const;

 private:
  void showKernel(std::optional<uint32_t> kernel, std::optional<uint32_t> device);
  void onRowSelected();
  SessionContext* context_;
  AutotuneModel* model_;
  AutotuneFilter* proxy_;
  QTableView* table_;
  QLineEdit* filter_;
  QCheckBox* follow_;
  QCheckBox* log_;
  QListWidget* failed_;
  QLabel* summary_;
  QChartView* chartView_;
  std::optional<uint32_t> chartKernel_;
  bool updating_ = false;
};

}  // namespace ks
