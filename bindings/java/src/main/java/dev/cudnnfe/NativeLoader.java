package dev.cudnnfe;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Locale;

/**
 * Loads the JNI glue library, libcudnnfe_java.so, once, by this rule:
 *
 * <ol>
 *   <li>If the system property {@value #LIBRARY_PROPERTY} is set, it is the glue library's path
 *       and is loaded with {@link System#load}.
 *   <li>Otherwise, when the jar bundles the native libraries (the Maven artifact does, under
 *       {@code native/<os>-<arch>/}), they are loaded from a per-user cache directory
 *       ({@code $XDG_CACHE_HOME/cudnnfe/<version>/<os>-<arch>}, else {@code ~/.cache/...}),
 *       unpacked there once per version: libcudnnfe.so.1 first, then the glue. A copy elsewhere
 *       on {@code java.library.path} is used instead only when {@value #SYSTEM_PROPERTY} is true.
 *   <li>Otherwise {@code System.loadLibrary("cudnnfe_java")} looks for it on {@code
 *       java.library.path}.
 * </ol>
 *
 * The glue names libcudnnfe.so.1 as a needed library, so the system's loader then finds the C
 * library by its versioned name through the glue's run path (in a build tree the glue's own
 * directory; installed, the directory above it, where Debian's layout puts the library beside
 * jni/), on LD_LIBRARY_PATH, or in the system's library directories. Once loaded, the glue's
 * version and the C library's must be this jar's: a stale copy fails here, naming each version and
 * where it came from.
 */
final class NativeLoader {
    static final String LIBRARY_PROPERTY = "dev.cudnnfe.library";
    static final String SYSTEM_PROPERTY = "dev.cudnnfe.useSystemLibrary";
    private static boolean loaded;

    private NativeLoader() {}

    static synchronized void load() {
        if (loaded) return;
        String path = System.getProperty(LIBRARY_PROPERTY);
        String from;
        try {
            if (path != null && !path.isEmpty()) {
                System.load(path);
                from = path;
            } else if (!Boolean.getBoolean(SYSTEM_PROPERTY) && bundles()) {
                from = loadBundled();
            } else {
                System.loadLibrary("cudnnfe_java");
                from = "java.library.path";
            }
        } catch (UnsatisfiedLinkError e) {
            UnsatisfiedLinkError explained = new UnsatisfiedLinkError(e.getMessage()
                    + " (cudnnfe loads libcudnnfe_java.so from -D" + LIBRARY_PROPERTY
                    + "=<path>, else from the jar, else from java.library.path; it needs libcudnnfe.so.1 beside it or "
                    + "on LD_LIBRARY_PATH)");
            explained.initCause(e);
            throw explained;
        }
        checkVersions(NativeApiConstants.FE_VERSION, NativeApiJNI.fe_swig_glue_version(), NativeApiJNI.fe_version(),
                from);
        loaded = true;
    }

    /**
     * Refuses a glue library or a C library of another version than this jar's: an
     * UnsatisfiedLinkError naming the three versions and where the glue came from.
     */
    static void checkVersions(int layer, int glue, long library, String from) {
        if (glue == layer && library == layer) return;
        throw new UnsatisfiedLinkError("cudnnfe " + text(layer) + " (this jar) found libcudnnfe_java.so "
                + text(glue) + " (from " + from + ") and libcudnnfe.so.1 " + text(library)
                + ": the jar, the glue library and the C library must be one version (a stale copy on "
                + "java.library.path or LD_LIBRARY_PATH?)");
    }

    private static String text(long version) {
        return (version / 10000) + "." + (version / 100 % 100) + "." + (version % 100);
    }

    /** The platform folder of the bundled libraries, e.g. native/linux-x86_64. */
    static String bundledFolder() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) os = "linux";
        if (arch.equals("amd64") || arch.equals("x86-64")) arch = "x86_64";
        if (arch.equals("arm64")) arch = "aarch64";
        return "native/" + os + "-" + arch;
    }

    private static final String[] NAMES = {"libcudnnfe.so.1", "libcudnnfe_java.so"};

    private static boolean bundles() {
        return NativeLoader.class.getClassLoader().getResource(bundledFolder() + "/" + NAMES[1]) != null;
    }

    /** Where this version's bundled libraries are unpacked for this user. */
    static Path cacheDirectory() {
        String base = System.getenv("XDG_CACHE_HOME");
        Path root = base != null && base.startsWith("/") ? Paths.get(base)
                : Paths.get(System.getProperty("user.home"), ".cache");
        return root.resolve("cudnnfe").resolve(text(NativeApiConstants.FE_VERSION)).resolve(
                bundledFolder().substring("native/".length()));
    }

    /**
     * Loads the jar's libraries from the cache directory, unpacking each that is missing or differs
     * (a file written under a temporary name, then renamed: a concurrent JVM sees a whole file or
     * none); returns the glue's path.
     */
    private static String loadBundled() {
        String folder = bundledFolder();
        Path dir = cacheDirectory();
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            for (String name : NAMES) {
                byte[] bytes;
                try (InputStream in = NativeLoader.class.getClassLoader().getResourceAsStream(folder + "/" + name)) {
                    if (in == null) throw new UnsatisfiedLinkError("the jar lacks " + folder + "/" + name);
                    bytes = in.readAllBytes();
                }
                Path target = dir.resolve(name);
                if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), bytes)) continue;
                Path partial = Files.createTempFile(dir, name, ".partial");
                Files.write(partial, bytes);
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            for (String name : NAMES) System.load(dir.resolve(name).toString());
            return dir.resolve(NAMES[1]).toString();
        } catch (IOException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot unpack the bundled native libraries of "
                    + folder + " into " + dir + ": " + e);
            error.initCause(e);
            throw error;
        }
    }
}
