package impl

import "testing"

func TestSelectAndForEach(t *testing.T) {
	a, b, c := true, true, false
	Register("testpkg", "a", &a)
	Register("testpkg", "b", &b)
	Register("testpkg", "c", &c)
	if got := List("testpkg"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("List = %v, want [a b]", got)
	}
	if Select("testpkg", "c") {
		t.Fatal("Select of an unavailable implementation succeeded")
	}
	if !Select("testpkg", "b") || a || !b {
		t.Fatalf("after Select(b): a=%v b=%v", a, b)
	}
	var seen []string
	ForEach("testpkg", func(name string) {
		seen = append(seen, name)
		switch name {
		case "generic":
			if a || b {
				t.Errorf("generic run with a=%v b=%v", a, b)
			}
		case "a":
			if !a || b {
				t.Errorf("run a with a=%v b=%v", a, b)
			}
		}
	})
	if len(seen) != 3 || !a || !b || c {
		t.Fatalf("ForEach saw %v, flags after: a=%v b=%v c=%v", seen, a, b, c)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	x := true
	Register("testpkg2", "x", &x)
	defer func() {
		if recover() == nil {
			t.Fatal("second Register did not panic")
		}
	}()
	Register("testpkg2", "x", &x)
}
