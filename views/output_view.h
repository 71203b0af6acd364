// The Output view: the outputs of the last run (name, dtype, shape, min/max/mean, verify status
// against the host) and the values of the selected one, paged, as a 2-D table of its last two axes
// with an index selector over the leading axes.
#pragma once
#include <QAbstractTableModel>
#include <QWidget>
#include <memory>

#include "engine/session/compile_trace.h"
#include "views/session_view.h"

class QLabel;
class QSpinBox;
class QTableView;

namespace ks {

class OutputSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, DTypeCol, ShapeCol, Min, Max, Mean, Verify, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  // `session` (optional) gives the shape of outputs whose values a saved session left out.
  void setOutputs(const std::vector<OutputValue>* outputs, const Session* session = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  const RunRecord* run() const;  // the run the outputs belong to (its verification mode)
  const std::vector<OutputValue>* outputs_ = nullptr;
  const Session* session_ = nullptr;
};

// One 2-D slice of a tensor: rows = the second-to-last axis (paged), columns = the last axis.
// A 0-D tensor is one cell; a 1-D one is one row.
class TensorSliceModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kPageRows = 256;
  using QAbstractTableModel::QAbstractTableModel;
  void setTensor(const HostTensor* t);
  void setSlice(int64_t leading);  // flat index over the leading axes
  void setPage(int page);
  int64_t sliceCount() const;
  int pageCount() const;
  int64_t rowsTotal() const;
  int64_t colsTotal() const;
  int64_t flatIndex(int row, int col) const;  // element of the tensor at a cell of this page
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  const HostTensor* t_ = nullptr;
  int64_t slice_ = 0;
  int page_ = 0;
};

class OutputView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit OutputView(SessionContext* context, QWidget* parent = nullptr);
  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection&) override {}

  void showSession(std::shared_ptr<const Session> session);
  void selectOutput(int row);
  void setSlice(int64_t leading);
  void setPage(int page);

  QTableView* summaryTable() const { return summary_; }
  QTableView* valuesTable() const { return values_; }
  const OutputSummaryModel* summaryModel() const { return summaryModel_; }
  const TensorSliceModel* sliceModel() const { return sliceModel_; }
  QLabel* header() const { return header_; }

 private:
  void refreshHeader();
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  OutputSummaryModel* summaryModel_;
  TensorSliceModel* sliceModel_;
  QTableView* summary_;
  QTableView* values_;
  QLabel* header_;
  QSpinBox* slice_;
  QSpinBox* page_;
  int output_ = -1;
};

}  // namespace ks
