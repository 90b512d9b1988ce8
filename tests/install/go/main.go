// An outside Go program built from the installed module sources (golang-cudnnfe-dev), whose cgo
// layer finds the installed C library through pkg-config: the version is the package's (os.Args[1]).
package main

import (
	"fmt"
	"os"

	"cudnnfe.dev/cudnnfe"
)

func main() {
	version := cudnnfe.VersionString()
	strides, err := cudnnfe.StridesChannelsLast(8, 64, 56, 56)
	if err != nil || version != os.Args[1] || strides[1] != 1 {
		fmt.Fprintf(os.Stderr, "cudnnfe %s, package %s, strides %v, error %v\n", version, os.Args[1], strides, err)
		os.Exit(1)
	}
	fmt.Printf("go: cudnnfe.dev/cudnnfe %s from the package\n", version)
}
