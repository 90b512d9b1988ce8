# Sourced by the scripts: where cuDNN, the CUDA runtime and the device description are.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
for dir in "$CUDA_HOME/lib" "$CUDA_HOME/lib64"; do
    [ -d "$dir" ] && LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}"
done
export LD_LIBRARY_PATH
export CUDNNFE_DEVICE_JSON=${CUDNNFE_DEVICE_JSON:-$ROOT/../shared/devices/h100-sxm-80gb.json}
