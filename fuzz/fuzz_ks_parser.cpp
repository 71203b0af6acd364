// libFuzzer target for the .ks parser: any input must parse or give ks::Error (never crash, hang
// or throw anything else), and a program that parses must print (graph form) and parse back to
// the same e-graph cache key.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "engine/io/ks_printer.h"
#include "engine/io/program_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 16)) return 0;  // long inputs only slow the search down
  const std::string text(reinterpret_cast<const char*>(data), size);
  ks::Program p;
  try {
    p = ks::parseKs(text, "fuzz.ks");
  } catch (const ks::Error&) {
    return 0;
  }
  std::string printed;
  try {
    printed = ks::printKsGraph(p);
  } catch (const ks::Error&) {
    std::abort();  // every parsed program must print
  }
  try {
    if (ks::parseKs(printed, "printed.ks").cacheKey() != p.cacheKey()) std::abort();
  } catch (const ks::Error&) {
    std::abort();  // and what is printed must parse
  }
  return 0;
}
