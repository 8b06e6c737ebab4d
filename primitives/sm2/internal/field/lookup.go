package field

// Constant-time table scans. They read every entry and combine them with
// masks in registers, which is about twice as fast as a chain of Select
// calls and keeps the access pattern independent of the index.

// mask returns all ones if a == b and zero otherwise.
func mask(a, b uint64) uint64 {
	x := a ^ b
	return ((x | -x) >> 63) - 1
}

// LookupPair sets x, y to entry idx (counting from 1) of a table of pairs
// stored flat as x1, y1, x2, y2, …, or to zero if idx is 0 or out of range.
func LookupPair(x, y *Element, table []Element, idx uint64) {
	var x0, x1, x2, x3, y0, y1, y2, y3 uint64
	for j := 0; j+1 < len(table); j += 2 {
		m := mask(uint64(j/2+1), idx)
		a, b := &table[j].l, &table[j+1].l
		x0 |= a[0] & m
		x1 |= a[1] & m
		x2 |= a[2] & m
		x3 |= a[3] & m
		y0 |= b[0] & m
		y1 |= b[1] & m
		y2 |= b[2] & m
		y3 |= b[3] & m
	}
	x.l = [4]uint64{x0, x1, x2, x3}
	y.l = [4]uint64{y0, y1, y2, y3}
}

// LookupTriple is LookupPair for a flat table of triples.
func LookupTriple(x, y, z *Element, table []Element, idx uint64) {
	var x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3 uint64
	for j := 0; j+2 < len(table); j += 3 {
		m := mask(uint64(j/3+1), idx)
		a, b, c := &table[j].l, &table[j+1].l, &table[j+2].l
		x0 |= a[0] & m
		x1 |= a[1] & m
		x2 |= a[2] & m
		x3 |= a[3] & m
		y0 |= b[0] & m
		y1 |= b[1] & m
		y2 |= b[2] & m
		y3 |= b[3] & m
		z0 |= c[0] & m
		z1 |= c[1] & m
		z2 |= c[2] & m
		z3 |= c[3] & m
	}
	x.l = [4]uint64{x0, x1, x2, x3}
	y.l = [4]uint64{y0, y1, y2, y3}
	z.l = [4]uint64{z0, z1, z2, z3}
}
