// readFile, checkWritableFile, writeFileAtomically: POSIX calls whose every result is checked.
#include "engine/core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/core/error.h"

namespace ks {

namespace {
std::string reason() { return std::strerror(errno); }

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Error(ErrorCode::Io, what, {path}); }

void checkNotDirectory(const std::string& path, const std::string& expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not " + expected);
}
}  // namespace

std::string readFile(const std::string& path, const std::string& expected) {
  checkNotDirectory(path, expected);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open " + expected + ": " + reason());
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = reason();
      ::close(fd);
      fail(path, "cannot read " + expected + ": " + why);
    }
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

void checkWritableFile(const std::string& path, const std::string& expected) {
  if (path.empty()) fail(path, "an empty path cannot hold " + expected);
  checkNotDirectory(path, expected);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    fail(path, "cannot write " + expected + ": the folder " + folder.string() + " does not exist");
}

void writeFileAtomically(const std::string& path, const std::string& data, const std::string& expected) {
  checkWritableFile(path, expected);
  // O_EXCL: an existing file of that name (someone's) is never truncated; try the next name.
  std::string tmp;
  int fd = -1;
  for (int n = 0; n < 100 && fd < 0; ++n) {
    tmp = path + ".tmp" + std::to_string(::getpid()) + (n ? "." + std::to_string(n) : "");
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) fail(path, "cannot write " + expected + " (creating " + tmp + "): " + reason());
  }
  if (fd < 0) fail(path, "cannot write " + expected + ": no free temporary name beside it");
  auto abandon = [&](const std::string& step) {
    const std::string why = reason();
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, "cannot write " + expected + " (" + step + "): " + why);
  };
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) abandon("writing " + tmp);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("flushing " + tmp);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("closing " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) abandon("renaming " + tmp + " to it");
}

}  // namespace ks
