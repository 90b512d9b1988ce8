package dev.cudnnfe;

/**
 * The process's plan cache: identical graphs reuse a plan built before (see
 * {@link BuildOptions#usePlanCache}); a handle with a cache directory also stores plans on disk
 * for other processes ({@link Handle#setCacheDirectory}).
 */
public final class PlanCache {
    private PlanCache() {}

    /** The cache's counters in this process. */
    public static final class Stats {
        /** Builds served from the in-process cache. */
        public final long memoryHits;
        /** Builds served from a cache directory. */
        public final long diskHits;
        /** Full builds. */
        public final long misses;
        /** Entries rejected as corrupt or stale. */
        public final long rejected;
        /** In-process entries dropped, least recently used first, to keep the cache bounded. */
        public final long evictions;

        Stats(long memoryHits, long diskHits, long misses, long rejected, long evictions) {
            this.memoryHits = memoryHits;
            this.diskHits = diskHits;
            this.misses = misses;
            this.rejected = rejected;
            this.evictions = evictions;
        }

        @Override
        public String toString() {
            return "PlanCache.Stats(memoryHits=" + memoryHits + ", diskHits=" + diskHits + ", misses=" + misses
                    + ", rejected=" + rejected + ", evictions=" + evictions + ")";
        }
    }

    public static Stats stats() {
        long[] memory = new long[1];
        long[] disk = new long[1];
        long[] misses = new long[1];
        long[] rejected = new long[1];
        long[] evictions = new long[1];
        Check.ok(NativeApi.fe_plan_cache_stats(memory, disk, misses, rejected));
        Check.ok(NativeApi.fe_plan_cache_evictions(evictions));
        return new Stats(memory[0], disk[0], misses[0], rejected[0], evictions[0]);
    }

    /** Drop every in-process entry (graphs already built keep their plans). */
    public static void clear() {
        Check.ok(NativeApi.fe_plan_cache_clear());
    }
}
