package main

func multiBuffer() {}
