// The engine notes (cudnnfe.h's fe_numerical_note and fe_behavior_note bits) by name, for what the
// tool prints: a plan's build options, a graph's ranked engine configs.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cudnnfe.h"

namespace tool {

inline const std::pair<int, const char *> kNumericalNotes[] = {
    {FE_NUMERICAL_NOTE_TENSOR_CORE, "TENSOR_CORE"},
    {FE_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, "DOWN_CONVERT_INPUTS"},
    {FE_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION, "REDUCED_PRECISION_REDUCTION"},
    {FE_NUMERICAL_NOTE_FFT, "FFT"},
    {FE_NUMERICAL_NOTE_NONDETERMINISTIC, "NONDETERMINISTIC"},
    {FE_NUMERICAL_NOTE_WINOGRAD, "WINOGRAD"},
    {FE_NUMERICAL_NOTE_WINOGRAD_TILE_4X4, "WINOGRAD_TILE_4X4"},
    {FE_NUMERICAL_NOTE_WINOGRAD_TILE_6X6, "WINOGRAD_TILE_6X6"},
    {FE_NUMERICAL_NOTE_WINOGRAD_TILE_13X13, "WINOGRAD_TILE_13X13"},
    {FE_NUMERICAL_NOTE_STRICT_NAN_PROP, "STRICT_NAN_PROP"}};
inline const std::pair<int, const char *> kBehaviorNotes[] = {
    {FE_BEHAVIOR_NOTE_RUNTIME_COMPILATION, "RUNTIME_COMPILATION"},
    {FE_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8X32_REORDER, "REQUIRES_FILTER_INT8X32_REORDER"},
    {FE_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8X32_REORDER, "REQUIRES_BIAS_INT8X32_REORDER"},
    {FE_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API, "SUPPORTS_CUDA_GRAPH_NATIVE_API"}};

// The notes of a mask, by name (their names in cudnnfe.h without the prefix); a bit this tool does
// not know (a newer library's) as hex.
std::vector<std::string> numerical_note_names(unsigned long long mask);
std::vector<std::string> behavior_note_names(unsigned long long mask);

}  // namespace tool
