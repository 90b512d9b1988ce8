// Package capi is the low-level layer that SWIG generates from bindings/swig/cudnnfe.i at build
// time (capi.go and capi_wrap.c are build outputs, never committed): one Go function per C
// function, handles as uintptr, statuses as integers. Only package cudnnfe uses it.
package capi
