// A program outside the repository that uses the module as `go get` delivers it
// (scripts/bindings_packages.sh builds it against build/go-proxy and runs it without
// LD_LIBRARY_PATH).
package main

import (
	"fmt"

	"cudnnfe.dev/cudnnfe"
)

func main() {
	fmt.Println("cudnnfe " + cudnnfe.VersionString())
}
