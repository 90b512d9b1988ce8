package dev.cudnnfe.examples;

import dev.cudnnfe.BuildPolicy;
import dev.cudnnfe.CannotTellException;
import dev.cudnnfe.CudnnFe;
import dev.cudnnfe.CudnnFeException;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.Handle;
import dev.cudnnfe.Status;
import dev.cudnnfe.Tensor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Random;

/**
 * What the examples share: the GPU-or-deviceless choice, random inputs, poisoned outputs and the
 * comparison with a CPU reference. Each example stays about its graph. Exit codes: 0 verified or
 * built devicelessly, 1 failure, 77 skipped (no cuDNN).
 */
final class Example {
    static final int SKIP = 77;
    private static final Random RANDOM = new Random();

    private Example() {}

    interface Body {
        int run() throws Exception;
    }

    /** Run an example's body; a library error prints its status and message. */
    static void main(Body body) {
        int code;
        try {
            code = body.run();
        } catch (CudnnFeException e) {
            System.err.println("failed: " + e.status() + ": " + e.getMessage());
            code = e.status() == Status.LIBRARY_UNAVAILABLE ? SKIP : 1;
        } catch (Exception e) {
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    /** A handle on GPU 0, or null (having said why) when this machine has none. */
    static Handle handle() {
        try {
            CudnnFe.cudnnVersion();
        } catch (CudnnFeException e) {
            System.out.println("cuDNN is not available: " + e.getMessage());
            System.exit(SKIP);
        }
        try {
            if (CudnnFe.deviceCount() == 0) return null;
            return new Handle(0);
        } catch (CudnnFeException e) {
            System.out.println("no usable GPU: " + e.getMessage());
            return null;
        }
    }

    /**
     * No GPU: take the build's steps for the H100 description (args[0], $CUDNNFE_DEVICE_JSON, or
     * ../shared/devices/h100-sxm-80gb.json), say how far a machine with no GPU gets, and return
     * the exit code.
     */
    static int buildDeviceless(Graph graph, String[] args) throws IOException {
        String path = devicePath(args);
        if (!Files.isReadable(Paths.get(path))) {
            System.out.println("no GPU and no device description at " + path + ": nothing to do");
            return SKIP;
        }
        graph.setDeviceProperties(new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8));
        graph.validate();
        graph.buildOperationGraph(null);
        graph.createExecutionPlans();
        long viable = graph.viableCount();
        if (viable == 0) {
            System.out.println("no GPU: graph '" + graph.name() + "' lowered for the H100 description, but cuDNN lists no"
                    + " engine for it without a CUDA driver library (libcuda.so.1); not executed");
            return 0;
        }
        graph.checkSupport();
        try {
            graph.buildPlans(BuildPolicy.HEURISTICS_CHOICE);
        } catch (CannotTellException e) {
            System.out.println("no GPU: graph '" + graph.name() + "' is supported for the H100 description (" + viable
                    + " viable engine configs); its kernels are compiled when it is built on a GPU (" + e.getMessage()
                    + "); not executed");
            return 0;
        }
        System.out.println("no GPU: built plan " + graph.engineTag() + " (workspace " + graph.workspaceSize()
                + " bytes) devicelessly for the H100 description; not executed");
        return 0;
    }

    /** Where the H100 description is: args[0], $CUDNNFE_DEVICE_JSON, or the shared copy. */
    static String devicePath(String[] args) {
        String path = args.length > 0 ? args[0] : System.getenv("CUDNNFE_DEVICE_JSON");
        return path != null ? path : "../shared/devices/h100-sxm-80gb.json";
    }

    /** The H100 description's text, or null (having said why) when it is not there. */
    static String deviceJson(String[] args) throws IOException {
        String path = devicePath(args);
        if (!Files.isReadable(Paths.get(path))) {
            System.out.println("no GPU and no device description at " + path + ": nothing to do");
            return null;
        }
        return new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
    }

    /** Elements a buffer for the tensor spans (its largest reachable offset + 1). */
    static int span(Tensor tensor) {
        return (int) (tensor.sizeBytes() / tensor.dataType().size());
    }

    /** A buffer of fresh uniform values in [-1, 1), rounded to the tensor's type on the device;
     *  host receives the rounded values, indexed by offset. */
    static DeviceBuffer input(Tensor tensor, float[][] host) {
        DeviceBuffer buffer = DeviceBuffer.forTensor(0, tensor);
        float[] values = new float[span(tensor)];
        for (int i = 0; i < values.length; ++i) values[i] = RANDOM.nextFloat() * 2 - 1;
        buffer.upload(values, tensor.dataType());
        buffer.download(values, tensor.dataType());
        host[0] = values;
        return buffer;
    }

    /** A buffer for an output, poisoned (all bits set: NaN) so unwritten elements show. */
    static DeviceBuffer output(Tensor tensor) {
        DeviceBuffer buffer = DeviceBuffer.forTensor(0, tensor);
        buffer.fill((byte) 0xFF);
        return buffer;
    }

    static float[] download(DeviceBuffer buffer, Tensor tensor) {
        return buffer.downloadFloats(span(tensor), tensor.dataType());
    }

    /**
     * Compare got (indexed by offset under the tensor's strides) with want (logical row-major
     * order): print the largest errors and return 0 if every element is finite and within
     * atol + rtol * |want|, else 1.
     */
    static int compare(String what, Tensor tensor, float[] got, double[] want, double atol, double rtol) {
        long[] dims = tensor.dims();
        long[] strides = tensor.strides();
        long[] index = new long[dims.length];
        long bad = 0;
        double maxAbs = 0;
        for (int e = 0; e < want.length; ++e) {
            long offset = 0;
            for (int d = 0; d < dims.length; ++d) offset += index[d] * strides[d];
            double g = got[(int) offset];
            double err = Math.abs(g - want[e]);
            if (!Double.isFinite(g) || err > atol + rtol * Math.abs(want[e])) {
                if (bad++ == 0) System.err.println(what + ": element " + e + " is " + g + ", expected " + want[e]);
            } else if (err > maxAbs) {
                maxAbs = err;
            }
            for (int d = dims.length - 1; d >= 0; --d) {
                if (++index[d] < dims[d]) break;
                index[d] = 0;
            }
        }
        if (bad > 0) {
            System.err.println(what + ": " + bad + " of " + want.length + " elements wrong");
            return 1;
        }
        System.out.printf("verified on GPU: %s, %d elements, max abs err %.3g%n", what, want.length, maxAbs);
        return 0;
    }

    /** C[b] = A[b] x B[b] + D, D broadcast over b (the matmul examples' reference). */
    static double[] matmulBias(float[] a, float[] b, float[] d, int batch, int m, int n, int k) {
        double[] c = new double[batch * m * n];
        for (int i = 0; i < batch; ++i)
            for (int r = 0; r < m; ++r)
                for (int col = 0; col < n; ++col) {
                    double acc = d[r * n + col];
                    for (int x = 0; x < k; ++x) acc += (double) a[(i * m + r) * k + x] * b[(i * k + x) * n + col];
                    c[(i * m + r) * n + col] = acc;
                }
        return c;
    }
}
