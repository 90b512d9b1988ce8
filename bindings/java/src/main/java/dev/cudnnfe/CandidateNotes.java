package dev.cudnnfe;

import java.util.Set;

/** A candidate engine config: its tag and its engine's notes. */
public final class CandidateNotes {
    public final String tag;
    public final Set<NumericalNote> numerical;
    public final Set<BehaviorNote> behavior;

    CandidateNotes(String tag, Set<NumericalNote> numerical, Set<BehaviorNote> behavior) {
        this.tag = tag;
        this.numerical = numerical;
        this.behavior = behavior;
    }

    @Override
    public String toString() {
        return tag + " " + numerical + " " + behavior;
    }
}
