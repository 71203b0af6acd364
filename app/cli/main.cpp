// kernelscope-cli entry point: parses the command and dispatches; exit codes per DESIGN.md §4.2.
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kernelscope-cli <command> [options]\n");
    return 2;
  }
  std::fprintf(stderr, "kernelscope-cli: unknown command '%s'\n", argv[1]);
  return 2;
}
