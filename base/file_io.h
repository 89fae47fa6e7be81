// File input and output that never leaves a half-written file behind.
//
//   TOKVEC_ASSIGN_OR_RETURN(std::string text, ReadFile("corpus.txt"));
//   TOKVEC_ASSIGN_OR_RETURN(AtomicFile out, AtomicFile::Create("model.tokvec"));
//   TOKVEC_RETURN_IF_ERROR(out.Write(bytes));
//   TOKVEC_RETURN_IF_ERROR(out.Commit());  // rename(temp, path); without it the temp file is removed
//
// AtomicFile registers its temporary path so that SIGINT/SIGTERM (see InstallInterruptCleanup) removes it:
// an interrupted run leaves either the old file or nothing.
#ifndef TOKVEC_BASE_FILE_IO_H_
#define TOKVEC_BASE_FILE_IO_H_

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tokvec {

// Reads a whole file ("-" reads standard input). NotFound / PermissionDenied / InvalidArgument (a directory).
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Writes all of `data` to `stream` and flushes; a short write (disk full, closed pipe) is DataLoss.
absl::Status WriteAll(std::FILE* stream, std::string_view data, std::string_view name = "standard output");
// A write to a pipe whose reader has gone (`tokvec encode big.txt | head`) is not an error of the command: WriteAll
// returns this status (kCancelled, used for nothing else), and the CLI stops quietly with exit code 141, as a
// program killed by SIGPIPE would.
absl::Status ClosedPipeError(std::string_view name);
bool IsClosedPipe(const absl::Status& status);

// A file written under a temporary name in the target's folder, renamed into place by Commit(). An existing
// target that is not a regular file (/dev/null, a FIFO) is written in place instead, never replaced.
class AtomicFile {
 public:
  static absl::StatusOr<AtomicFile> Create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  ~AtomicFile();  // Removes the temporary file unless committed.

  absl::Status Write(std::string_view data);
  // Flushes, fsyncs, closes and renames the temporary file to the target path.
  absl::Status Commit();

  std::FILE* stream() const { return stream_; }
  const std::string& path() const { return path_; }

 private:
  AtomicFile(std::string path, std::string temp_path, std::FILE* stream);
  void Abandon();

  std::string path_;       // Final destination.
  std::string temp_path_;  // Where bytes go until Commit().
  std::FILE* stream_ = nullptr;
};

// Writes `data` to `path` atomically ("-" writes to standard output).
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

// Installs SIGINT/SIGTERM handlers that remove registered temporary files, print
// "error: interrupted" and exit with 128+signal. Call once from main().
void InstallInterruptCleanup();

// A read-only memory map of a whole file. Empty files map to an empty view.
class MappedFile {
 public:
  static absl::StatusOr<std::unique_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view data() const { return {static_cast<const char*>(addr_), size_}; }

 private:
  MappedFile(void* addr, size_t size) : addr_(addr), size_(size) {}
  void* addr_;   // nullptr for an empty file.
  size_t size_;  // Bytes mapped.
};

}  // namespace tokvec

#endif  // TOKVEC_BASE_FILE_IO_H_
