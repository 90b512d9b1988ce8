// What every subcommand shares: exit codes, option parsing, messages, files, library calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudnnfe.h"

namespace tool {

// The documented exit codes (docs/cudnnfe-tool.md).
enum Exit : int {
    kExitOk = 0,
    kExitBadInput = 1,    // bad flags, missing or malformed files, graphs the library refuses
    kExitEnvironment = 2  // no GPU, no cuDNN, no CUDA runtime: the machine cannot do what was asked
};

// The exit code a failed library call stands for: a missing library or GPU is the machine's
// fault (2); everything else is the input's (1). Where the library's status hides a missing
// CUDA driver (cuDNN then lists no runtime-compiled engines and the status is
// FE_STATUS_NOT_SUPPORTED), the caller asks driver_problem() first (compile does).
int exit_code_for(fe_status status);

// The CUDA driver (libcuda.so.1), which the CUDA runtime and cuDNN load themselves. The library
// does not say whether it is there: without it fe_device_count answers 0 GPUs, fe_handle_create
// fails with cudaErrorInsufficientDriver, and cuDNN lists no runtime-compiled engines (a
// deviceless build says "no engine config"). The tool looks for itself, once, when it needs to
// know (dlopen, then cuInit to tell the toolkit's stub from a driver).
enum class Driver { Usable, Missing, Stub };
struct DriverInfo {
    Driver state = Driver::Usable;
    std::string library;  // the file the loader found, when it found one
    std::string error;    // dlerror's words, when it found none
};
const DriverInfo &driver_info();
Driver cuda_driver();
// What is wrong with the driver ("no CUDA driver (libcuda.so.1 not found)"), or "" when it is
// usable.
std::string driver_reason();
// The same with what it means ("...: this machine can neither run plans nor build them for a
// GPU of its own"), or "".
std::string driver_problem();
// What `cudnnfe info` prints for the driver when no GPU can tell its version.
std::string driver_state_text();

// "cudnnfe <command>: <message>" on stderr. Returns `code` so callers can `return fail(...)`.
int fail(const char *command, int code, const std::string &message);
// "CONTEXT: MESSAGE" with the last library error (already naming the call and the cause), or
// the status's name when the library left no message.
std::string status_message(fe_status status, const std::string &context);
// fail() with status_message and exit_code_for.
int fail_status(const char *command, fe_status status, const std::string &context);

struct OptionSpec {
    const char *long_name;  // "--output"
    const char *short_name; // "-o" or nullptr
    bool takes_value;
};

// "; did you mean 'bench'?" for a mistyped name: the candidate `given` is the prefix of when it
// is the prefix of exactly one; else the candidates closest to it, when they are within two
// edits (a transposed pair counts as one) and the edits are fewer than half its letters; else
// the candidates it is a prefix of, when there are two or three ("'info' or 'inspect'"); ""
// when nothing is close.
std::string did_you_mean(const std::string &given, const std::vector<std::string> &candidates);

// Options of one subcommand: "--name value", "--name=value", "-o value"; "--" ends options;
// "-h"/"--help" anywhere asks for help. Everything else is positional.
struct Args {
    std::vector<std::string> positional;
    bool help = false;

    // false with `error` set for an unknown option (with a suggestion when one is close) or a
    // missing value.
    bool parse(int argc, char **argv, int first, const std::vector<OptionSpec> &specs, std::string &error);
    bool has(const char *long_name) const;
    // The value of an option (the last one given), or `fallback`.
    std::string value(const char *long_name, const std::string &fallback = "") const;
    // An integer option in [min, max]; false with `error` set when it is not one.
    bool integer(const char *long_name, long long fallback, long long min, long long max, long long *out,
                 std::string &error) const;

  private:
    std::vector<std::pair<std::string, std::string>> given_;
};

// Parses the subcommand's arguments; prints its help (exit 0) or the error (exit 1) when
// parsing should stop. Returns -1 to go on.
int parse_or_exit(const char *command, const char *help, int argc, char **argv, const std::vector<OptionSpec> &specs,
                  Args &args);

// The whole file; false with `error` ("cannot read X: No such file or directory").
bool read_file(const std::string &path, std::string &out, std::string &error);
// Writes through a temporary file and a rename, so a reader never sees half a file. The
// temporary file is created with an unpredictable name (O_EXCL | O_NOFOLLOW) next to the
// target, so nothing planted in the directory is written through.
bool write_file(const std::string &path, const void *data, size_t size, std::string &error);
// mkdir -p.
bool make_directories(const std::string &path, std::string &error);

// The library's variable-length outputs (the NULL-then-sized call protocol).
fe_status device_properties(int32_t device, std::string &out);
fe_status serialized_description(const std::string &blob, std::string &out);
fe_status serialize(const fe_graph *graph, std::string &out);
fe_status graph_json(const fe_graph *graph, std::string &out);

// `text` with everything a terminal acts on written as an escape: C0 controls but the line
// break, DEL, C1 controls (however encoded) and bytes that are not UTF-8. Text style writes
// \xNN per byte; JSON style writes \u00NN (and \ufffd for a stray byte), which are valid inside
// the JSON strings where such bytes can only occur (quote() writes the C0 controls already).
enum class EscapeStyle { Text, Json };
std::string terminal_safe(const std::string &text, EscapeStyle style);

// "9.19.0" from 91900; "13.0" from 13000 (the CUDA encoding).
std::string cudnn_version_text(int64_t version);
std::string cuda_version_text(int64_t version);
// "79.2 GiB", "48.0 KiB", "512 B".
std::string bytes_text(double bytes);

// How many GPUs the CUDA runtime sees; on failure (no runtime), `why` says so and -1 is returned.
int32_t gpu_count(std::string &why);

}  // namespace tool
