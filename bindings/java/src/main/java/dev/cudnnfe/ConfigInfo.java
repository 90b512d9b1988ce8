package dev.cudnnfe;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;

/**
 * What an engine config is: a candidate of the plan search ({@link Graph#candidateInfo}) or a built
 * plan ({@link Graph#planInfo}). Immutable.
 */
public final class ConfigInfo {
    /** The engine and its knobs, e.g. "eng6_k24=26". */
    public final String tag;
    /** cuDNN's global engine index. */
    public final long engineIndex;
    /** The workspace cuDNN asks for (without cudnnfe's own part). */
    public final long workspaceBytes;
    /** Shared memory per block, as cuDNN reports it; -1 where it does not (cuDNN 9.19 reports it for runtime-compiled engines only). */
    public final long sharedMemoryBytes;
    public final Set<NumericalNote> numericalNotes;
    public final Set<BehaviorNote> behaviorNotes;
    /** False when deselected or refused (a plan is always viable). */
    public final boolean viable;

    ConfigInfo(String tag, long engineIndex, long workspaceBytes, long sharedMemoryBytes,
               Set<NumericalNote> numericalNotes, Set<BehaviorNote> behaviorNotes, boolean viable) {
        this.tag = tag;
        this.engineIndex = engineIndex;
        this.workspaceBytes = workspaceBytes;
        this.sharedMemoryBytes = sharedMemoryBytes;
        this.numericalNotes = Collections.unmodifiableSet(numericalNotes);
        this.behaviorNotes = Collections.unmodifiableSet(behaviorNotes);
        this.viable = viable;
    }

    /** The values the library wrote into a fe_config_info. */
    static ConfigInfo of(fe_config_info info) {
        return new ConfigInfo(info.getTag(), info.getEngine_index(), info.getWorkspace_bytes(),
                info.getShared_memory_bytes(), NumericalNote.of(info.getNumerical_notes()),
                BehaviorNote.of(info.getBehavior_notes()), info.getViable() != 0);
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ConfigInfo)) return false;
        ConfigInfo o = (ConfigInfo) other;
        return Objects.equals(tag, o.tag) && engineIndex == o.engineIndex && workspaceBytes == o.workspaceBytes
                && sharedMemoryBytes == o.sharedMemoryBytes && numericalNotes.equals(o.numericalNotes)
                && behaviorNotes.equals(o.behaviorNotes) && viable == o.viable;
    }

    @Override
    public int hashCode() {
        return Objects.hash(tag, engineIndex, workspaceBytes, sharedMemoryBytes, numericalNotes, behaviorNotes, viable);
    }

    @Override
    public String toString() {
        return tag + " engine " + engineIndex + " workspace " + workspaceBytes + " shared memory " + sharedMemoryBytes
                + " " + numericalNotes + " " + behaviorNotes + (viable ? "" : " not viable");
    }
}
