// Baseline's benchmarks. Run in release:
//
//   swift run -c release --package-path Benchmarks baseline-benchmarks [persistence] [live-queries] [shared] [store] [images] [terminal] [http] [http-quick] [http-stream] [http-allocations] [http-overhead] [http-cache] [body-parsing] [websocket] [openapi] [sync] [sync-server]

let selected = Set(CommandLine.arguments.dropFirst())
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

#if DEBUG
print("warning: a debug build; run with -c release for meaningful figures")
#endif

if wants("persistence") {
    try await PersistenceBenchmarks.run()
}

if wants("live-queries") {
    try await LiveQueryBenchmarks.run()
}

if wants("shared") {
    try await SharedValueBenchmarks.run()
}

if selected.contains("live-alloc-probe") {
    // A child of the live-query allocation rows: commits followed by one variant, then exit.
    try await LiveQueryBenchmarks.allocationProbe(Array(CommandLine.arguments.dropFirst(2)))
}

if selected.contains("live-read-probe") {
    // A child of the live-query allocation rows: reads of a value, then exit.
    try await LiveQueryBenchmarks.readProbe(Array(CommandLine.arguments.dropFirst(2)))
}

if wants("images") {
    try await ImageBenchmarks.run()
}

if selected.contains("http-overhead") {
    try await ClientOverheadBenchmarks.run()
}

if wants("http-cache") {
    try await HTTPCacheBenchmarks.run()
}

if selected.contains("http-cache-probe") {
    // A child of the disk-hit allocation row: hits, then exit.
    try await HTTPCacheBenchmarks.probe()
}

if wants("terminal") {
    try await TerminalBenchmarks.run()
}

if wants("body-parsing") {
    try await BodyParsingBenchmarks.run()
}

if wants("store") {
    try await StoreBenchmarks.run()
}

if wants("websocket") {
    try await WebSocketBenchmarks.run()
}

if wants("openapi") {
    try await OpenAPIBenchmarks.run()
}

if wants("sync") {
    try await SyncBenchmarks.run()
}

if wants("sync-server") {
    try await SyncServerBenchmarks.run()
}

if selected.contains("sync-serve") {
    // The example server as a child of the sync-server rows, with their members and storage.
    try await SyncServerBenchmarks.ServerProcess.serve(Array(CommandLine.arguments.dropFirst(2)))
}

if selected.contains("openapi-alloc-probe") {
    // A child of the OpenAPI allocation rows: one row's requests, then exit.
    try await OpenAPIBenchmarks.probe()
}

if selected.contains("ws-alloc-probe") {
    // A child of the WebSocket allocation rows: one row's messages, then exit.
    try await WebSocketBenchmarks.probe()
}

if selected.contains("http-serve") {
    // The example server as a child of the HTTP benchmarks (BenchmarkServerProcess).
    try await BenchmarkServerProcess.serve()
}

if selected.contains("http-stream-probe") {
    // A child of the streaming rows: one 1 GiB download, then exit.
    try await HTTPBenchmarks.streamProbe()
}

if selected.contains("http-alloc-probe") {
    // A child of the allocation table (HTTPAllocationBenchmarks): one row, then exit.
    try await HTTPAllocationBenchmarks.probe()
}

if wants("http") || selected.contains("http-quick") || selected.contains("http-stream")
    || selected.contains("http-allocations")
{
    try await HTTPBenchmarks.run(arguments: selected)
}

if selected.contains("store-profile") {
    // A tight loop for a profiler: no measurement harness around it.
    await StoreBenchmarks.profileSends()
}
