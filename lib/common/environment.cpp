#include "common/environment.hpp"

#include <stdlib.h>

namespace fe {

const char *environment(const char *name) { return secure_getenv(name); }

}  // namespace fe
