// Fuzz target `monzo-api`: the Monzo API transactions reader, through the import path (`checkStatement` in
// Support.swift holds the invariants).
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz_monzo_api(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkStatement(.monzoAPI, bytes(data, size))
    return 0
}
