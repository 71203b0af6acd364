// Command-line parsing of kernelscope-cli: one CLI11 parser per command, with the conventions every
// command shares (the last value of a repeated flag wins, values validated before any work).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ks::cli {

// Thrown for bad usage; main() prints it with the usage text and exits 2.
struct UsageError {
  std::string message;
};

class Args {
 public:
  explicit Args(const std::string& command);
  CLI::App& app() { return app_; }
  // Registers the positional arguments (FILE, DIR..., CLASS_A ...) into `positional()`.
  void positionals(const std::string& name, const std::string& help);
  const std::vector<std::string>& positional() const { return positional_; }
  // A flag whose every value is kept (--input, bench's --devices).
  CLI::Option* repeatable(const std::string& flag, std::vector<std::string>& values, const std::string& help);
  // Parses argv after the command name. Returns false when --help was asked (the help is printed);
  // throws UsageError for an unknown flag, a missing value or a value its validator refuses.
  bool parse(int argc, char** argv);
  bool given(const std::string& flag) const { return app_.count("--" + flag) > 0; }

 private:
  CLI::App app_;
  std::vector<std::string> positional_;
};

// Validators with messages in the CLI's words.
CLI::Validator atLeast(long long lowest);          // an integer >= lowest
CLI::Validator finiteAtLeast(double lowest, bool strictly = false);  // no NaN, no inf
CLI::Validator deviceList();                       // "a,b,...": no empty name, not empty

}  // namespace ks::cli
