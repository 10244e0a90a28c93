import Dispatch

/// Whether the code runs on the main actor's executor, the main queue: where
/// the benchmark and the tests see decoding run. (Not `Thread.isMainThread`:
/// on Linux a test runner may drain that queue on another thread.)
public var onMainQueue: Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// Set on the main queue when first read, so that only the main queue has it.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
