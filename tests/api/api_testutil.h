// Inputs the public API tests share: real tokenizer files (../shared/vocab, the committed Hugging Face test
// models) and real text (the shared corpora), so the API is compared with the library where it matters.
#ifndef TOKVEC_TESTS_API_API_TESTUTIL_H_
#define TOKVEC_TESTS_API_API_TESTUTIL_H_

#include <string>
#include <vector>

namespace tokvec::api {

// ../shared/vocab/<name>.
std::string SharedVocab(const std::string& name);
// tests/attention/testdata/<name> (the committed model directories).
std::string TestdataPath(const std::string& name);
// Byte-level BPE (tiktoken, GPT-2's vocab.json + merges.txt, a Qwen3 tokenizer.json with added tokens) and BERT's
// WordPiece (tokenizer.json).
std::vector<std::string> RealTokenizerFiles();
// The first ~16 KB of Botchan (English) and of Wagahai wa Neko de Aru (Japanese), a few declarations of human
// rights in other scripts (Arabic, Ethiopic, Greek, Cyrillic), and short edge cases (empty, white space runs, emoji).
std::vector<std::string> RealTexts();

}  // namespace tokvec::api

#endif  // TOKVEC_TESTS_API_API_TESTUTIL_H_
