import Dispatch

/// The image files of one server (or of every server in the process that
/// shares ``shared``), made on first request and kept.
///
/// Concurrent first requests for a name share one render: the first starts
/// it as a task and records it, later ones await the same task. Renders run
/// off the actor, so a large picture does not hold up other names, and on
/// a dispatch queue of their own rather than Swift's cooperative pool or
/// NIO's blocking pool: a render is seconds of plain computation (more in a
/// debug build), and an app embedding the server would otherwise find its
/// own tasks (timers, decoding) waiting behind it, and logins (password
/// hashing, on NIO's pool) waiting behind a burst of first requests.
actor ImageStore {
    /// The store of servers that do not watch their renders: a recipe makes
    /// the same bytes every time, so servers in one process need make each
    /// file only once.
    static let shared = ImageStore()

    private static let renderQueue = DispatchQueue(
        label: "spacephotos.server.images",
        qos: .utility,
        attributes: .concurrent
    )

    private var renders: [String: Task<EncodedImage?, Never>] = [:]
    private let onRender: @Sendable (String) -> Void

    /// `onRender` is called with a file's name each time one is made.
    init(onRender: @escaping @Sendable (String) -> Void = { _ in }) {
        self.onRender = onRender
    }

    /// The file `recipe` makes; nil if it could not be made (which the
    /// catalogue's fixed sizes rule out).
    func image(_ recipe: ImageRecipe) async -> EncodedImage? {
        if let render = renders[recipe.name] { return await render.value }
        let onRender = self.onRender
        // Detached: rendering should neither run on this actor nor stop when
        // the first requester goes away, since others may be waiting for it.
        let render = Task.detached {
            onRender(recipe.name)
            return await withCheckedContinuation { continuation in
                Self.renderQueue.async { continuation.resume(returning: try? recipe.make()) }
            }
        }
        renders[recipe.name] = render
        return await render.value
    }
}
