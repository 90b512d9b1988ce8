package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.function.Executable;

/** What the tests share: the machine's capabilities, the error assertion and child JVMs. */
final class TestSupport {
    private TestSupport() {}

    /**
     * A child JVM that runs main's class with this JVM's library paths and classes (the library's jar
     * and the tests'), its output and errors together: for what is loaded once per process.
     */
    static ProcessBuilder childJvm(Class<?> main) throws URISyntaxException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (String property : new String[] {"java.library.path", NativeLoader.LIBRARY_PROPERTY}) {
            String setting = System.getProperty(property);
            if (setting != null) command.add("-D" + property + "=" + setting);
        }
        command.add("-cp");
        command.add(jarOf(NativeApi.class) + File.pathSeparator + jarOf(main));
        command.add(main.getName());
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    /** What a child JVM printed, once it has exited 0. */
    static String output(Process process) throws IOException, InterruptedException {
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        return output;
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static boolean cudnnAvailable() {
        try {
            CudnnFe.cudnnVersion();
            return true;
        } catch (CudnnFeException e) {
            return false;
        }
    }

    static boolean gpuAvailable() {
        try {
            return CudnnFe.deviceCount() > 0;
        } catch (CudnnFeException e) {
            return false;
        }
    }

    /** The captured H100 description: $CUDNNFE_DEVICE_JSON, else the repository's copy; null if absent. */
    static String deviceJson() {
        String env = System.getenv("CUDNNFE_DEVICE_JSON");
        Path path = Paths.get(env != null ? env : "../shared/devices/h100-sxm-80gb.json");
        try {
            return new String(Files.readAllBytes(path), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The captured description for a deviceless test; the test is skipped, saying why, where cuDNN
     * cannot be loaded or no description is found.
     */
    static String cudnnAndDeviceJsonOrSkip() {
        assumeTrue(cudnnAvailable(), "cuDNN is not loadable here");
        String json = deviceJson();
        assumeTrue(json != null, "no device description: set CUDNNFE_DEVICE_JSON");
        return json;
    }

    /** The call fails with this status and a one-line message containing `text`. */
    static CudnnFeException assertFails(Status status, String text, Executable call) {
        CudnnFeException e = assertThrows(CudnnFeException.class, call);
        assertEquals(status, e.status(), e.getMessage());
        assertEquals(status.code, e.code());
        assertTrue(e.getMessage().contains(text), "message '" + e.getMessage() + "' lacks '" + text + "'");
        assertFalse(e.getMessage().contains("\n"), "the message is one line");
        return e;
    }

    /** A use after close: IllegalStateException "Class.method: the what is closed", on one line. */
    static IllegalStateException assertClosed(String method, String what, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertEquals(method + ": the " + what + " is closed", e.getMessage());
        return e;
    }

    /** A null argument: NullPointerException whose one-line message contains text. */
    static NullPointerException assertNullArgument(String text, Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertTrue(e.getMessage() != null && e.getMessage().contains(text), "message '" + e.getMessage() + "' lacks '" + text + "'");
        assertFalse(e.getMessage().contains("\n"), "the message is one line");
        return e;
    }

    /** The seed's first graph: an fp16 3x3 convolution in channels-last memory. */
    static Graph seedConvGraph() {
        return channelsLastConv("first_graph", DataType.HALF, new long[] {8, 64, 56, 56}, new long[] {32, 64, 3, 3},
                new ConvOptions().padding(1, 1));
    }

    /** A bf16 1x1 convolution in channels-last memory (a ResNet bottleneck's). */
    static Graph pointwiseConvGraph() {
        return channelsLastConv("conv1x1", DataType.BFLOAT16, new long[] {8, 1024, 14, 14},
                new long[] {256, 1024, 1, 1}, new ConvOptions());
    }

    /** A graph of one convolution of an image by filters, both channels-last. */
    private static Graph channelsLastConv(String name, DataType io, long[] xDims, long[] wDims, ConvOptions options) {
        Graph graph = new Graph(new GraphOptions().name(name).ioDataType(io).computeDataType(DataType.FLOAT));
        Tensor x = graph.tensor("image", xDims, CudnnFe.stridesChannelsLast(xDims), DataType.NOT_SET);
        Tensor w = graph.tensor("weight", wDims, CudnnFe.stridesChannelsLast(wDims), DataType.NOT_SET);
        graph.convFprop(x, w, options).setOutput(true);
        return graph;
    }
}
