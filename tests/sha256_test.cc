#include "util/sha256.h"

#include <gtest/gtest.h>

namespace ios {
namespace {

// FIPS 180-2 / NIST example vectors.
TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, BinaryBytes) {
  std::string bytes(1000000, 'a');
  EXPECT_EQ(Sha256Hex(bytes), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  std::string with_nul("a\0b", 3);
  EXPECT_NE(Sha256Hex(with_nul), Sha256Hex("ab"));
}

}  // namespace
}  // namespace ios
