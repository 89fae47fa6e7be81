// AtomicFile on targets that are not regular files: /dev/null, /dev/full and a FIFO are written in place, never
// replaced by a renamed temporary file (as root, rename() onto /dev/full would swap the device for a file).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "base/file_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tokvec {
namespace {

bool IsCharacterDevice(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(FileIoDeviceTest, DevNullIsWrittenInPlace) {
  ASSERT_TRUE(IsCharacterDevice("/dev/null"));
  absl::Status status = WriteFileAtomically("/dev/null", "some bytes\n");
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(IsCharacterDevice("/dev/null")) << "/dev/null was replaced";
}

TEST(FileIoDeviceTest, DevFullIsAWriteErrorAndStaysADevice) {
  if (!IsCharacterDevice("/dev/full")) GTEST_SKIP() << "no /dev/full character device here";
  absl::Status status = WriteFileAtomically("/dev/full", "some bytes\n");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("/dev/full"));
  EXPECT_TRUE(IsCharacterDevice("/dev/full")) << "/dev/full was replaced";
}

TEST(FileIoDeviceTest, FifoIsWrittenInPlace) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tokvec_fifo_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    received = buffer.str();
  });
  absl::Status status = WriteFileAtomically(fifo, "through the pipe\n");
  reader.join();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(received, "through the pipe\n");
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1) << "a temporary file was left";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokvec
