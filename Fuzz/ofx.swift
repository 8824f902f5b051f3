// Fuzz target `ofx`: the ofx statement reader, through the import path (`checkStatement` in
// Support.swift holds the invariants).
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz_ofx(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkStatement(.ofx, bytes(data, size))
    return 0
}
