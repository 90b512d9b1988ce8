package dev.cudnnfe;

import java.util.EnumSet;
import java.util.Set;

/** An engine's numerical notes (cuDNN's CUDNN_NUMERICAL_NOTE_*): one bit each of a mask. */
public enum NumericalNote {
    TENSOR_CORE(1),
    DOWN_CONVERT_INPUTS(2),
    REDUCED_PRECISION_REDUCTION(4),
    FFT(8),
    /** Deselect it for bitwise-repeatable results. */
    NONDETERMINISTIC(16),
    WINOGRAD(32),
    WINOGRAD_TILE_4X4(64),
    WINOGRAD_TILE_6X6(128),
    WINOGRAD_TILE_13X13(256),
    STRICT_NAN_PROP(512);

    public final long bit;

    NumericalNote(long bit) {
        this.bit = bit;
    }

    static long mask(Set<NumericalNote> notes) {
        long mask = 0;
        for (NumericalNote n : notes) mask |= n.bit;
        return mask;
    }

    static Set<NumericalNote> of(long mask) {
        Set<NumericalNote> notes = EnumSet.noneOf(NumericalNote.class);
        for (NumericalNote n : values()) if ((mask & n.bit) != 0) notes.add(n);
        return notes;
    }
}
