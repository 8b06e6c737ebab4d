package main

// Placeholders until smx509 lands; replaced by x509_ours.go.

func oursX509Parse() setupFunc  { return nil }
func oursX509Verify() setupFunc { return nil }
