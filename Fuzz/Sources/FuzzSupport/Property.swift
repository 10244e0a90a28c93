/// Fails the run when a property does not hold: libFuzzer sees the crash and
/// keeps the input that caused it.
public func require(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #file,
    line: UInt = #line
) {
    guard !condition() else { return }
    fatalError("Property failed: \(message())", file: file, line: line)
}
