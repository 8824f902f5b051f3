// Fuzz target `qif`: the qif statement reader, through the import path (`checkStatement` in
// Support.swift holds the invariants).
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz_qif(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    checkStatement(.qif, bytes(data, size))
    return 0
}
