// The attention viewer served at GET /: one self-contained HTML page (no external scripts, styles or fonts).
// Type text, pick the model, layer and head (or the mean of the heads); the page posts to /v1/attention as you
// type and draws the [T, T] weights as a heatmap (row: the attending token, column: the token attended to) with
// the readable tokens (`␣cat`, `⏎`, `<0xE6>`, tokenizer/readable_token.h) as labels and as a list below.
// For tests the page exposes its state: <body data-state="ready|drawn|error" data-tokens="T">.
#ifndef TOKVEC_SERVER_VIEWER_PAGE_H_
#define TOKVEC_SERVER_VIEWER_PAGE_H_

#include <string_view>

namespace tokvec::server {

extern const std::string_view kViewerPage;

}  // namespace tokvec::server

#endif  // TOKVEC_SERVER_VIEWER_PAGE_H_
