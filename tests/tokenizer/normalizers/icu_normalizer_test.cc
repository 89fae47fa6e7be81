// ICU normalization with offsets into the original input. Expected strings are the Unicode Standard's own
// examples (UAX #15: fullwidth and ligature compatibility forms, composition of combining marks) and its case
// mappings (SpecialCasing.txt: U+0130).
#include "tokenizer/normalizers/icu_normalizer.h"

#include <string>

#include "gtest/gtest.h"

namespace tokvec {
namespace {

NormalizedText Normalized(const std::string& name, std::string_view text) {
  absl::StatusOr<std::unique_ptr<Normalizer>> normalizer = MakeNormalizer(name);
  EXPECT_TRUE(normalizer.ok()) << normalizer.status();
  absl::StatusOr<NormalizedText> out = (*normalizer)->Normalize(text);
  EXPECT_TRUE(out.ok()) << out.status();
  return *out;
}

TEST(IcuNormalizerTest, NfcComposesAndMapsBothInputCharacters) {
  // "e" + U+0301 COMBINING ACUTE (3 input bytes) -> "é" (2 bytes), both mapping to input [1, 4).
  NormalizedText out = Normalized("nfc", "xe\xCC\x81y");
  EXPECT_EQ(out.text, "x\xC3\xA9y");
  ASSERT_EQ(out.source_begin.size(), 4u);
  EXPECT_EQ(out.source_begin[1], 1u);
  EXPECT_EQ(out.source_end[1], 4u);
  EXPECT_EQ(out.source_begin[2], 1u);
  EXPECT_EQ(out.source_end[2], 4u);
  EXPECT_EQ(out.source_begin[3], 4u);  // "y" maps to itself.
  EXPECT_EQ(out.source_end[3], 5u);
}

TEST(IcuNormalizerTest, NfkcFoldsCompatibilityForms) {
  // U+FF28 FULLWIDTH H, U+FB01 LATIN SMALL LIGATURE FI.
  NormalizedText out = Normalized("nfkc", "\xEF\xBC\xA8\xEF\xAC\x81");
  EXPECT_EQ(out.text, "Hfi");
  EXPECT_EQ(out.source_begin[0], 0u);
  EXPECT_EQ(out.source_end[0], 3u);
  EXPECT_EQ(out.source_begin[2], 3u);  // Both letters of the ligature map to its 3 bytes.
  EXPECT_EQ(out.source_end[2], 6u);
  EXPECT_EQ(Normalized("nfc", "\xEF\xAC\x81").text, "\xEF\xAC\x81");  // NFC keeps compatibility forms.
}

TEST(IcuNormalizerTest, LowercaseIsFullMappingWithoutFinalSigma) {
  EXPECT_EQ(Normalized("lowercase", "HeLLo \xC4\xB0").text, "hello i\xCC\x87");  // U+0130 -> i + U+0307.
  // Hugging Face lowercases code point by code point: word-final capital sigma stays small sigma.
  EXPECT_EQ(Normalized("lowercase", "\xCE\x9F\xCE\xA3").text, "\xCE\xBF\xCF\x83");
}

TEST(IcuNormalizerTest, StepsCombineLeftToRight) {
  NormalizedText out = Normalized("nfkc+lowercase", "\xEF\xBC\xA8I");
  EXPECT_EQ(out.text, "hi");
  EXPECT_EQ(out.source_end[0], 3u);
  EXPECT_EQ(out.source_begin[1], 3u);
}

// Hugging Face's ByteLevel prepends the space aligned with the first character (NormalizedString::prepend): a token
// of the space alone covers that character (tests/data/pretok/after-bytelevel.json in the Python conformance).
TEST(IcuNormalizerTest, PrefixSpaceCoversTheFirstCharacter) {
  NormalizedText out = Normalized("prefix_space", "ab");
  EXPECT_EQ(out.text, " ab");
  EXPECT_EQ(out.source_begin[0], 0u);
  EXPECT_EQ(out.source_end[0], 1u);
  EXPECT_EQ(out.source_begin[1], 0u);
  out = Normalized("prefix_space", "\xC3\xA9t\xC3\xA9");  // été: its first character is two bytes
  EXPECT_EQ(out.source_end[0], 2u);
  EXPECT_EQ(Normalized("prefix_space", " ab").text, " ab");
}

TEST(IcuNormalizerTest, IllFormedBytesPassThroughUnchanged) {
  NormalizedText out = Normalized("nfkc+lowercase", "A\xFF\xC3" "B");
  EXPECT_EQ(out.text, "a\xFF\xC3" "b");
  for (size_t i = 0; i < out.text.size(); ++i) {
    EXPECT_EQ(out.source_begin[i], i);
    EXPECT_EQ(out.source_end[i], i + 1);
  }
}

TEST(IcuNormalizerTest, UnknownStepIsAnError) {
  absl::StatusOr<std::unique_ptr<Normalizer>> normalizer = MakeNormalizer("nfc+upper");
  ASSERT_FALSE(normalizer.ok());
  EXPECT_NE(normalizer.status().message().find("'upper'"), absl::string_view::npos) << normalizer.status();
  EXPECT_EQ(*MakeNormalizer("none"), nullptr);
}

}  // namespace
}  // namespace tokvec
