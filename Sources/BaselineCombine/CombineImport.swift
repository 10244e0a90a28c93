// One import for Combine everywhere: Apple's Combine where it exists,
// OpenCombine (the same API, open source) on Linux and other platforms.
// `import BaselineCombine` is all a file needs to use `Publisher`,
// `AnyPublisher`, `sink` and the bridges below.
#if canImport(Combine)
@_exported import Combine
#else
@_exported import OpenCombine
#endif
