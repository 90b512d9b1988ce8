package dev.cudnnfe;

/**
 * One knob of an engine ({@link Graph#engineKnobs}): its type (cuDNN's cudnnBackendKnobType_t
 * value) and the values it takes, min to max in steps of stride.
 */
public final class KnobRange {
    public final int type;
    public final long min;
    public final long max;
    public final long stride;

    KnobRange(int type, long min, long max, long stride) {
        this.type = type;
        this.min = min;
        this.max = max;
        this.stride = stride;
    }

    /** Whether value is one this knob takes. */
    public boolean contains(long value) {
        return value >= min && value <= max && (stride <= 0 || (value - min) % stride == 0);
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof KnobRange)) return false;
        KnobRange k = (KnobRange) other;
        return k.type == type && k.min == min && k.max == max && k.stride == stride;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(type, min, max, stride);
    }

    @Override
    public String toString() {
        return "k" + type + "=" + min + ".." + max + (stride == 1 ? "" : " step " + stride);
    }
}
