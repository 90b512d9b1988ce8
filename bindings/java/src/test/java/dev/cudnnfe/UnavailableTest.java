package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Without cuDNN (CUDNNFE_CUDNN_LIBRARY naming a missing file) the calls that need it throw with
 * LIBRARY_UNAVAILABLE, and a stale libcudnnfe fails the load. cuDNN and the natives are loaded
 * once per process, so UnavailableProbe runs in a child JVM.
 */
class UnavailableTest {
    /** UnavailableProbe in a child JVM with one more variable. */
    private static Process probe(String variable, String value) throws Exception {
        ProcessBuilder child = TestSupport.childJvm(UnavailableProbe.class);
        child.environment().put(variable, value);
        return child.start();
    }

    @Test
    void withoutCudnnCallsFailWithLibraryUnavailable() throws Exception {
        String output = TestSupport.output(probe("CUDNNFE_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9"));
        assertTrue(output.startsWith("LIBRARY_UNAVAILABLE CudnnFe.cudnnVersion: cuDNN could not be loaded"), output);
        assertTrue(output.contains("/nonexistent/libcudnn.so.9"), output);
        assertTrue(output.contains("validated"), output);
    }

    /**
     * A libcudnnfe.so.1 of another version planted ahead of the real one (its fe_version preloaded)
     * is refused at load, naming the three versions.
     */
    @Test
    void aStaleLibraryIsRefusedAtLoadNamingTheVersions() throws Exception {
        String stale = System.getenv("CUDNNFE_STALE_VERSION_LIB");
        assumeTrue(stale != null && !stale.isEmpty(),
                "CUDNNFE_STALE_VERSION_LIB (a library whose fe_version says 1.3.0) is not set; the meson test sets it");
        Process process = probe("LD_PRELOAD", stale);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertNotEquals(0, process.waitFor(), output);
        String version = CudnnFe.versionString();
        assertTrue(output.contains("UnsatisfiedLinkError: cudnnfe " + version + " (this jar) found libcudnnfe_java.so "
                + version), output);
        assertTrue(output.contains("and libcudnnfe.so.1 1.3.0"), output);
    }
}
