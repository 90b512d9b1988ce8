package dev.cudnnfe;

import static dev.cudnnfe.SdpaFp8Scales.pointer;

/** FP8 attention backward's scaling factors: one-element float tensors, all required. */
public final class SdpaFp8BackwardScales {
    public Tensor descaleQ, descaleK, descaleV, descaleO, descaleDO, descaleS, descaleDP;
    public Tensor scaleS, scaleDP, scaleDQ, scaleDK, scaleDV;

    fe_sdpa_fp8_backward_scales toNative() {
        fe_sdpa_fp8_backward_scales s = new fe_sdpa_fp8_backward_scales();
        try {
            s.setDescale_q(pointer(descaleQ));
            s.setDescale_k(pointer(descaleK));
            s.setDescale_v(pointer(descaleV));
            s.setDescale_o(pointer(descaleO));
            s.setDescale_do(pointer(descaleDO));
            s.setDescale_s(pointer(descaleS));
            s.setDescale_dp(pointer(descaleDP));
            s.setScale_s(pointer(scaleS));
            s.setScale_dp(pointer(scaleDP));
            s.setScale_dq(pointer(scaleDQ));
            s.setScale_dk(pointer(scaleDK));
            s.setScale_dv(pointer(scaleDV));
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }
}
