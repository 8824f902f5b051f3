// Fuzz target `mt940`: the MT940 (SWIFT) statement reader, through the import path (`checkStatement` in
// Support.swift holds the invariants).
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz_mt940(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkStatement(.mt940, bytes(data, size))
    return 0
}
