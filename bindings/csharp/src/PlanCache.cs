namespace CudnnFe
{
    /// <summary>
    /// The process's plan cache: identical graphs reuse a plan built before (see
    /// <see cref="BuildOptions.UsePlanCache"/>); a handle with a cache directory also stores plans
    /// on disk for other processes (<see cref="Handle.SetCacheDirectory"/>).
    /// </summary>
    public static class PlanCache
    {
        /// <summary>The cache's counters in this process.</summary>
        public sealed class Counters
        {
            /// <summary>Builds served from the in-process cache.</summary>
            public long MemoryHits { get; internal set; }
            /// <summary>Builds served from a cache directory.</summary>
            public long DiskHits { get; internal set; }
            /// <summary>Full builds.</summary>
            public long Misses { get; internal set; }
            /// <summary>Entries rejected as corrupt or stale.</summary>
            public long Rejected { get; internal set; }
            /// <summary>In-process entries dropped, least recently used first, to keep the cache bounded.</summary>
            public long Evictions { get; internal set; }

            public override string ToString() =>
                "PlanCache.Counters(MemoryHits=" + MemoryHits + ", DiskHits=" + DiskHits + ", Misses=" + Misses +
                ", Rejected=" + Rejected + ", Evictions=" + Evictions + ")";
        }

        public static Counters Stats()
        {
            long[] memory = new long[1], disk = new long[1], misses = new long[1], rejected = new long[1];
            long[] evictions = new long[1];
            Check.Ok(NativeApi.fe_plan_cache_stats(memory, disk, misses, rejected));
            Check.Ok(NativeApi.fe_plan_cache_evictions(evictions));
            return new Counters
            {
                MemoryHits = memory[0], DiskHits = disk[0], Misses = misses[0], Rejected = rejected[0],
                Evictions = evictions[0],
            };
        }

        /// <summary>Drop every in-process entry (graphs already built keep their plans).</summary>
        public static void Clear() => Check.Ok(NativeApi.fe_plan_cache_clear());
    }
}
