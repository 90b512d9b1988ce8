// Compiled as strict C++17 (-pedantic -Werror) by the build: the public header must stay C++-clean.
// The program is header_check.c's, so the C and the C++ compilers see the same uses of the header.
#include "header_check.c"
