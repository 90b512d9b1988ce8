package cudnnfe

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

func TestAStaleLibraryIsRefusedNamingBothVersions(t *testing.T) {
	if err := versionMismatch(10400, 10400); err != nil {
		t.Fatal(err)
	}
	err := versionMismatch(10400, 10300)
	if !errors.Is(err, StatusLibraryUnavailable) ||
		!strings.Contains(err.Error(), "cudnnfe 1.4.0 (this package) loaded libcudnnfe.so.1 1.3.0") {
		t.Errorf("%v", err)
	}
	if os.Getenv("CUDNNFE_STALE_PROBE") == "" && staleLibrary != nil {
		t.Errorf("the test's own library is refused: %v", staleLibrary)
	}
}

// The library of another version planted ahead of the real one (its fe_version preloaded): every
// call fails with StatusLibraryUnavailable naming both versions, and nothing crashes.
func TestAPlantedStaleLibraryFailsEveryCall(t *testing.T) {
	if os.Getenv("CUDNNFE_STALE_PROBE") == "1" {
		_, err := NewGraph(nil)
		fmt.Printf("probe: %v\n", err)
		return
	}
	stale := os.Getenv("CUDNNFE_STALE_VERSION_LIB")
	if stale == "" {
		t.Skip("CUDNNFE_STALE_VERSION_LIB (a library whose fe_version says 1.3.0) is not set; the meson test sets it")
	}
	probe := childTest("^TestAPlantedStaleLibraryFailsEveryCall$")
	probe.Env = append(os.Environ(), "CUDNNFE_STALE_PROBE=1", "LD_PRELOAD="+stale)
	out, err := probe.CombinedOutput()
	want := fmt.Sprintf("probe: StatusLibraryUnavailable: cudnnfe %s (this package) loaded libcudnnfe.so.1 1.3.0",
		versionText(uint32(capi.FE_VERSION)))
	if err != nil || !strings.Contains(string(out), want) {
		t.Errorf("%v; want %q in:\n%s", err, want, out)
	}
}
