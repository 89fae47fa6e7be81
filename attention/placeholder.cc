// Keeps the library non-empty until attention/ has its first source file; delete when one lands.
namespace tokvec {}
