// kernelscope: the GUI. `kernelscope [FILE] [--screenshot PATH]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "app/gui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Kernelscope");
  QApplication::setApplicationName("Kernelscope");
  QApplication::setApplicationVersion("0.1.0");
  QApplication::setWindowIcon(QIcon(":/icons/kernelscope.svg"));

  QCommandLineParser parser;
  parser.setApplicationDescription("Kernelscope: a workbench that runs a tensor compiler and shows every stage.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A .ks program, an .onnx model or a sample to open.");
  QCommandLineOption shot("screenshot", "Save a picture of the window to PATH once loading is done, then quit.", "PATH");
  QCommandLineOption size("size", "Window size for --screenshot, e.g. 1600x1000.", "WxH", "1600x1000");
  QCommandLineOption compile("compile", "Compile the opened program (all pipeline stages) once it is loaded.");
  QCommandLineOption tune("tune", "Autotuning level for compiles: none, quick or full.", "LEVEL", "quick");
  QCommandLineOption devices("devices", "Devices for compiles, a comma list (default: all).", "LIST", "all");
  parser.addOption(compile);
  parser.addOption(tune);
  parser.addOption(devices);
  parser.addOption(shot);
  parser.addOption(size);
  parser.process(app);

  ks::MainWindow w;
  if (parser.isSet(shot)) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) w.resize(wh[0].toInt(), wh[1].toInt());
  }
  const QString level = parser.value(tune);
  w.controller().compileOptions().tune = level == "none" ? ks::TuneLevel::None : level == "full" ? ks::TuneLevel::Full : ks::TuneLevel::Quick;
  w.controller().compileOptions().devices = parser.value(devices).toStdString();
  w.show();
  if (!parser.positionalArguments().isEmpty()) w.openFile(parser.positionalArguments().front());
  if (parser.isSet(compile)) {
    // Once, after the first successful load.
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = QObject::connect(&w.controller(), &ks::SessionController::loaded, &w, [&w, conn] {
      QObject::disconnect(*conn);
      QTimer::singleShot(0, &w, [&w] { w.controller().compile(); });
    });
  }
  if (parser.isSet(shot)) {
    const QString path = parser.value(shot);
    // Give the load a moment to start before waiting for idle.
    QTimer::singleShot(200, &w, [&w, path] {
      w.screenshotWhenIdle(path, 120000, [path](bool ok) {
        std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "could not save", qPrintable(path));
        QApplication::exit(ok ? 0 : 1);
      });
    });
  }
  return app.exec();
}
