// What the library makes of the CUDA driver library it finds: the answer of cuInit tells a real
// driver with a GPU from the toolkit's stub and from a driver that sees no GPU, and each machine
// that cannot compile kernels has its own advice (a build there is FE_STATUS_CANNOT_TELL).
#include <gtest/gtest.h>

#include "backend/driver.hpp"

TEST(DriverState, CuinitsAnswerNamesTheDriver) {
    EXPECT_EQ(fe::driver_state_of_cuinit(0), fe::DriverState::Real);
    EXPECT_EQ(fe::driver_state_of_cuinit(34), fe::DriverState::Stub);     // CUDA_ERROR_STUB_LIBRARY
    EXPECT_EQ(fe::driver_state_of_cuinit(100), fe::DriverState::NoDevice);  // CUDA_ERROR_NO_DEVICE
    EXPECT_EQ(fe::driver_state_of_cuinit(999), fe::DriverState::Real);    // the driver's own error
}
