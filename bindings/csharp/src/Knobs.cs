namespace CudnnFe
{
    // Engines and knobs: see Graph.EngineCount, Graph.EngineKnobs and Graph.AddCandidate.

    /// <summary>
    /// One knob of an engine (<see cref="Graph.EngineKnobs"/>): its type (cuDNN's
    /// cudnnBackendKnobType_t value) and the values it takes, Min to Max in steps of Stride.
    /// </summary>
    public struct KnobRange
    {
        public int Type { get; }
        public long Min { get; }
        public long Max { get; }
        public long Stride { get; }

        internal KnobRange(int type, long min, long max, long stride)
        {
            Type = type;
            Min = min;
            Max = max;
            Stride = stride;
        }

        /// <summary>Whether value is one this knob takes.</summary>
        public bool Contains(long value) => value >= Min && value <= Max && (Stride <= 0 || (value - Min) % Stride == 0);

        public override string ToString() => "k" + Type + "=" + Min + ".." + Max + (Stride == 1 ? "" : " step " + Stride);
    }

    /// <summary>
    /// One knob setting of a candidate (<see cref="Graph.AddCandidate(long, KnobChoice[])"/>): a knob
    /// type (cuDNN's cudnnBackendKnobType_t value, as in <see cref="KnobRange.Type"/>) and its value.
    /// </summary>
    public struct KnobChoice
    {
        public int Type { get; }
        public long Value { get; }

        public KnobChoice(int type, long value)
        {
            Type = type;
            Value = value;
        }

        /// <summary>As in an engine tag: "k2=3".</summary>
        public override string ToString() => "k" + Type + "=" + Value;
    }
}
