// An imported ONNX model as its author wrote it: its nodes nested by name scope
// (/layer3/layer3.1/conv2/Conv under layer3 › layer3.1 › conv2), with op type, result types,
// operands and the e-classes each node made, and a filter that keeps matching nodes and their
// scopes. Choosing a node asks for its result class; a class chosen elsewhere finds its node.
#pragma once
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "engine/program/program.h"

class QLineEdit;
class QLabel;
class QTreeView;
class QStandardItem;
class QStandardItemModel;
class QSortFilterProxyModel;

namespace ks {

class OnnxNodeTree : public QWidget {
  Q_OBJECT
 public:
  enum Column { Name, OpType, Type, Inputs, Classes, ColumnCount };
  explicit OnnxNodeTree(QWidget* parent = nullptr);

  // Fills the tree from the program's node table (clears it when the program has none).
  void setProgram(const Program* program);
  // Selects and shows the node that made `cls` (its result first, else any node listing it);
  // clears the selection when none did. Emits nothing.
  void showClass(std::optional<ClassId> cls);
  void setFilter(const QString& text);

  int nodeCount() const { return static_cast<int>(result_.size()); }
  // The node shown selected (index into Program::onnxNodes), if any.
  std::optional<int> selectedNode() const;
  // The class a node stands for in the other views: its first result's class.
  ClassId resultClass(int node) const { return result_.at(static_cast<std::size_t>(node)); }
  QTreeView* view() const { return view_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }

 signals:
  void nodeChosen(int node);

 private:
  QStandardItem* scopeItem(const QString& scope);
  void selectRow(const QModelIndex& source);
  QLineEdit* filter_;
  QLabel* summary_;
  QTreeView* view_;
  QStandardItemModel* model_;
  QSortFilterProxyModel* proxy_;
  std::vector<ClassId> result_;                 // per node: the class it stands for (invalid: folded)
  std::vector<std::vector<ClassId>> classes_;   // per node: every class it made
  std::vector<QStandardItem*> rows_;            // per node: its row's first item
  std::map<QString, QStandardItem*> scopes_;
  bool quiet_ = false;                          // selecting to follow the others emits nothing
};

}  // namespace ks
