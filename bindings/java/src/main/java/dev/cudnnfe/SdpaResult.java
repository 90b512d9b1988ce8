package dev.cudnnfe;

/** Attention forward's outputs: O, and the softmax stats when asked for (else null). */
public final class SdpaResult {
    public final Tensor o;
    public final Tensor stats;

    SdpaResult(Tensor o, Tensor stats) {
        this.o = o;
        this.stats = stats;
    }
}
