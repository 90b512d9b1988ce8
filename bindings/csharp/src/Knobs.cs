namespace CudnnFe
{
    public sealed partial class KnobRange
    {
        /// <summary>Whether value is one this knob takes.</summary>
        public bool Contains(long value) => value >= Min && value <= Max && (Stride <= 0 || (value - Min) % Stride == 0);
    }
}
