import CFuzzer

/// One fuzz input: libFuzzer's `LLVMFuzzerTestOneInput` signature.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with the program's arguments: what each target's entry
/// point does.
public func runFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: FuzzCallback
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}
