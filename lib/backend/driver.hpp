// The CUDA driver library (libcuda.so.1) as this process finds it: a real driver, the CUDA
// toolkit's stub (which links but runs nothing), or none. cuDNN lists its runtime-compiled
// engines (matmuls, pointwise and attention fusions) only when a driver library loads, so a
// machine without one can check those graphs' support only with the stub, which the library
// loads itself when CUDNNFE_STUB_DRIVER asks for it.
#pragma once

#include <string>

namespace fe {

// NoDevice: a real driver that sees no GPU (cuInit: no CUDA-capable device), which can no more
// compile a runtime-compiled engine's kernels than the stub can.
enum class DriverState { Real, NoDevice, Stub, Missing };

// What cuInit's answer says of the driver library that gave it: CUDA_ERROR_STUB_LIBRARY (34)
// from the toolkit's stub, CUDA_ERROR_NO_DEVICE (100) from a driver without a GPU.
inline DriverState driver_state_of_cuinit(int code) {
    if (code == 34) return DriverState::Stub;
    if (code == 100) return DriverState::NoDevice;
    return DriverState::Real;
}

// Probed once per process (loading libcuda.so.1, as cuDNN would).
DriverState driver_state();

// CUDNNFE_STUB_DRIVER=1 (the toolkit's stub under $CUDA_HOME, $CUDA_PATH or /usr/local/cuda) or
// =<path of a libcuda.so>: when no driver library loads, load that stub for this process, so
// that deviceless support checks see runtime-compiled engines. Called before cuDNN is loaded.
void load_stub_driver_if_asked();

// Why a machine without a usable driver cannot do what was asked, and the remedy; "" with a
// real driver.
std::string driver_remedy();

}  // namespace fe
