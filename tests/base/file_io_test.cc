#include "base/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

std::string TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tokvec_io_XXXXXX").string();
  return mkdtemp(pattern.data());
}

TEST(FileIoTest, AtomicWriteReplacesFileAndLeavesNoTemp) {
  std::string dir = TempDir();
  std::string path = dir + "/out.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "new contents").ok());
  absl::StatusOr<std::string> read = ReadFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "new contents");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(FileIoTest, AbandonedFileKeepsOldContents) {
  std::string dir = TempDir();
  std::string path = dir + "/out.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  {
    absl::StatusOr<AtomicFile> file = AtomicFile::Create(path);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Write("half").ok());
  }  // Destroyed without Commit().
  EXPECT_EQ(*ReadFile(path), "old");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}

TEST(FileIoTest, MissingFileIsNotFoundAndNamesPath) {
  absl::StatusOr<std::string> read = ReadFile("/nonexistent/tokvec/file.txt");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(read.status().message().find("/nonexistent/tokvec/file.txt"), std::string::npos);
}

TEST(FileIoTest, UnwritableDirectoryIsAnError) {
  absl::Status status = WriteFileAtomically("/nonexistent/dir/out.txt", "x");
  EXPECT_FALSE(status.ok());
}

TEST(FileIoTest, WriteToDevFullIsDataLoss) {
  std::FILE* full = std::fopen("/dev/full", "wb");
  if (full == nullptr) GTEST_SKIP() << "/dev/full is not available";
  absl::Status status = WriteAll(full, std::string(1 << 16, 'x'), "/dev/full");
  std::fclose(full);
  EXPECT_FALSE(status.ok());
}

TEST(FileIoTest, MappedFileSeesBytes) {
  std::string dir = TempDir();
  std::string path = dir + "/m.bin";
  ASSERT_TRUE(WriteFileAtomically(path, std::string("ab\0cd", 5)).ok());
  auto mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)->data(), std::string_view("ab\0cd", 5));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokvec
