package dev.cudnnfe;

/** FP8 attention's scaling factors: one-element float tensors, all required. */
public final class SdpaFp8Scales {
    public Tensor descaleQ, descaleK, descaleV;
    /** Descale of the FP8 probabilities fed to P.V. */
    public Tensor descaleS;
    /** Quantizes P to FP8 before P.V. */
    public Tensor scaleS;
    /** Quantizes O. */
    public Tensor scaleO;

    fe_sdpa_fp8_scales toNative() {
        fe_sdpa_fp8_scales s = new fe_sdpa_fp8_scales();
        try {
            s.setDescale_q(pointer(descaleQ));
            s.setDescale_k(pointer(descaleK));
            s.setDescale_v(pointer(descaleV));
            s.setDescale_s(pointer(descaleS));
            s.setScale_s(pointer(scaleS));
            s.setScale_o(pointer(scaleO));
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** An unset scale passes NULL; the library names it in its error. */
    static long pointer(Tensor tensor) {
        return tensor == null ? 0 : tensor.pointer();
    }
}
