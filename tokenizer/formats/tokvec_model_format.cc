// tokvec's own model file: versioned, human-readable text, one fact per line.
//
//   tokvec-bpe 1                      format and version
//   type word                         word | byte
//   pre_tokenizer whitespace          whitespace (word models) | gpt2 | cl100k | o200k | an escaped ICU regex
//   normalizer none                   none | nfc | nfkc | lowercase | combinations such as nfkc+lowercase
//   special 0 <|endoftext|>           a special token: id, escaped text (one line each, any number)
//   unk 1                             word models: the id of `<unk>`
//   end_of_word 2                     word models: the id of `</w>`
//   alphabet 3                        how many alphabet lines follow: `ID TOKEN`
//   3 a
//   ...
//   merges 4                          how many merge lines follow, in rank order: `LEFT RIGHT [ID]`
//   e r
//   er </w>
//   ...
//   end                               the last line: a file without it is truncated
//
// Ids: the header lines (special, unk, end_of_word, alphabet) give their ids; merge k makes the token spelled
// LEFT+RIGHT, which keeps the id of an existing token of that spelling, else takes the id written after the
// merge or, when none is written, the smallest free id. The trainer assigns ids that way (header ids 0..N-1,
// then merged tokens in merge order), so its files carry no merge ids; other vocabularies (e.g. GPT-2's, whose
// ids are not in merge order) get explicit ids where needed. Ids must end up 0..V-1 without gaps, and are
// stable across save and load. Models without a merge list (tiktoken ranks) are not written in this format.
//
// Spelling of tokens:
//   - byte models: GPT-2's byte-to-unicode spelling, exactly as merges.txt (`Ġ t`), so no escaping is needed.
//   - word models: the UTF-8 text of the token; a token ending with the end-of-word symbol ends with `</w>`.
//     Escapes: `\\` backslash, `\s` space, `\t` `\n` `\r`, `\xHH` any other byte below 0x20, 0x7F or a byte
//     that is not UTF-8, and `<\/w>` for a literal `</w>` in the text, so an unescaped `</w>` is always the
//     end-of-word symbol and only ever appears at the end of a token.
//   - special token texts and regexes use the same escapes (without the `</w>` rule).
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "base/file_io.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tokenizer/formats/formats.h"
#include "tokenizer/formats/text_escape.h"
#include "tokenizer/normalizers/icu_normalizer.h"
#include "tokenizer/pre_tokenizers/pre_tokenizer_json.h"
#include "tokenizer/pre_tokenizers/split_pre_tokenizer.h"
#include "tokenizer/pre_tokenizers/whitespace_pre_tokenizer.h"
#include "tokenizer/text/byte_unicode.h"
#include "tokenizer/text/utf8.h"

namespace tokvec {
namespace {

constexpr int kVersion = 1;

std::string EscapeWordToken(const std::string& bytes) {
  const bool end_of_word = !bytes.empty() && bytes.back() == kEndOfWordByte;
  std::string text = EscapeText(std::string_view(bytes).substr(0, bytes.size() - (end_of_word ? 1 : 0)));
  std::string out;
  for (size_t at = 0;;) {
    size_t found = text.find(kEndOfWordSpelling, at);
    if (found == std::string::npos) {
      out.append(text, at);
      break;
    }
    out.append(text, at, found - at);
    out += "<\\/w>";
    at = found + kEndOfWordSpelling.size();
  }
  if (end_of_word) out += kEndOfWordSpelling;
  return out;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (at <= line.size()) {
    size_t space = line.find(' ', at);
    if (space == std::string_view::npos) space = line.size();
    fields.push_back(line.substr(at, space - at));
    at = space + 1;
  }
  return fields;
}

// Reads the file line by line; every error names the file and the line.
class ModelReader {
 public:
  ModelReader(std::string_view text, const std::string& path)
      : text_(text), path_(path), line_count_(std::count(text.begin(), text.end(), '\n') + 1) {}

  absl::StatusOr<TokenizerSpec> Read();

 private:
  absl::Status Error(std::string_view what) const {
    return absl::DataLossError(fmt::format("{} line {}: {}", path_, line_number_, what));
  }
  // The next line split at single spaces; an error at the end of the file.
  absl::StatusOr<std::vector<std::string_view>> Next(std::string_view expecting);
  std::optional<std::string_view> Peek() const;
  absl::StatusOr<TokenId> ParseId(std::string_view field) const;
  absl::StatusOr<size_t> ParseCount(std::string_view field) const;
  absl::StatusOr<std::string> ParseToken(std::string_view field) const;
  absl::Status AddId(TokenId id, std::string bytes, std::string_view what);

  std::string_view text_;
  const std::string& path_;
  size_t line_count_;       // Every id and count is below it: each id and each counted entry takes a line.
  size_t at_ = 0;           // Start of the next line.
  size_t line_number_ = 0;  // Of the line last returned by Next.
  ModelType type_ = ModelType::kWord;
  std::vector<std::optional<std::string>> ids_;  // Header ids: id -> bytes ("" for specials and <unk>).
};

std::optional<std::string_view> ModelReader::Peek() const {
  if (at_ >= text_.size()) return std::nullopt;
  size_t end = text_.find('\n', at_);
  return text_.substr(at_, (end == std::string_view::npos ? text_.size() : end) - at_);
}

absl::StatusOr<std::vector<std::string_view>> ModelReader::Next(std::string_view expecting) {
  std::optional<std::string_view> line = Peek();
  ++line_number_;
  if (!line) {
    return Error(fmt::format("the file ends where {} was expected (truncated?); retrain the model or copy it again",
                             expecting));
  }
  at_ += line->size() + 1;
  return SplitFields(*line);
}

absl::StatusOr<TokenId> ModelReader::ParseId(std::string_view field) const {
  uint32_t id = 0;
  if (!absl::SimpleAtoi(absl::string_view(field.data(), field.size()), &id) || id >= (1u << 31) ||
      field.empty() || field[0] == '+' || field[0] == '-') {
    return Error(fmt::format("'{}' is not a token id", field));
  }
  if (id >= line_count_) {  // Checked before any table is sized by it (a hostile id must not allocate gigabytes).
    return Error(fmt::format("token id {} is larger than a file of {} lines can define (ids run 0..V-1)", id,
                             line_count_));
  }
  return id;
}

absl::StatusOr<size_t> ModelReader::ParseCount(std::string_view field) const {
  uint64_t count = 0;
  if (!absl::SimpleAtoi(absl::string_view(field.data(), field.size()), &count) || count >= (1u << 31)) {
    return Error(fmt::format("'{}' is not a count", field));
  }
  if (count >= line_count_) {
    return Error(fmt::format("count {} is more than the {} lines of the file hold (truncated?)", count, line_count_));
  }
  return count;
}

absl::StatusOr<std::string> ModelReader::ParseToken(std::string_view field) const {
  if (field.empty()) return Error("empty token");
  if (type_ == ModelType::kByte) {
    std::optional<std::string> bytes = UnicodeToBytes(field);
    if (!bytes) return Error(fmt::format("'{}' is not a token in GPT-2's byte-to-unicode spelling", field));
    return *bytes;
  }
  std::string error;
  std::optional<std::string> bytes = UnescapeText(field, /*word_token=*/true, &error);
  if (!bytes) return Error(fmt::format("token '{}': {}", field, error));
  if (bytes->empty()) return Error("empty token");
  return *bytes;
}

absl::Status ModelReader::AddId(TokenId id, std::string bytes, std::string_view what) {
  if (id >= ids_.size()) ids_.resize(id + 1);
  if (ids_[id].has_value()) return Error(fmt::format("{} uses id {}, which is already taken", what, id));
  ids_[id] = std::move(bytes);
  return absl::OkStatus();
}

absl::StatusOr<TokenizerSpec> ModelReader::Read() {
  // 1. Magic and version.
  TOKVEC_ASSIGN_OR_RETURN(std::vector<std::string_view> fields, Next("the first line"));
  if (fields.size() != 2 || fields[0] != kTokvecModelMagic) {
    return Error(fmt::format("expected '{} {}', the first line of a tokvec model file", kTokvecModelMagic, kVersion));
  }
  if (fields[1] != std::to_string(kVersion)) {
    return Error(fmt::format("version {} is not supported (this tokvec reads version {}); use a newer tokvec",
                             fields[1], kVersion));
  }
  // 2. Settings.
  TOKVEC_ASSIGN_OR_RETURN(fields, Next("'type word|byte'"));
  if (fields.size() != 2 || fields[0] != "type" || (fields[1] != "word" && fields[1] != "byte")) {
    return Error("expected 'type word' or 'type byte'");
  }
  type_ = fields[1] == "word" ? ModelType::kWord : ModelType::kByte;
  TOKVEC_ASSIGN_OR_RETURN(fields, Next("'pre_tokenizer NAME'"));
  if (fields.size() != 2 || fields[0] != "pre_tokenizer") return Error("expected 'pre_tokenizer NAME'");
  std::string error;
  std::optional<std::string> pattern = UnescapeText(fields[1], false, &error);
  if (!pattern) return Error(fmt::format("pre_tokenizer: {}", error));
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  if (*pattern == kWhitespacePreTokenizerName) {
    pre_tokenizer = std::make_unique<WhitespacePreTokenizer>();
  } else if (pattern->starts_with(kHfPreTokenizerPrefix)) {  // A Hugging Face pre_tokenizer, as JSON.
    const nlohmann::json node = nlohmann::json::parse(pattern->substr(kHfPreTokenizerPrefix.size()), nullptr, false);
    absl::StatusOr<HfPreTokenizerChoice> hf = ReadHfByteLevelPreTokenizer(node, "pre_tokenizer");
    if (!hf.ok()) return Error(std::string(hf.status().message()));
    pre_tokenizer = std::move(hf->pre_tokenizer);
  } else {
    absl::StatusOr<std::unique_ptr<PreTokenizer>> split = MakeSplitPreTokenizer(*pattern);
    if (!split.ok()) return Error(std::string(split.status().message()));
    pre_tokenizer = std::move(split).value();
  }
  TOKVEC_ASSIGN_OR_RETURN(fields, Next("'normalizer NAME'"));
  if (fields.size() != 2 || fields[0] != "normalizer") return Error("expected 'normalizer NAME' (or 'normalizer none')");
  absl::StatusOr<std::unique_ptr<Normalizer>> normalizer = MakeNormalizer(std::string(fields[1]));
  if (!normalizer.ok()) return Error(std::string(normalizer.status().message()));
  // 3. Special tokens, <unk> and </w>.
  std::vector<SpecialToken> specials;
  std::optional<TokenId> unk_id, end_of_word_id;
  while (true) {
    TOKVEC_ASSIGN_OR_RETURN(fields, Next("'alphabet COUNT'"));
    if (fields[0] == "special" && fields.size() == 3) {
      TOKVEC_ASSIGN_OR_RETURN(TokenId id, ParseId(fields[1]));
      std::optional<std::string> text = UnescapeText(fields[2], false, &error);
      if (!text || text->empty()) return Error(fmt::format("special token '{}': {}", fields[2], text ? "empty" : error));
      TOKVEC_RETURN_IF_ERROR(AddId(id, "", fmt::format("special token '{}'", *text)));
      specials.push_back({*text, id});
    } else if (fields[0] == "unk" && fields.size() == 2 && type_ == ModelType::kWord && !unk_id) {
      TOKVEC_ASSIGN_OR_RETURN(unk_id, ParseId(fields[1]));
      TOKVEC_RETURN_IF_ERROR(AddId(*unk_id, "", "<unk>"));
    } else if (fields[0] == "end_of_word" && fields.size() == 2 && type_ == ModelType::kWord && !end_of_word_id) {
      TOKVEC_ASSIGN_OR_RETURN(end_of_word_id, ParseId(fields[1]));
      TOKVEC_RETURN_IF_ERROR(AddId(*end_of_word_id, std::string(1, kEndOfWordByte), "</w>"));
    } else if (fields[0] == "alphabet" && fields.size() == 2) {
      break;
    } else {
      return Error(fmt::format("expected 'special ID TEXT', {}or 'alphabet COUNT'",
                               type_ == ModelType::kWord ? "'unk ID', 'end_of_word ID' " : ""));
    }
  }
  if (type_ == ModelType::kWord && (!unk_id || !end_of_word_id)) {
    return Error("a word model needs 'unk ID' and 'end_of_word ID' lines before the alphabet");
  }
  // 4. The alphabet.
  TOKVEC_ASSIGN_OR_RETURN(size_t alphabet_size, ParseCount(fields[1]));
  for (size_t i = 0; i < alphabet_size; ++i) {
    TOKVEC_ASSIGN_OR_RETURN(fields, Next(fmt::format("alphabet entry {} of {}", i + 1, alphabet_size)));
    if (fields.size() != 2) return Error("expected an alphabet entry 'ID TOKEN'");
    TOKVEC_ASSIGN_OR_RETURN(TokenId id, ParseId(fields[0]));
    TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ParseToken(fields[1]));
    TOKVEC_RETURN_IF_ERROR(AddId(id, std::move(bytes), fmt::format("token '{}'", fields[1])));
  }
  std::vector<std::string> tokens(ids_.size());
  std::vector<bool> taken(ids_.size(), false);
  absl::flat_hash_map<std::string, TokenId> token_ids;
  for (size_t id = 0; id < ids_.size(); ++id) {
    if (!ids_[id]) continue;
    taken[id] = true;
    tokens[id] = std::move(*ids_[id]);
    if (tokens[id].empty()) continue;
    if (!token_ids.emplace(tokens[id], static_cast<TokenId>(id)).second) {
      return Error(fmt::format("token id {} has the same spelling as id {}", id, token_ids[tokens[id]]));
    }
  }
  size_t next_free = 0;  // Merged tokens take the smallest free id unless the merge line names one.
  // 5. The merges, in rank order.
  TOKVEC_ASSIGN_OR_RETURN(fields, Next("'merges COUNT'"));
  if (fields.size() != 2 || fields[0] != "merges") return Error("expected 'merges COUNT'");
  TOKVEC_ASSIGN_OR_RETURN(size_t merge_count, ParseCount(fields[1]));
  std::vector<BpeModel::MergePair> merges;
  merges.reserve(merge_count);
  for (size_t rank = 0; rank < merge_count; ++rank) {
    TOKVEC_ASSIGN_OR_RETURN(fields, Next(fmt::format("merge {} of {}", rank + 1, merge_count)));
    if (fields.size() != 2 && fields.size() != 3) return Error("expected a merge 'LEFT RIGHT' (or 'LEFT RIGHT ID')");
    TokenId pair[2];
    for (int side = 0; side < 2; ++side) {
      TOKVEC_ASSIGN_OR_RETURN(std::string bytes, ParseToken(fields[side]));
      auto it = token_ids.find(bytes);
      if (it == token_ids.end()) {
        return Error(fmt::format("merge '{} {}' names '{}', which is neither in the alphabet nor made by an earlier "
                                 "merge",
                                 fields[0], fields[1], fields[side]));
      }
      pair[side] = it->second;
    }
    if (type_ == ModelType::kWord && tokens[pair[0]].back() == kEndOfWordByte) {
      return Error(fmt::format("merge '{} {}': nothing can follow `</w>`", fields[0], fields[1]));
    }
    merges.push_back({pair[0], pair[1]});
    std::string merged = tokens[pair[0]] + tokens[pair[1]];
    std::optional<TokenId> explicit_id;
    if (fields.size() == 3) {
      TOKVEC_ASSIGN_OR_RETURN(explicit_id, ParseId(fields[2]));
    }
    if (auto existing = token_ids.find(merged); existing != token_ids.end()) {
      if (explicit_id && *explicit_id != existing->second) {
        return Error(fmt::format("merge '{} {}' makes a token that already has id {}, not {}", fields[0], fields[1],
                                 existing->second, *explicit_id));
      }
      continue;  // Reuses the existing token's id.
    }
    while (next_free < taken.size() && taken[next_free]) ++next_free;
    const size_t id = explicit_id ? *explicit_id : next_free;
    if (id >= taken.size()) {
      taken.resize(id + 1, false);
      tokens.resize(id + 1);
    }
    if (taken[id]) return Error(fmt::format("merge '{} {}' uses id {}, which is already taken", fields[0], fields[1], id));
    taken[id] = true;
    token_ids.emplace(merged, static_cast<TokenId>(id));
    tokens[id] = std::move(merged);
  }
  TOKVEC_ASSIGN_OR_RETURN(fields, Next("'end'"));
  if (fields.size() != 1 || fields[0] != "end") {
    return Error(fmt::format("expected 'end' after {} merges (is the merge count right?)", merge_count));
  }
  for (size_t id = 0; id < taken.size(); ++id) {
    if (!taken[id]) {
      return Error(fmt::format("at the end, id {} is never assigned (ids must run 0..{} without gaps)", id,
                               taken.size() - 1));
    }
  }
  if (Peek().has_value() && !Peek()->empty()) {
    ++line_number_;
    return Error("unexpected text after 'end'");
  }
  absl::StatusOr<BpeModel> bpe = BpeModel::FromMerges(std::move(tokens), std::move(merges));
  if (!bpe.ok()) return absl::DataLossError(fmt::format("{}: {}", path_, std::string(bpe.status().message())));
  return TokenizerSpec{.type = type_,
                       .bpe = std::move(bpe).value(),
                       .pre_tokenizer = std::move(pre_tokenizer),
                       .normalizer = std::move(normalizer).value(),
                       .special_tokens = std::move(specials),
                       .unk_id = unk_id,
                       .end_of_word_id = end_of_word_id,
                       .ignore_merges = false,
                       .source = path_};
}

}  // namespace

absl::StatusOr<TokenizerSpec> ReadTokvecModel(std::string_view text, const std::string& path) {
  ModelReader reader(text, path);
  return reader.Read();
}

std::string WriteTokvecModel(const Tokenizer& tokenizer) {
  const TokenizerSpec& spec = tokenizer.spec();
  const BpeModel& bpe = spec.bpe;
  const bool word = spec.type == ModelType::kWord;
  auto spell = [&](TokenId id) { return word ? EscapeWordToken(bpe.token(id)) : BytesToUnicode(bpe.token(id)); };
  std::string out = fmt::format("{} {}\n", kTokvecModelMagic, kVersion);
  out += fmt::format("type {}\n", word ? "word" : "byte");
  out += fmt::format("pre_tokenizer {}\n", EscapeText(spec.pre_tokenizer->name()));
  out += fmt::format("normalizer {}\n", spec.normalizer ? EscapeText(spec.normalizer->name()) : "none");
  for (const SpecialToken& special : spec.special_tokens) {
    out += fmt::format("special {} {}\n", special.id, EscapeText(special.text));
  }
  if (word) {
    out += fmt::format("unk {}\nend_of_word {}\n", *spec.unk_id, *spec.end_of_word_id);
  }
  // The alphabet: every token that no merge makes, except those named above.
  std::vector<bool> made(bpe.size(), false);
  for (const BpeModel::MergePair& merge : bpe.merges()) {
    if (std::optional<TokenId> id = bpe.Find(bpe.token(merge.left) + bpe.token(merge.right))) made[*id] = true;
  }
  // A special token that is also a vocabulary entry (tokenizer.json and vocab.json files list their added tokens in
  // the vocabulary too) is the `special` line alone.
  std::vector<bool> special(bpe.size(), false);
  for (const SpecialToken& token : spec.special_tokens) {
    if (token.id < special.size()) special[token.id] = true;
  }
  std::vector<TokenId> alphabet;
  for (TokenId id = 0; id < bpe.size(); ++id) {
    if (bpe.token(id).empty() || made[id] || special[id] || (word && id == *spec.end_of_word_id)) continue;
    alphabet.push_back(id);
  }
  out += fmt::format("alphabet {}\n", alphabet.size());
  for (TokenId id : alphabet) out += fmt::format("{} {}\n", id, spell(id));
  // Merges: an explicit id only where the reader's rule (smallest free id) would assign another one.
  std::vector<bool> taken(bpe.size(), false);
  for (const SpecialToken& special : spec.special_tokens) {
    if (special.id < taken.size()) taken[special.id] = true;
  }
  if (word) taken[*spec.unk_id] = taken[*spec.end_of_word_id] = true;
  for (TokenId id : alphabet) taken[id] = true;
  size_t next_free = 0;
  out += fmt::format("merges {}\n", bpe.merges().size());
  for (const BpeModel::MergePair& merge : bpe.merges()) {
    out += spell(merge.left);
    out += ' ';
    out += spell(merge.right);
    // A merge whose result is no token (word affixes drop a prefix) has no id to give; SaveTokvecModel refuses those.
    const std::optional<TokenId> merged = bpe.Find(bpe.token(merge.left) + bpe.token(merge.right));
    const TokenId id = merged.value_or(0);
    if (merged && !taken[id]) {
      while (next_free < taken.size() && taken[next_free]) ++next_free;
      if (id != next_free) out += fmt::format(" {}", id);
      taken[id] = true;
    }
    out += '\n';
  }
  out += "end\n";
  return out;
}

namespace {

// What a tokenizer.json can say that the model file cannot (it holds plain special tokens, a pre-tokenizer and
// normalizer by name, and a merge list): the first such feature `spec` has, else nullopt.
std::optional<std::string> FeatureTheFileCannotHold(const TokenizerSpec& spec) {
  if (spec.post_processor != nullptr) return "post_processor";
  if (spec.truncation) return "truncation";
  if (spec.padding) return "padding";
  if (spec.token_decoder != nullptr) return "decoder";
  if (spec.ignore_merges) return "ignore_merges";
  if (spec.affixes) return "continuing_subword_prefix / end_of_word_suffix";
  if (!spec.unreachable_tokens.empty()) return "vocabulary entries no input reaches";
  for (const SpecialToken& token : spec.special_tokens) {
    if (!token.special || token.single_word || token.lstrip || token.rstrip || token.normalized) {
      return fmt::format("added token {} ('{}'), which is not a plain special token (special, single_word, lstrip, "
                         "rstrip, normalized)",
                         token.id, token.text);
    }
  }
  return std::nullopt;
}

// The first thing that tells the tokenizer read back from its model file from the one written, else nullopt.
std::optional<std::string> FirstDifference(const Tokenizer& written, const Tokenizer& read) {
  const TokenizerSpec& a = written.spec();
  const TokenizerSpec& b = read.spec();
  if (a.special_tokens.size() != b.special_tokens.size()) return "added tokens";
  for (size_t i = 0; i < a.special_tokens.size(); ++i) {
    if (a.special_tokens[i].text != b.special_tokens[i].text || a.special_tokens[i].id != b.special_tokens[i].id) {
      return fmt::format("added token {} ('{}')", a.special_tokens[i].id, a.special_tokens[i].text);
    }
  }
  if (a.pre_tokenizer->name() != b.pre_tokenizer->name()) return "pre-tokenizer";
  if ((a.normalizer ? a.normalizer->name() : "") != (b.normalizer ? b.normalizer->name() : "")) return "normalizer";
  if (written.vocab_size() != read.vocab_size()) return "vocabulary size";
  if (a.bpe.merges().size() != b.bpe.merges().size()) return "merges";
  for (TokenId id = 0; id < written.vocab_size(); ++id) {
    if (written.TokenSpelling(id) != read.TokenSpelling(id)) return fmt::format("token {}", id);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::string> CheckedTokvecModel(const Tokenizer& tokenizer, const std::string& path) {
  if (tokenizer.type() != ModelType::kWord && tokenizer.type() != ModelType::kByte) {
    return absl::FailedPreconditionError(
        fmt::format("a {} tokenizer has no tokvec model file form; keep the file it was loaded from ({})",
                    ModelTypeName(tokenizer.type()), tokenizer.spec().source));
  }
  // tiktoken's rule merges any two tokens whose bytes join into a token, by rank; the model file holds a merge
  // list, which cannot say that, so such a file would encode differently.
  if (tokenizer.bpe().rule() == BpeModel::Rule::kRanks) {
    return absl::FailedPreconditionError(fmt::format(
        "a tokenizer with tiktoken ranks has no tokvec model file form (it holds a merge list); keep {}",
        tokenizer.spec().source));
  }
  if (std::optional<std::string> feature = FeatureTheFileCannotHold(tokenizer.spec())) {
    return absl::FailedPreconditionError(fmt::format(
        "{} cannot be saved as a tokvec model file: the file cannot hold its {}; keep it as it is",
        tokenizer.spec().source, *feature));
  }
  // The file is read back before it is written, so that a tokenizer the format cannot hold (a tokenizer.json whose
  // special token is also a vocabulary token, say) gets an error here, not a file no tokvec command can load, and
  // compared with the tokenizer, so that one whose file would encode differently gets one too.
  const std::string text = WriteTokvecModel(tokenizer);
  absl::StatusOr<TokenizerSpec> spec = ReadTokvecModel(text, path);
  absl::StatusOr<std::unique_ptr<Tokenizer>> read =
      spec.ok() ? Tokenizer::Create(std::move(*spec)) : absl::StatusOr<std::unique_ptr<Tokenizer>>(spec.status());
  if (!read.ok()) {
    return absl::FailedPreconditionError(fmt::format("{} cannot be saved as a tokvec model file ({}); keep it as it is",
                                                     tokenizer.spec().source, std::string(read.status().message())));
  }
  // It must also encode as the tokenizer does: a model file that loads but gives other ids is worse than none.
  if (std::optional<std::string> difference = FirstDifference(tokenizer, **read)) {
    return absl::FailedPreconditionError(
        fmt::format("{} cannot be saved as a tokvec model file: its {} would read back differently; keep it as it is",
                    tokenizer.spec().source, *difference));
  }
  return text;
}

absl::Status SaveTokvecModel(const Tokenizer& tokenizer, const std::string& path) {
  TOKVEC_ASSIGN_OR_RETURN(const std::string text, CheckedTokvecModel(tokenizer, path));
  return WriteFileAtomically(path, text);
}

}  // namespace tokvec
