package main

func genLanesInit(f *family)      {}
func genLanesKeyStream(f *family) {}
