#include "cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tool {

int exit_code_for(fe_status status) {
    switch (status) {
        case FE_OK: return kExitOk;
        case FE_STATUS_LIBRARY_UNAVAILABLE:
        case FE_STATUS_CANNOT_TELL:
        case FE_STATUS_NO_DEVICE:
        case FE_STATUS_CUDA_ERROR:
        case FE_STATUS_OUT_OF_MEMORY: return kExitEnvironment;
        default: return kExitBadInput;
    }
}

namespace {

const DriverInfo &probe_driver_once() {
    static const DriverInfo probe = [] {
        DriverInfo p;
        void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!driver) {
            const char *why = dlerror();
            p.state = Driver::Missing;
            p.error = why ? why : "libcuda.so.1: not found";
            return p;
        }
        // Left loaded: the CUDA runtime loads the same library and shares it.
        using Init = int (*)(unsigned int);
        Init init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
        Dl_info info;
        if (init && dladdr(reinterpret_cast<void *>(init), &info) && info.dli_fname) p.library = info.dli_fname;
        // CUDA_ERROR_STUB_LIBRARY: the toolkit's stub (lib64/stubs/libcuda.so), which links and
        // lets cuDNN list its engines, but runs nothing.
        constexpr int kCudaErrorStubLibrary = 34;
        if (init && init(0) == kCudaErrorStubLibrary) p.state = Driver::Stub;
        return p;
    }();
    return probe;
}

}  // namespace

const DriverInfo &driver_info() { return probe_driver_once(); }

Driver cuda_driver() { return probe_driver_once().state; }

std::string driver_reason() {
    const DriverInfo &p = probe_driver_once();
    switch (p.state) {
        case Driver::Usable: return "";
        case Driver::Missing: return "no CUDA driver (libcuda.so.1 not found)";
        case Driver::Stub:
            return "no CUDA driver (the libcuda.so.1 found" + (p.library.empty() ? "" : ", " + p.library + ",") +
                   " is the CUDA toolkit's stub, which runs nothing)";
    }
    return "";
}

std::string driver_problem() {
    std::string reason = driver_reason();
    return reason.empty() ? reason : reason + ": this machine can neither run plans nor build them for a GPU of its own";
}

std::string driver_state_text() {
    const DriverInfo &p = probe_driver_once();
    switch (p.state) {
        case Driver::Usable: return "unknown (no GPU to ask)";
        case Driver::Missing: return "not found (" + p.error + ")";
        case Driver::Stub:
            return "none: the CUDA toolkit's stub" + (p.library.empty() ? "" : " (" + p.library + ")") + ", which runs nothing";
    }
    return "";
}

namespace {

// Edits that turn `a` into `b`: insertions, deletions, substitutions and swaps of neighbours.
size_t edit_distance(const std::string &a, const std::string &b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// Letters of a name, its leading dashes not counted.
size_t letters(const std::string &name) {
    size_t dashes = 0;
    while (dashes < name.size() && name[dashes] == '-') ++dashes;
    return name.size() - dashes;
}

}  // namespace

std::string did_you_mean(const std::string &given, const std::vector<std::string> &candidates) {
    if (letters(given) == 0) return "";
    std::vector<std::string> picks;
    auto add = [&](const std::string &c) {
        if (std::find(picks.begin(), picks.end(), c) == picks.end()) picks.push_back(c);
    };
    for (const std::string &c : candidates)
        if (c.size() > given.size() && c.compare(0, given.size(), given) == 0) add(c);
    std::vector<std::string> prefixed = picks;
    if (picks.size() != 1) {
        picks.clear();
        size_t best = 3;
        for (const std::string &c : candidates) {
            size_t d = edit_distance(given, c);
            if (d == 0 || d > 2 || d * 2 >= letters(given) || d > best) continue;
            if (d < best) picks.clear();
            best = d;
            add(c);
        }
    }
    // Nothing within two edits: the names it begins, when it begins a few.
    if (picks.empty() && prefixed.size() <= 3) picks = prefixed;
    if (picks.empty()) return "";
    std::string text = "; did you mean '" + picks[0] + "'";
    for (size_t i = 1; i < picks.size(); ++i) text += (i + 1 == picks.size() ? " or '" : ", '") + picks[i] + "'";
    return text + "?";
}

int fail(const char *command, int code, const std::string &message) {
    std::fprintf(stderr, "cudnnfe %s: %s\n", command, terminal_safe(message, EscapeStyle::Text).c_str());
    return code;
}

std::string status_message(fe_status status, const std::string &context) {
    std::string message = fe_last_error_message();
    if (message.empty()) message = fe_status_string(status);
    return context.empty() ? message : context + ": " + message;
}

int fail_status(const char *command, fe_status status, const std::string &context) {
    return fail(command, exit_code_for(status), status_message(status, context));
}

bool Args::parse(int argc, char **argv, int first, const std::vector<OptionSpec> &specs, std::string &error) {
    bool options_done = false;
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (options_done || arg.size() < 2 || arg[0] != '-') {
            positional.push_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            help = true;
            continue;
        }
        std::string name = arg, inline_value;
        bool has_inline = false;
        size_t eq = arg.find('=');
        if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = arg.substr(0, eq);
            inline_value = arg.substr(eq + 1);
            has_inline = true;
        }
        const OptionSpec *spec = nullptr;
        for (const OptionSpec &s : specs)
            if (name == s.long_name || (s.short_name && name == s.short_name)) spec = &s;
        if (!spec) {
            std::vector<std::string> names = {"--help"};
            for (const OptionSpec &s : specs) {
                names.push_back(s.long_name);
                if (s.short_name) names.push_back(s.short_name);
            }
            error = "unknown option '" + name + "'" + did_you_mean(name, names);
            return false;
        }
        if (!spec->takes_value) {
            if (has_inline) {
                error = "option '" + std::string(spec->long_name) + "' takes no value";
                return false;
            }
            given_.emplace_back(spec->long_name, "");
            continue;
        }
        if (!has_inline) {
            if (i + 1 >= argc) {
                error = "option '" + name + "' needs a value";
                return false;
            }
            inline_value = argv[++i];
        }
        given_.emplace_back(spec->long_name, inline_value);
    }
    return true;
}

bool Args::has(const char *long_name) const {
    for (const auto &g : given_)
        if (g.first == long_name) return true;
    return false;
}

std::string Args::value(const char *long_name, const std::string &fallback) const {
    std::string out = fallback;
    for (const auto &g : given_)
        if (g.first == long_name) out = g.second;
    return out;
}

bool Args::integer(const char *long_name, long long fallback, long long min, long long max, long long *out,
                   std::string &error) const {
    if (!has(long_name)) {
        *out = fallback;
        return true;
    }
    std::string text = value(long_name);
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE) {
        error = std::string(long_name) + ": '" + text + "' is not a whole number";
        return false;
    }
    if (v < min || v > max) {
        error = std::string(long_name) + ": " + text + " is outside " + std::to_string(min) + ".." + std::to_string(max);
        return false;
    }
    *out = v;
    return true;
}

int parse_or_exit(const char *command, const char *help, int argc, char **argv, const std::vector<OptionSpec> &specs,
                  Args &args) {
    std::string error;
    if (!args.parse(argc, argv, 0, specs, error)) {
        // A suggestion is help enough; otherwise point at the command's help.
        if (error.find("; did you mean '") == std::string::npos) error += " (see 'cudnnfe " + std::string(command) + " --help')";
        return fail(command, kExitBadInput, error);
    }
    if (args.help) {
        std::fputs(help, stdout);
        return kExitOk;
    }
    return -1;
}

bool read_file(const std::string &path, std::string &out, std::string &error) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        error = "cannot read " + path + ": it is a directory";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    out = text.str();
    return true;
}

namespace {

// A new file next to `path` whose name no other process can predict, created rather than opened
// (O_EXCL | O_NOFOLLOW), so a link planted there is never written through. -1 on failure.
int create_temporary(const std::string &path, std::string &temporary) {
    std::random_device random;
    for (int attempt = 0; attempt < 8; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, ".tmp.%08x%08x", random(), random());
        temporary = path + suffix;
        int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

bool write_all(int fd, const void *data, size_t size) {
    const char *bytes = static_cast<const char *>(data);
    size_t written = 0;
    while (written < size) {
        ssize_t n = ::write(fd, bytes + written, size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

bool write_file(const std::string &path, const void *data, size_t size, std::string &error) {
    std::string temporary;
    int fd = create_temporary(path, temporary);
    if (fd < 0) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    }
    bool ok = write_all(fd, data, size);
    ok = ::close(fd) == 0 && ok;
    // In the target's own directory, so rename() replaces it atomically.
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        error = "cannot write " + path + ": " + std::strerror(errno);
        ::unlink(temporary.c_str());
        return false;
    }
    return true;
}

bool make_directories(const std::string &path, std::string &error) {
    std::string partial;
    std::stringstream parts(path);
    std::string part;
    if (!path.empty() && path[0] == '/') partial = "/";
    while (std::getline(parts, part, '/')) {
        if (part.empty()) continue;
        partial += part;
        struct stat st;
        if (stat(partial.c_str(), &st) != 0) {
            if (mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) {
                error = "cannot create directory " + partial + ": " + std::strerror(errno);
                return false;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            error = "cannot create directory " + partial + ": a file of that name exists";
            return false;
        }
        partial += "/";
    }
    return true;
}

namespace {

// Calls `get(buf, size, &length)` once to size, once to fill.
template <typename Get>
fe_status sized_call(std::string &out, bool nul_terminated, Get get) {
    size_t length = 0;
    fe_status status = get(nullptr, 0, &length);
    if (status != FE_STATUS_BUFFER_TOO_SMALL) return status == FE_OK ? FE_STATUS_INTERNAL : status;
    std::string text(length + (nul_terminated ? 1 : 0), '\0');
    status = get(&text[0], text.size(), &length);
    if (status != FE_OK) return status;
    text.resize(length);
    out.swap(text);
    return FE_OK;
}

}  // namespace

fe_status device_properties(int32_t device, std::string &out) {
    return sized_call(out, true, [&](char *buf, size_t size, size_t *length) {
        return fe_device_properties_capture(device, buf, size, length);
    });
}

fe_status serialized_description(const std::string &blob, std::string &out) {
    return sized_call(out, true, [&](char *buf, size_t size, size_t *length) {
        return fe_serialized_describe(blob.data(), blob.size(), buf, size, length);
    });
}

fe_status serialize(const fe_graph *graph, std::string &out) {
    return sized_call(out, false, [&](char *buf, size_t size, size_t *length) {
        return fe_graph_serialize(graph, buf, size, length);
    });
}

fe_status graph_json(const fe_graph *graph, std::string &out) {
    return sized_call(out, true, [&](char *buf, size_t size, size_t *length) {
        return fe_graph_to_json(graph, buf, size, length);
    });
}

namespace {

// The length of the UTF-8 sequence at text[at] and its code point, or 0 when the bytes there
// are not UTF-8.
size_t utf8_sequence(const std::string &text, size_t at, uint32_t *code_point) {
    unsigned char lead = static_cast<unsigned char>(text[at]);
    size_t length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length == 0 || at + length > text.size()) return 0;
    uint32_t cp = lead & (0x7f >> length);
    for (size_t i = 1; i < length; ++i) {
        unsigned char c = static_cast<unsigned char>(text[at + i]);
        if ((c & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (c & 0x3f);
    }
    *code_point = cp;
    return length;
}

}  // namespace

// `text` with everything a terminal acts on written as an escape: C0 controls but the line
// break, DEL, C1 controls (however encoded) and bytes that are not UTF-8. A blob comes from
// anywhere, and printing its strings must not move the cursor, retitle the window or worse.
// Text style writes \xNN per byte; JSON style writes \u00NN (and \ufffd for a stray byte),
// which are valid inside the JSON strings where such bytes can only occur.
std::string terminal_safe(const std::string &text, EscapeStyle style) {
    std::string out;
    out.reserve(text.size());
    char escape[16];
    auto escape_byte = [&](unsigned char c) {
        std::snprintf(escape, sizeof escape, style == EscapeStyle::Text ? "\\x%02x" : "\\u%04x", c);
        out += escape;
    };
    for (size_t at = 0; at < text.size();) {
        unsigned char c = static_cast<unsigned char>(text[at]);
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n') || c == 0x7f)
                escape_byte(c);
            else
                out += static_cast<char>(c);
            ++at;
            continue;
        }
        uint32_t cp = 0;
        size_t length = utf8_sequence(text, at, &cp);
        if (length == 0) {
            if (style == EscapeStyle::Text)
                escape_byte(c);
            else
                out += "\\ufffd";
            ++at;
        } else if (cp < 0xa0) {  // a C1 control, or an overlong form of a control
            if (style == EscapeStyle::Json)
                escape_byte(static_cast<unsigned char>(cp));
            else
                for (size_t i = 0; i < length; ++i) escape_byte(static_cast<unsigned char>(text[at + i]));
            at += length;
        } else {
            out.append(text, at, length);
            at += length;
        }
    }
    return out;
}

std::string cudnn_version_text(int64_t v) {
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string cuda_version_text(int64_t v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string bytes_text(double bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024 && unit < 4) {
        bytes /= 1024;
        ++unit;
    }
    char text[64];
    if (unit == 0) std::snprintf(text, sizeof text, "%.0f B", bytes);
    else std::snprintf(text, sizeof text, "%.1f %s", bytes, units[unit]);
    return text;
}

int32_t gpu_count(std::string &why) {
    int32_t count = 0;
    fe_status status = fe_device_count(&count);
    if (status != FE_OK) {
        why = fe_last_error_message();
        return -1;
    }
    return count;
}

}  // namespace tool
