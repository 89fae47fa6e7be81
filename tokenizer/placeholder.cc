// Keeps the library non-empty until tokenizer/ has its first source file; delete when one lands.
namespace tokvec {}
