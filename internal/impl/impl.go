// Package impl is a small registry of the alternative implementations
// (assembly kernels) that a primitive package can choose between at run time.
//
// A package reads its CPU feature flags once into package variables, registers
// each variable here with a name, and dispatches with a plain if-ladder on
// those variables. Tests then call [ForEach] to run the same vectors through
// the generic code and through every kernel the CPU supports, so every code
// path is exercised on the machine that runs the tests.
package impl

import (
	"slices"
	"strings"
	"sync"
)

type implementation struct {
	pkg, name string
	available bool  // whether the CPU supports it, as found at registration
	enabled   *bool // the flag the package dispatches on
}

var (
	mu    sync.Mutex
	impls []*implementation
)

// Register records that package pkg has an implementation called name,
// switched on by *enabled. The value of *enabled at registration is taken as
// whether the CPU supports it. Register panics on a duplicate name, since
// that is a programming error caught by any test run.
func Register(pkg, name string, enabled *bool) {
	if strings.ContainsAny(name, " /") || name == "" || name == "generic" {
		panic("impl: bad implementation name " + name)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, i := range impls {
		if i.pkg == pkg && i.name == name {
			panic("impl: " + pkg + "/" + name + " registered twice")
		}
	}
	impls = append(impls, &implementation{pkg: pkg, name: name, available: *enabled, enabled: enabled})
}

// List returns the names of the registered implementations of pkg that the
// CPU supports, in registration order. The generic code is not listed.
func List(pkg string) []string {
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for _, i := range impls {
		if i.pkg == pkg && i.available {
			names = append(names, i.name)
		}
	}
	return names
}

// Select switches pkg to the named implementation alone: every other
// registered flag of pkg is cleared. The name "generic" clears them all.
// It reports false, changing nothing, if the CPU lacks that implementation.
// Select is meant for tests and is not safe while pkg is in use.
func Select(pkg, name string) bool {
	mu.Lock()
	defer mu.Unlock()
	if name != "generic" && !slices.ContainsFunc(impls, func(i *implementation) bool {
		return i.pkg == pkg && i.name == name && i.available
	}) {
		return false
	}
	for _, i := range impls {
		if i.pkg == pkg {
			*i.enabled = i.name == name
		}
	}
	return true
}

// Reset restores every flag of pkg to what the CPU supports.
func Reset(pkg string) {
	mu.Lock()
	defer mu.Unlock()
	for _, i := range impls {
		if i.pkg == pkg {
			*i.enabled = i.available
		}
	}
}

// ForEach calls f once with the generic code selected and once for each
// implementation of pkg the CPU supports, with that one selected, and
// restores the CPU's choice afterwards. Tests use it as
//
//	impl.ForEach("sm4", func(name string) { t.Run(name, ...) })
func ForEach(pkg string, f func(name string)) {
	defer Reset(pkg)
	for _, name := range append([]string{"generic"}, List(pkg)...) {
		Select(pkg, name)
		f(name)
	}
}
