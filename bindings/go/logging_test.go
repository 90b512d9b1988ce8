package cudnnfe

import (
	"bytes"
	"log"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer a logger may write to from any thread.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func buildOperationGraph(t *testing.T, json string) {
	t.Helper()
	g := seedConvGraph(t)
	must(t, g.SetDeviceProperties(json))
	must(t, g.BuildOperationGraph(nil))
}

func TestALibraryLineArrivesInTheLogger(t *testing.T) {
	if !cudnnAvailable() {
		t.Skip("cuDNN is not loadable here")
	}
	json := deviceJSON()
	if json == "" {
		t.Skip("no device description: set CUDNNFE_DEVICE_JSON")
	}
	var out lockedBuffer
	logger := log.New(&out, "", 0)
	must(t, SetLogger(logger))
	t.Cleanup(func() {
		SetLogger(nil)
		SetLogLevel(LogOff)
	})
	if Logger() != logger {
		t.Fatal("Logger is not the one installed")
	}
	must(t, SetLogLevel(LogInfo))
	buildOperationGraph(t, json)
	if !strings.Contains(out.String(), "cudnnfe info: graph 'first_graph': operation graph of") {
		t.Errorf("the logger lacks the operation graph line: %q", out.String())
	}

	// Restored: no more lines to the logger.
	must(t, SetLogger(nil))
	if Logger() != nil {
		t.Error("Logger is not nil after SetLogger(nil)")
	}
	must(t, SetLogLevel(LogOff))
	before := out.String()
	buildOperationGraph(t, json)
	if out.String() != before {
		t.Errorf("lines after SetLogger(nil): %q", strings.TrimPrefix(out.String(), before))
	}
}
