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
// fault (2); everything else is the input's (1).
int exit_code_for(fe_status status);

// "cudnnfe <command>: <message>" on stderr. Returns `code` so callers can `return fail(...)`.
int fail(const char *command, int code, const std::string &message);
// The same, with the last library error (already naming the call and the cause).
int fail_status(const char *command, fe_status status, const std::string &context);

struct OptionSpec {
    const char *long_name;  // "--output"
    const char *short_name; // "-o" or nullptr
    bool takes_value;
};

// Options of one subcommand: "--name value", "--name=value", "-o value"; "--" ends options;
// "-h"/"--help" anywhere asks for help. Everything else is positional.
struct Args {
    std::vector<std::string> positional;
    bool help = false;

    // false with `error` set for an unknown option or a missing value.
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

// "9.19.0" from 91900; "13.0" from 13000 (the CUDA encoding).
std::string cudnn_version_text(int64_t version);
std::string cuda_version_text(int64_t version);
// "79.2 GiB", "48.0 KiB", "512 B".
std::string bytes_text(double bytes);

// How many GPUs the CUDA runtime sees; on failure (no runtime), `why` says so and -1 is returned.
int32_t gpu_count(std::string &why);

}  // namespace tool
