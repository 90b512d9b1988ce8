package dev.cudnnfe;

/**
 * An object of the C library that this side owns. close() frees it at once (and its GPU memory);
 * closing again does nothing, and any other use after close throws an IllegalStateException naming
 * the method and the object. There is no finalizer: release is deterministic, and an object never
 * closed lives until the process ends. Not safe to close while another thread uses the object.
 */
abstract class NativeObject implements AutoCloseable {
    private long pointer;
    private final String kind;

    NativeObject(long pointer, String kind) {
        this.pointer = pointer;
        this.kind = kind;
    }

    /** The C pointer; throws if closed. */
    final long pointer() {
        if (pointer == 0) throw Check.closed(kind);
        return pointer;
    }

    final boolean isClosed() {
        return pointer == 0;
    }

    abstract void destroy(long pointer);

    @Override
    public void close() {
        long p = pointer;
        pointer = 0;
        if (p != 0) destroy(p);
    }
}
