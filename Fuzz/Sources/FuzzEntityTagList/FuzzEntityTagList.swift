import FuzzSupport

// Properties: the tags of a list that parses print as a list that parses to
// the same tags; a header matches a tag exactly when the list names it.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let text = input.restAsText()
    guard let tags = EntityTag.parseList(text) else { return 0 }
    let printed = tags.map { EntityTag($0).headerValue }.joined(separator: ", ")
    require(EntityTag.parseList(printed) == tags, "\(text) gives \(tags), printed \(printed) parses differently")
    for tag in tags.prefix(4) {
        require(EntityTag(tag).isMatched(byIfNoneMatch: text), "\(text) names \(tag) but does not match it")
    }
    return 0
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzEntityTagList_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
