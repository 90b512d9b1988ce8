// Execution refuses an output bound to memory that an input or another output also uses,
// except for the (input, output) pairs an op updates in place (batchnorm's running statistics).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/binding_overlap.hpp"

namespace {

using Pairs = std::vector<std::pair<int32_t, int32_t>>;

void *at(uintptr_t address) { return reinterpret_cast<void *>(address); }

// Two inputs then two outputs, 256 bytes each.
struct Bindings {
    std::vector<void *> pointers = {at(0x1000), at(0x2000), at(0x3000), at(0x4000)};
    std::vector<int64_t> bytes = {256, 256, 256, 256};
    std::pair<int32_t, int32_t> overlap(const Pairs &shared = {}) const {
        return fe::find_overlapping_slots({pointers.data(), bytes.data(), 2, 4}, shared);
    }
};

const std::pair<int32_t, int32_t> kNone{-1, -1};

TEST(BindingOverlap, SeparateBuffersPass) { EXPECT_EQ(Bindings().overlap(), kNone); }

TEST(BindingOverlap, AnOutputOnAnInputIsFound) {
    Bindings b;
    b.pointers[3] = b.pointers[0];
    EXPECT_EQ(b.overlap(), std::make_pair(0, 3));
}

TEST(BindingOverlap, PartialOverlapIsFoundFromEitherSide) {
    Bindings b;
    b.pointers[2] = at(0x10f0);  // starts inside input 0's last 16 bytes
    EXPECT_EQ(b.overlap(), std::make_pair(0, 2));
    b.pointers[2] = at(0x0f10);  // ends inside input 0
    EXPECT_EQ(b.overlap(), std::make_pair(0, 2));
    b.pointers[2] = at(0x0f00);  // ends exactly where input 0 starts
    EXPECT_EQ(b.overlap(), kNone);
}

TEST(BindingOverlap, TwoOutputsOnOneBufferAreFound) {
    Bindings b;
    b.pointers[3] = at(0x3080);
    EXPECT_EQ(b.overlap(), std::make_pair(2, 3));
}

TEST(BindingOverlap, InputsMayShareMemory) {
    Bindings b;
    b.pointers[1] = b.pointers[0];  // Q, K and V in one buffer, for instance
    EXPECT_EQ(b.overlap(), kNone);
}

TEST(BindingOverlap, InPlacePairsMayShareAndOnlyThey) {
    Bindings b;
    b.pointers[2] = b.pointers[0];  // running mean -> next running mean
    b.pointers[3] = b.pointers[1];  // running var -> next running var
    EXPECT_EQ(b.overlap({{0, 2}, {1, 3}}), kNone);
    EXPECT_EQ(b.overlap({{0, 2}}), std::make_pair(1, 3));
    b.pointers[3] = b.pointers[0];  // the var's output on the mean's input: not in place
    EXPECT_EQ(b.overlap({{0, 2}, {1, 3}}), std::make_pair(0, 3));
}

TEST(BindingOverlap, AnUnknownSizeStillHoldsItsFirstByte) {
    Bindings b;
    b.bytes[0] = 0;  // a ragged tensor: its size is known only to the caller
    b.pointers[2] = b.pointers[0];
    EXPECT_EQ(b.overlap(), std::make_pair(0, 2));
}

}  // namespace
