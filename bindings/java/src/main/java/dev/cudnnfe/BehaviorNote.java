package dev.cudnnfe;

import java.util.EnumSet;
import java.util.Set;

/** An engine's behaviour notes (cuDNN's CUDNN_BEHAVIOR_NOTE_*): one bit each of a mask. */
public enum BehaviorNote {
    RUNTIME_COMPILATION(1),
    REQUIRES_FILTER_INT8X32_REORDER(2),
    REQUIRES_BIAS_INT8X32_REORDER(4),
    /** {@link Graph#populateCudaGraph} works with this engine's plans. */
    SUPPORTS_CUDA_GRAPH_NATIVE_API(8);

    public final long bit;

    BehaviorNote(long bit) {
        this.bit = bit;
    }

    static long mask(Set<BehaviorNote> notes) {
        long mask = 0;
        for (BehaviorNote n : notes) mask |= n.bit;
        return mask;
    }

    static Set<BehaviorNote> of(long mask) {
        Set<BehaviorNote> notes = EnumSet.noneOf(BehaviorNote.class);
        for (BehaviorNote n : values()) if ((mask & n.bit) != 0) notes.add(n);
        return notes;
    }
}
