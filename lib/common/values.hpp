// Checks of the plain values callers pass (numbers, names): what every entry point refuses the
// same way, so that nothing undefined reaches the graph, its JSON or cuDNN.
#pragma once

#include <string>

namespace fe {

// Throws INVALID_ARGUMENT "<what> is nan; it must be finite" unless `value` is finite.
void require_finite(double value, const char *what);
// As require_finite, but one infinity passes (`infinity` is +inf or -inf): a bound where the
// infinity means "no bound" (a relu's upper clip of +inf, lower clip of -inf).
void require_finite_or(double infinity, double value, const char *what);

bool is_valid_utf8(const std::string &text);
// Throws INVALID_ARGUMENT naming `what` and the offset of the first bad byte: names end up in
// the graph JSON (cache keys, serialized blobs), which must read back as the same text.
void require_utf8(const std::string &text, const char *what);

}  // namespace fe
