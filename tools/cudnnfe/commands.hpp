// The subcommands. Each takes the arguments after its own name and returns the exit code.
#pragma once

namespace tool {

int info_command(int argc, char **argv);
int device_command(int argc, char **argv);
int compile_command(int argc, char **argv);
int bench_command(int argc, char **argv);
int inspect_command(int argc, char **argv);
int schema_command(int argc, char **argv);

}  // namespace tool
