namespace CudnnFe
{
    /// <summary>A candidate engine config: its tag and its engine's notes.</summary>
    public sealed class CandidateNotes
    {
        public readonly string Tag;
        public readonly NumericalNote Numerical;
        public readonly BehaviorNote Behavior;

        internal CandidateNotes(string tag, NumericalNote numerical, BehaviorNote behavior)
        {
            Tag = tag;
            Numerical = numerical;
            Behavior = behavior;
        }

        public override string ToString() => Tag + " " + Numerical + " " + Behavior;
    }

    /// <summary>
    /// What an engine config is: a candidate of the plan search (<see cref="Graph.GetCandidateInfo"/>)
    /// or a built plan (<see cref="Graph.GetPlanInfo"/>). Immutable.
    /// </summary>
    public sealed class ConfigInfo : System.IEquatable<ConfigInfo>
    {
        /// <summary>The engine and its knobs, e.g. "eng6_k24=26".</summary>
        public readonly string Tag;
        /// <summary>cuDNN's global engine index.</summary>
        public readonly long EngineIndex;
        /// <summary>The workspace cuDNN asks for (without cudnnfe's own part).</summary>
        public readonly long WorkspaceBytes;
        /// <summary>Shared memory per block, as cuDNN reports it; -1 where it does not (cuDNN 9.19 reports it
        /// for runtime-compiled engines only).</summary>
        public readonly long SharedMemoryBytes;
        public readonly NumericalNote NumericalNotes;
        public readonly BehaviorNote BehaviorNotes;
        /// <summary>False when deselected or refused (a plan is always viable).</summary>
        public readonly bool Viable;

        internal ConfigInfo(string tag, long engineIndex, long workspaceBytes, long sharedMemoryBytes,
                            NumericalNote numericalNotes, BehaviorNote behaviorNotes, bool viable)
        {
            Tag = tag;
            EngineIndex = engineIndex;
            WorkspaceBytes = workspaceBytes;
            SharedMemoryBytes = sharedMemoryBytes;
            NumericalNotes = numericalNotes;
            BehaviorNotes = behaviorNotes;
            Viable = viable;
        }

        /// <summary>The values the library wrote into a fe_config_info.</summary>
        internal static ConfigInfo Of(fe_config_info info) =>
            new ConfigInfo(info.tag, info.engine_index, info.workspace_bytes, info.shared_memory_bytes,
                           (NumericalNote)info.numerical_notes, (BehaviorNote)info.behavior_notes, info.viable != 0);

        public bool Equals(ConfigInfo other) =>
            other != null && Tag == other.Tag && EngineIndex == other.EngineIndex && WorkspaceBytes == other.WorkspaceBytes &&
            SharedMemoryBytes == other.SharedMemoryBytes && NumericalNotes == other.NumericalNotes &&
            BehaviorNotes == other.BehaviorNotes && Viable == other.Viable;

        public override bool Equals(object other) => Equals(other as ConfigInfo);

        public override int GetHashCode() =>
            ((Tag ?? "").GetHashCode() * 31 + EngineIndex.GetHashCode()) * 31 + WorkspaceBytes.GetHashCode();

        public override string ToString() =>
            Tag + " engine " + EngineIndex + " workspace " + WorkspaceBytes + " shared memory " + SharedMemoryBytes + " " +
            NumericalNotes + " " + BehaviorNotes + (Viable ? "" : " not viable");
    }
}
