#include "common/values.hpp"

#include <cmath>
#include <cstddef>

#include "common/error.hpp"

namespace fe {

void require_finite(double value, const char *what) {
    FE_CHECK(std::isfinite(value), FE_STATUS_INVALID_ARGUMENT, "%s is %g; it must be finite", what, value);
}

void require_finite_or(double infinity, double value, const char *what) {
    FE_CHECK(std::isfinite(value) || value == infinity, FE_STATUS_INVALID_ARGUMENT, "%s is %g; it must be finite or %s",
             what, value, infinity > 0 ? "+inf" : "-inf");
}

namespace {

// Length of the UTF-8 sequence starting at `lead` (0 when no sequence starts with it), and the
// range its second byte must lie in (which refuses overlong forms, surrogates and code points
// past U+10FFFF).
size_t sequence_length(unsigned char lead, unsigned char *second_min, unsigned char *second_max) {
    *second_min = 0x80;
    *second_max = 0xBF;
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (lead == 0xE0) *second_min = 0xA0;
        if (lead == 0xED) *second_max = 0x9F;
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (lead == 0xF0) *second_min = 0x90;
        if (lead == 0xF4) *second_max = 0x8F;
        return 4;
    }
    return 0;
}

// Offset of the first byte that is not part of a valid UTF-8 sequence; text.size() if none.
size_t first_invalid_utf8(const std::string &text) {
    size_t i = 0;
    while (i < text.size()) {
        unsigned char lo, hi;
        size_t n = sequence_length(static_cast<unsigned char>(text[i]), &lo, &hi);
        if (n == 0 || i + n > text.size()) return i;
        for (size_t k = 1; k < n; ++k) {
            unsigned char c = static_cast<unsigned char>(text[i + k]);
            unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
            if (c < min || c > max) return i;
        }
        i += n;
    }
    return text.size();
}

}  // namespace

bool is_valid_utf8(const std::string &text) { return first_invalid_utf8(text) == text.size(); }

void require_utf8(const std::string &text, const char *what) {
    size_t bad = first_invalid_utf8(text);
    FE_CHECK(bad == text.size(), FE_STATUS_INVALID_ARGUMENT,
             "%s is not valid UTF-8 (byte %zu is 0x%02x); names must be UTF-8 text", what, bad,
             static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
}

}  // namespace fe
