package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The natives of another version than the jar's are refused at load, naming every version. */
class NativeLoaderTest {
    @Test
    void aStaleGlueOrLibraryIsRefusedNamingEachVersion() {
        NativeLoader.checkVersions(10400, 10400, 10400, "here");
        UnsatisfiedLinkError glue = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLoader.checkVersions(10400, 10300, 10400, "/usr/lib/jni/libcudnnfe_java.so"));
        assertTrue(glue.getMessage().contains("cudnnfe 1.4.0 (this jar) found libcudnnfe_java.so 1.3.0 (from "
                + "/usr/lib/jni/libcudnnfe_java.so) and libcudnnfe.so.1 1.4.0"), glue.getMessage());
        UnsatisfiedLinkError library = assertThrows(UnsatisfiedLinkError.class,
                () -> NativeLoader.checkVersions(10400, 10400, 10501, "java.library.path"));
        assertTrue(library.getMessage().contains("libcudnnfe.so.1 1.5.1"), library.getMessage());
    }

    @Test
    void theLoadedNativesAreThisJarsVersion() {
        assertDoesNotThrow(() -> NativeLoader.checkVersions(NativeApiConstants.FE_VERSION,
                NativeApi.fe_swig_glue_version(), CudnnFe.version(), "the test's natives"));
    }

    @Test
    void bundledNativesUnpackOncePerVersionInTheUsersCache() {
        String dir = NativeLoader.cacheDirectory().toString();
        assertTrue(dir.endsWith("/cudnnfe/" + CudnnFe.versionString() + "/" + NativeLoader.bundledFolder().substring(7)),
                dir);
    }
}
