// The library's one way to read the environment. In a setuid or setgid program (or one that
// gained capabilities) the environment belongs to the user who started it, not to the program:
// there every variable reads as unset, so no CUDNNFE_* setting (log files, libraries to load,
// cache directories) crosses that boundary.
#pragma once

namespace fe {

// The variable's value, or nullptr when it is unset or the process runs with raised privileges.
const char *environment(const char *name);

}  // namespace fe
