// The extern "C" boundary: every exported function runs its body through guard(), which
// turns any exception into a status and a one-line thread-local message naming the function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "api/option_names.hpp"
#include "common/error.hpp"

namespace fe {

template <typename Body>
fe_status guard(const char *function, Body &&body) noexcept {
    try {
        body();
        return FE_OK;
    } catch (const Error &e) {
        set_last_error(std::string(function) + ": " + e.what());
        return e.status();
    } catch (const std::bad_alloc &) {
        set_last_error(std::string(function) + ": out of host memory");
        return FE_STATUS_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        set_last_error(std::string(function) + ": internal error: " + e.what());
        return FE_STATUS_INTERNAL;
    } catch (...) {
        set_last_error(std::string(function) + ": internal error: unknown exception");
        return FE_STATUS_INTERNAL;
    }
}

// Copy the caller's option struct over the defaults, honouring struct_size so that callers
// compiled against an older (shorter) struct keep working. A caller compiled against a newer
// header passes a longer struct: its extra fields are accepted only while they are all zero (a
// field this library does not know would otherwise be ignored silently); `name` names the
// struct in that message. Every option struct starts with its uint32_t struct_size.
inline void read_struct(const char *name, size_t size, const void *defaults, const void *given, void *out) {
    std::memcpy(out, defaults, size);
    if (!given) return;
    uint32_t given_size;
    std::memcpy(&given_size, given, sizeof given_size);
    FE_CHECK(given_size >= sizeof(uint32_t), FE_STATUS_INVALID_ARGUMENT,
             "options.struct_size is %u: initialize options with their _INIT macro", given_size);
    const unsigned char *bytes = static_cast<const unsigned char *>(given);
    for (size_t i = size; i < given_size; ++i)
        FE_CHECK(bytes[i] == 0, FE_STATUS_INVALID_ARGUMENT,
                 "%s has struct_size %u but this library knows %zu bytes; the unknown fields are not all zero "
                 "(built against a newer cudnnfe.h?)",
                 name, given_size, size);
    std::memcpy(out, given, given_size < size ? given_size : size);
    uint32_t own_size = static_cast<uint32_t>(size);
    std::memcpy(out, &own_size, sizeof own_size);
}

// read_struct for a struct of the header; options_name (option_names.hpp) names it, so a struct
// without its line there does not compile.
template <typename Options>
Options read_options(const Options *given, const Options &defaults) {
    Options out;
    read_struct(options_name(given), sizeof(Options), &defaults, given, &out);
    return out;
}

// The usual "buffer + length" protocol for returning strings.
inline void copy_out(const std::string &text, char *buf, size_t buf_size, size_t *out_length) {
    if (!buf || buf_size < text.size() + 1) {
        *out_length = text.size();
        FE_FAIL(FE_STATUS_BUFFER_TOO_SMALL, "the text needs %zu bytes with its NUL; the buffer has %zu",
                text.size() + 1, buf ? buf_size : static_cast<size_t>(0));
    }
    std::memcpy(buf, text.c_str(), text.size() + 1);
    *out_length = text.size();
}

}  // namespace fe

#define FE_EXPORT extern "C" __attribute__((visibility("default")))
#define FE_REQUIRE(pointer) \
    FE_CHECK((pointer) != nullptr, FE_STATUS_NULL_POINTER, "argument '%s' is NULL", #pointer)

// An exported read of one property: the object and the out pointer must be given (each refusal
// names its argument), and *out is `value`, an expression of `object`. One line per property.
#define FE_PROPERTY(function, Object, object, Out, out, value) \
    FE_EXPORT fe_status function(const Object *object, Out *out) { \
        return fe::guard(#function, [&] { \
            FE_REQUIRE(object); \
            FE_REQUIRE(out); \
            *out = (value); \
        }); \
    }

// An exported change of one object by one argument: the object must be given (the argument is
// checked by `action`, a statement of `object` and `arg`). One line per entry point.
#define FE_SETTER(function, Object, object, Arg, arg, action) \
    FE_EXPORT fe_status function(Object *object, Arg arg) { \
        return fe::guard(#function, [&] { \
            FE_REQUIRE(object); \
            action; \
        }); \
    }
