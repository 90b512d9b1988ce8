package dev.cudnnfe;

/**
 * One knob setting of a candidate ({@link Graph#addCandidate}): a knob type (cuDNN's
 * cudnnBackendKnobType_t value, as in {@link KnobRange#type}) and its value.
 */
public final class KnobChoice {
    public final int type;
    public final long value;

    public KnobChoice(int type, long value) {
        this.type = type;
        this.value = value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KnobChoice && ((KnobChoice) other).type == type && ((KnobChoice) other).value == value;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(type, value);
    }

    /** As in an engine tag: "k2=3". */
    @Override
    public String toString() {
        return "k" + type + "=" + value;
    }
}
