package field

import "testing"

func BenchmarkAdd(b *testing.B) {
	x := new(Element).One()
	y := *x
	for b.Loop() {
		x.Add(x, &y)
	}
}
