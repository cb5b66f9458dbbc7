#include "util/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

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

TEST(Sha256Test, PiecesGiveTheDigestOfTheWhole) {
  std::string bytes(100003, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + i / 7);
  for (size_t piece : {size_t{1}, size_t{64}, size_t{1000}, bytes.size()}) {
    Sha256Stream stream;
    for (size_t at = 0; at < bytes.size(); at += piece)
      stream.Update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(stream.FinishHex(), Sha256Hex(bytes)) << "pieces of " << piece;
    EXPECT_EQ(stream.FinishHex(), "") << "a finished stream gives no second digest";
  }
  Sha256Stream empty;
  EXPECT_EQ(empty.FinishHex(), Sha256Hex(""));
}

}  // namespace
}  // namespace ios
