#include "base/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <random>

#include "fmt/format.h"

namespace tokvec {
namespace {

absl::Status ErrnoStatus(int err, std::string_view what, std::string_view path) {
  std::string message = fmt::format("{} '{}': {}", what, path, std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case ENOSPC:
    case EIO:
      return absl::DataLossError(message);
    default:
      return absl::InvalidArgumentError(message);
  }
}

// Temporary paths that a signal handler must remove. Fixed storage: the handler may not allocate.
constexpr int kMaxTempFiles = 64;
constexpr int kMaxPath = 4096;
char g_temp_paths[kMaxTempFiles][kMaxPath];
std::atomic<bool> g_temp_used[kMaxTempFiles];

int RegisterTemp(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kMaxTempFiles; ++i) {
    bool expected = false;
    if (g_temp_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
      return i;
    }
  }
  return -1;
}

void UnregisterTemp(const std::string& path) {
  for (int i = 0; i < kMaxTempFiles; ++i) {
    if (g_temp_used[i].load() && path == g_temp_paths[i]) {
      g_temp_used[i].store(false);
      return;
    }
  }
}

extern "C" void OnInterrupt(int signo) {
  for (int i = 0; i < kMaxTempFiles; ++i) {
    if (g_temp_used[i].load()) unlink(g_temp_paths[i]);
  }
  static const char kMessage[] = "error: interrupted; no output file was written\n";
  ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  (void)ignored;
  _exit(128 + signo);
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  int fd = path == "-" ? STDIN_FILENO : open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(fmt::format("'{}' is a directory, not a file", path));
  }
  std::string data;
  if (S_ISREG(st.st_mode) && st.st_size > 0) data.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (fd != STDIN_FILENO) close(fd);
      return ErrnoStatus(err, "cannot read", path);
    }
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  if (fd != STDIN_FILENO) close(fd);
  return data;
}

absl::Status WriteAll(std::FILE* stream, std::string_view data, std::string_view name) {
  if ((!data.empty() && std::fwrite(data.data(), 1, data.size(), stream) != data.size()) ||
      std::fflush(stream) != 0) {
    const int error = errno ? errno : EIO;
    if (error == EPIPE) return ClosedPipeError(name);
    return ErrnoStatus(error, "cannot write to", name);
  }
  return absl::OkStatus();
}

absl::Status ClosedPipeError(std::string_view name) {
  return absl::CancelledError(fmt::format("{}: the reader closed the pipe", name));
}

bool IsClosedPipe(const absl::Status& status) { return status.code() == absl::StatusCode::kCancelled; }

AtomicFile::AtomicFile(std::string path, std::string temp_path, std::FILE* stream)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), stream_(stream) {}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), temp_path_(std::move(other.temp_path_)), stream_(other.stream_) {
  other.stream_ = nullptr;
  other.temp_path_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    Abandon();
    path_ = std::move(other.path_);
    temp_path_ = std::move(other.temp_path_);
    stream_ = other.stream_;
    other.stream_ = nullptr;
    other.temp_path_.clear();
  }
  return *this;
}

AtomicFile::~AtomicFile() { Abandon(); }

void AtomicFile::Abandon() {
  if (stream_ != nullptr) {
    std::fclose(stream_);
    stream_ = nullptr;
  }
  if (!temp_path_.empty()) {
    unlink(temp_path_.c_str());
    UnregisterTemp(temp_path_);
    temp_path_.clear();
  }
}

absl::StatusOr<AtomicFile> AtomicFile::Create(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty output path");
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(fmt::format("output '{}' is a directory", path));
  }
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or FIFO (/dev/null, /dev/stdout, a named pipe) is written in place: renaming a temporary file
    // onto it would replace the device node itself with a regular file.
    std::FILE* stream = std::fopen(path.c_str(), "wbe");
    if (stream == nullptr) return ErrnoStatus(errno, "cannot open output file", path);
    return AtomicFile(path, "", stream);
  }
  std::string temp = fmt::format("{}.tmp-{}-{}", path, getpid(), std::random_device{}());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, "cannot create output file", path);
  RegisterTemp(temp);
  std::FILE* stream = fdopen(fd, "wb");
  if (stream == nullptr) {
    int err = errno;
    close(fd);
    unlink(temp.c_str());
    UnregisterTemp(temp);
    return ErrnoStatus(err, "cannot open output file", path);
  }
  return AtomicFile(path, std::move(temp), stream);
}

absl::Status AtomicFile::Write(std::string_view data) {
  if (stream_ == nullptr) return absl::FailedPreconditionError("write to a closed file");
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), stream_) != data.size()) {
    return ErrnoStatus(errno ? errno : EIO, "cannot write", path_);
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::Commit() {
  if (stream_ == nullptr) return absl::FailedPreconditionError("commit of a closed file");
  const bool in_place = temp_path_.empty();  // A device or FIFO: nothing to fsync or rename.
  bool ok = std::fflush(stream_) == 0 && (in_place || fsync(fileno(stream_)) == 0);
  int err = errno;
  ok = (std::fclose(stream_) == 0) && ok;
  stream_ = nullptr;
  if (!ok) {
    Abandon();
    return ErrnoStatus(err ? err : EIO, "cannot write", path_);
  }
  if (in_place) return absl::OkStatus();
  if (rename(temp_path_.c_str(), path_.c_str()) != 0) {
    err = errno;
    Abandon();
    return ErrnoStatus(err, "cannot rename temporary file onto", path_);
  }
  UnregisterTemp(temp_path_);
  temp_path_.clear();
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  if (path == "-") return WriteAll(stdout, data);
  absl::StatusOr<AtomicFile> file = AtomicFile::Create(path);
  if (!file.ok()) return file.status();
  absl::Status status = file->Write(data);
  if (!status.ok()) return status;
  return file->Commit();
}

void InstallInterruptCleanup() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // A closed pipe becomes a write error (EPIPE), reported as one.
}

absl::StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return ErrnoStatus(err, "cannot stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(fmt::format("'{}' is not a regular file", path));
  }
  size_t size = static_cast<size_t>(st.st_size);
  void* addr = nullptr;
  if (size > 0) {
    addr = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      int err = errno;
      close(fd);
      return ErrnoStatus(err, "cannot map", path);
    }
  }
  close(fd);
  return std::unique_ptr<MappedFile>(new MappedFile(addr, size));
}

MappedFile::~MappedFile() {
  if (addr_ != nullptr) munmap(addr_, size_);
}

}  // namespace tokvec
