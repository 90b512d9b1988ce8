package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without cuDNN (CUDNNFE_CUDNN_LIBRARY naming a missing file) the calls that need it throw with
 * LIBRARY_UNAVAILABLE. cuDNN is loaded once per process, so UnavailableProbe runs in a child JVM.
 */
class UnavailableTest {
    @Test
    void withoutCudnnCallsFailWithLibraryUnavailable() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (String property : new String[] {"java.library.path", NativeLoader.LIBRARY_PROPERTY}) {
            String value = System.getProperty(property);
            if (value != null) command.add("-D" + property + "=" + value);
        }
        command.add("-cp");
        command.add(jarOf(NativeApi.class) + File.pathSeparator + jarOf(UnavailableProbe.class));
        command.add(UnavailableProbe.class.getName());
        ProcessBuilder child = new ProcessBuilder(command).redirectErrorStream(true);
        child.environment().put("CUDNNFE_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9");
        Process process = child.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        assertTrue(output.startsWith("LIBRARY_UNAVAILABLE CudnnFe.cudnnVersion: cuDNN could not be loaded"), output);
        assertTrue(output.contains("/nonexistent/libcudnn.so.9"), output);
        assertTrue(output.contains("validated"), output);
    }

    private static String jarOf(Class<?> type) throws URISyntaxException {
        return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
