// NumPy .npy reader and writer: parses the header's dict literal by hand (descr, fortran_order, shape).
#include "engine/io/npy.h"

#include <cstring>

#include "engine/core/error.h"
#include "engine/core/file_io.h"

namespace ks {
namespace {

struct NpyType {
  const char* code;  // without the byte-order character
  DType dtype;
};
// u1 and b1 share a byte size with bool/u8; numpy writes bool as "|b1".
const NpyType kTypes[] = {{"b1", DType::Bool}, {"u1", DType::U8},  {"i1", DType::I8},  {"i2", DType::I16},
                          {"i4", DType::I32},  {"i8", DType::I64}, {"u4", DType::U32}, {"f2", DType::F16},
                          {"f4", DType::F32},  {"f8", DType::F64}};

[[noreturn]] void bad(const std::string& file, const std::string& msg) {
  throw Error(ErrorCode::Parse, "malformed .npy: " + msg, {file});
}

// The value text after 'key': in the header dict, up to the next top-level comma or brace.
std::string field(const std::string& header, const std::string& key, const std::string& file) {
  const std::string k1 = "'" + key + "'";
  std::size_t p = header.find(k1);
  if (p == std::string::npos) bad(file, "header has no " + k1);
  p = header.find(':', p + k1.size());
  if (p == std::string::npos) bad(file, "header field " + k1 + " has no value");
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  std::size_t e = p;
  if (p < header.size() && header[p] == '(') {
    e = header.find(')', p);
    if (e == std::string::npos) bad(file, "unterminated shape tuple");
    return header.substr(p, e - p + 1);
  }
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  std::string v = header.substr(p, e - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

}  // namespace

HostTensor parseNpy(const std::string& bytes, const std::string& file) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) bad(file, "missing the \\x93NUMPY magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t headerLen = 0, off = 0;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(file, "truncated header");
    for (int i = 0; i < 4; ++i) headerLen |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    off = 12;
  } else {
    bad(file, "unknown format version " + std::to_string(major));
  }
  if (off + headerLen > bytes.size()) bad(file, "truncated header");
  const std::string header = bytes.substr(off, headerLen);
  off += headerLen;

  std::string descr = field(header, "descr", file);
  if (descr.size() < 4 || (descr.front() != '\'' && descr.front() != '"')) bad(file, "bad descr " + descr);
  descr = descr.substr(1, descr.size() - 2);
  if (descr.size() != 3) throw Error(ErrorCode::Unsupported, "unsupported .npy dtype '" + descr + "'", {file});
  if (descr[0] == '>' && descr.substr(1) != "b1" && descr.substr(1) != "u1" && descr.substr(1) != "i1")
    throw Error(ErrorCode::Unsupported, "big-endian .npy data is not supported", {file});
  const NpyType* type = nullptr;
  for (const NpyType& t : kTypes)
    if (descr.substr(1) == t.code) type = &t;
  if (!type) throw Error(ErrorCode::Unsupported, "unsupported .npy dtype '" + descr + "'", {file});
  if (field(header, "fortran_order", file) != "False")
    throw Error(ErrorCode::Unsupported, "Fortran-order .npy data is not supported", {file});

  const std::string shapeText = field(header, "shape", file);
  Shape shape;
  std::size_t p = 1;
  while (p < shapeText.size()) {
    while (p < shapeText.size() && (shapeText[p] == ' ' || shapeText[p] == ',')) ++p;
    if (p >= shapeText.size() || shapeText[p] == ')') break;
    std::size_t used = 0;
    long long d = 0;
    try {
      d = std::stoll(shapeText.substr(p), &used);
    } catch (...) {
      bad(file, "bad shape " + shapeText);
    }
    if (d < 0 || used == 0) bad(file, "bad shape " + shapeText);
    shape.push_back(d);
    p += used;
  }
  // Guard the multiplication before allocating: a hostile header must not overflow numel.
  long double elems = 1;
  for (Dim d : shape) elems *= static_cast<long double>(d);
  if (elems * dtypeSize(type->dtype) > static_cast<long double>(bytes.size() - off))
    bad(file, "truncated data: shape " + shapeStr(shape) + " needs more bytes than the file holds");
  HostTensor t(type->dtype, shape);
  std::memcpy(t.bytes(), bytes.data() + off, t.byteSize());
  if (type->dtype == DType::Bool)  // normalize to 0/1
    for (std::size_t i = 0; i < t.byteSize(); ++i) t.bytes()[i] = std::byte{t.bytes()[i] != std::byte{0}};
  return t;
}

HostTensor readNpy(const std::string& path) { return parseNpy(readFile(path, "a .npy array"), path); }

std::string npyBytes(const HostTensor& t) {
  const char* code = nullptr;
  for (const NpyType& k : kTypes)
    if (k.dtype == t.dtype()) code = k.code;
  std::string shape = "(";
  for (Dim d : t.shape()) shape += std::to_string(d) + ",";
  if (t.shape().size() > 1) shape.pop_back();
  shape += ")";
  const char order = (t.dtype() == DType::Bool || t.dtype() == DType::U8 || t.dtype() == DType::I8) ? '|' : '<';
  std::string header = std::string("{'descr': '") + order + code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, header ending in '\n'.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes()), t.byteSize());
  return out;
}

void writeNpy(const std::string& path, const HostTensor& t) { writeFileAtomically(path, npyBytes(t), "a .npy array"); }

}  // namespace ks
