package dev.cudnnfe;

/**
 * Two results of one operation: softmax (y, stats; stats null unless asked for), block scale
 * quantize (y, scale), FP8 matmul (y, amax).
 */
public final class TensorPair {
    public final Tensor first;
    public final Tensor second;

    TensorPair(Tensor first, Tensor second) {
        this.first = first;
        this.second = second;
    }
}
