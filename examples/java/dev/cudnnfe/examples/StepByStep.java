package dev.cudnnfe.examples;

import dev.cudnnfe.BuildPolicy;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.HeurMode;
import dev.cudnnfe.Tensor;

/**
 * The build, one step at a time, and execution by uid.
 *
 * Graph.build is validate -> build the operation graph -> create execution plans (heuristics) ->
 * check support -> build plans. Doing the steps yourself lets you see the candidates, limit the
 * workspace, or build every plan. Tensors get fixed uids (0..3) and are bound by uid, so code that
 * only keeps the uids can run the graph.
 */
public final class StepByStep {
    private static final int B = 16, M = 128, N = 128, K = 512;
    private static final long UID_A = 0, UID_B = 1, UID_D = 2, UID_C = 3;

    public static void main(String[] args) {
        Example.main(() -> {
            try (Graph graph = new Graph(new GraphOptions().name("step_by_step").ioDataType(DataType.HALF))) {
                Tensor a = graph.tensor("A", B, M, K).setUid(UID_A);
                Tensor b = graph.tensor("B", B, K, N).setUid(UID_B);
                Tensor d = graph.tensor("D", 1, M, N).setUid(UID_D);
                Tensor c = graph.bias(graph.matmul(a, b), d).setOutput(true).setUid(UID_C);

                try (Handle handle = Example.handle()) {
                    if (handle == null) return Example.buildDeviceless(graph, args); // the same steps, for an H100
                    graph.validate();
                    graph.buildOperationGraph(handle);
                    graph.createExecutionPlans(HeurMode.A, HeurMode.FALLBACK);
                    graph.checkSupport();
                    graph.buildPlans(BuildPolicy.ALL);
                    long workspace = graph.workspaceSize();
                    System.out.printf("%d candidates, %d viable, %d plans built; using %s with %d bytes of workspace%n",
                            graph.candidateCount(), graph.viableCount(), graph.planCount(), graph.engineTag(), workspace);

                    float[][] ah = new float[1][], bh = new float[1][], dh = new float[1][];
                    try (DeviceBuffer ab = Example.input(a, ah); DeviceBuffer bb = Example.input(b, bh);
                         DeviceBuffer db = Example.input(d, dh); DeviceBuffer cb = Example.output(c);
                         // Our own workspace this time, of the size the plan asked for.
                         DeviceBuffer wb = workspace > 0 ? DeviceBuffer.allocate(0, workspace) : null) {
                        long[] uids = {UID_A, UID_B, UID_D, UID_C};
                        long[] pointers = {ab.devicePointer(), bb.devicePointer(), db.devicePointer(), cb.devicePointer()};
                        graph.executeByUid(handle, uids, pointers, wb == null ? 0 : wb.devicePointer());
                        handle.synchronize();
                        double[] want = Example.matmulBias(ah[0], bh[0], dh[0], B, M, N, K);
                        return Example.compare("step-by-step C = A x B + D, bound by uid", c, Example.download(cb, c), want,
                                2e-2, 1e-2);
                    }
                }
            }
        });
    }
}
