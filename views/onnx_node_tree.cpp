// OnnxNodeTree: scope items built from node names, a recursive filter proxy, selection both ways.
#include "views/onnx_node_tree.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "views/table_fit.h"

namespace ks {
namespace {

constexpr int kNodeRole = Qt::UserRole + 1;  // the node's index on its row's items; absent on scopes
constexpr int kFindRole = Qt::UserRole + 2;  // what the filter reads: the whole name and the op type

QString joinedNames(const std::vector<std::string>& names) {
  QStringList parts;
  for (const std::string& n : names) parts << (n.empty() ? QStringLiteral("-") : QString::fromStdString(n));
  return parts.join(", ");
}

QString typesText(const OnnxNodeInfo& n) {
  QStringList parts;
  for (std::size_t k = 0; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty())
      parts << QString::fromStdString(std::string(dtypeName(n.outputDTypes[k])) + shapeStr(n.outputShapes[k]));
  return parts.join(" ");
}

QString classesText(const std::vector<ClassId>& cs) {
  QStringList parts;
  for (ClassId c : cs) parts << "%" + QString::number(c.v);
  return parts.isEmpty() ? QObject::tr("folded") : parts.join(" ");
}

// The class a node stands for: the newest of its classes with its first result's shape (a node
// makes its operands' views first and its result last), else its newest class.
ClassId resultOf(const OnnxNodeInfo& n, const std::vector<ClassId>& classes, const Graph& g) {
  for (auto it = classes.rbegin(); it != classes.rend(); ++it)
    if (!n.outputShapes.empty() && g.shape(*it) == n.outputShapes[0]) return *it;
  return classes.empty() ? ClassId() : classes.back();
}

}  // namespace

OnnxNodeTree::OnnxNodeTree(QWidget* parent) : QWidget(parent) {
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Find a node: name, scope or op type (e.g. layer3.1/conv2, Conv)"));
  filter_->setClearButtonEnabled(true);
  summary_ = new QLabel(this);
  model_ = new QStandardItemModel(0, ColumnCount, this);
  model_->setHorizontalHeaderLabels({tr("node"), tr("op type"), tr("result"), tr("inputs"), tr("e-classes")});
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setRecursiveFilteringEnabled(true);  // a matching node keeps its scopes in sight
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setFilterRole(kFindRole);
  view_ = new QTreeView(this);
  view_->setModel(proxy_);
  view_->setUniformRowHeights(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  installEliding(view_);
  connect(filter_, &QLineEdit::textChanged, this, &OnnxNodeTree::setFilter);
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (quiet_ || !current.isValid()) return;
    const QVariant node = proxy_->mapToSource(current.siblingAtColumn(0)).data(kNodeRole);
    if (node.isValid() && result_[node.toUInt()].valid()) emit nodeChosen(node.toInt());
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(view_);
  layout->addWidget(summary_);
}

QStandardItem* OnnxNodeTree::scopeItem(const QString& scope) {
  if (scope.isEmpty()) return model_->invisibleRootItem();
  auto it = scopes_.find(scope);
  if (it != scopes_.end()) return it->second;
  const int slash = scope.lastIndexOf('/');
  QStandardItem* parent = scopeItem(slash <= 0 ? QString() : scope.left(slash));
  auto* item = new QStandardItem(scope.mid(slash + 1));
  item->setToolTip(scope);
  item->setData(scope, kFindRole);
  QList<QStandardItem*> row{item};
  for (int c = 1; c < ColumnCount; ++c) row << new QStandardItem();
  parent->appendRow(row);
  scopes_[scope] = item;
  return item;
}

void OnnxNodeTree::setProgram(const Program* program) {
  quiet_ = true;
  model_->removeRows(0, model_->rowCount());
  scopes_.clear();
  rows_.clear();
  result_.clear();
  classes_.clear();
  quiet_ = false;
  if (!program || program->onnxNodes.empty()) {
    summary_->clear();
    return;
  }
  const Program& p = *program;
  classes_ = onnxNodeClasses(p.onnxNodes, p.places, p.graph);
  for (std::size_t i = 0; i < p.onnxNodes.size(); ++i) {
    const OnnxNodeInfo& n = p.onnxNodes[i];
    const QString name = QString::fromStdString(n.name);
    const QString scope = QString::fromStdString(onnxNameScope(n.name));
    result_.push_back(resultOf(n, classes_[i], p.graph));
    QList<QStandardItem*> row{new QStandardItem(name.mid(name.lastIndexOf('/') + 1)),
                              new QStandardItem(QString::fromStdString(n.opType)), new QStandardItem(typesText(n)),
                              new QStandardItem(joinedNames(n.inputs)), new QStandardItem(classesText(classes_[i]))};
    const QString tip = QString("%1 (%2)\ninputs: %3\noutputs: %4 %5\ne-classes: %6")
                            .arg(name, QString::fromStdString(n.opType), joinedNames(n.inputs), joinedNames(n.outputs),
                                 typesText(n), classesText(classes_[i]));
    for (QStandardItem* it : row) it->setData(static_cast<int>(i), kNodeRole), it->setToolTip(tip);
    row[0]->setData(name + " " + QString::fromStdString(n.opType), kFindRole);
    rows_.push_back(row[0]);
    scopeItem(scope)->appendRow(row);
  }
  // Scopes say how many nodes they hold, so a collapsed tree still reads as the model's outline.
  std::map<QString, int> held;
  for (const OnnxNodeInfo& n : p.onnxNodes)
    for (QString scope = QString::fromStdString(onnxNameScope(n.name)); !scope.isEmpty();
         scope = scope.left(std::max<qsizetype>(scope.lastIndexOf('/'), 0)))
      ++held[scope];
  for (auto& [scope, item] : scopes_) {
    QStandardItem* parent = item->parent() ? item->parent() : model_->invisibleRootItem();
    const int count = held[scope];
    parent->child(item->row(), Type)->setText(count == 1 ? tr("1 node") : tr("%1 nodes").arg(count));
  }
  summary_->setText(tr("%1 ONNX nodes in %2 scopes").arg(p.onnxNodes.size()).arg(scopes_.size()));
  view_->expandToDepth(0);
  fitColumns(view_);
}

void OnnxNodeTree::setFilter(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);  // comes back here through textChanged
  proxy_->setFilterFixedString(text);
  if (!text.isEmpty()) view_->expandAll();
}

std::optional<int> OnnxNodeTree::selectedNode() const {
  const QModelIndex current = view_->selectionModel()->currentIndex();
  if (!current.isValid() || !view_->selectionModel()->isSelected(current)) return std::nullopt;
  const QVariant node = proxy_->mapToSource(current.siblingAtColumn(0)).data(kNodeRole);
  return node.isValid() ? std::optional<int>(node.toInt()) : std::nullopt;
}

void OnnxNodeTree::selectRow(const QModelIndex& source) {
  quiet_ = true;
  const QModelIndex shown = proxy_->mapFromSource(source);
  if (shown.isValid()) {
    view_->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view_->scrollTo(shown);
  } else {
    view_->selectionModel()->clearSelection();
  }
  quiet_ = false;
}

void OnnxNodeTree::showClass(std::optional<ClassId> cls) {
  int found = -1;
  if (cls) {
    for (std::size_t i = 0; i < result_.size() && found < 0; ++i)
      if (result_[i] == *cls) found = static_cast<int>(i);
    for (std::size_t i = 0; i < classes_.size() && found < 0; ++i)
      if (std::find(classes_[i].begin(), classes_[i].end(), *cls) != classes_[i].end()) found = static_cast<int>(i);
  }
  if (found == selectedNode().value_or(-1)) return;
  selectRow(found < 0 ? QModelIndex() : rows_[static_cast<std::size_t>(found)]->index());
}

}  // namespace ks
