// Fuzz target `camt053`: the camt053 statement reader, through the import path (`checkStatement` in
// Support.swift holds the invariants).
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz_camt053(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkStatement(.camt053, bytes(data, size))
    return 0
}
