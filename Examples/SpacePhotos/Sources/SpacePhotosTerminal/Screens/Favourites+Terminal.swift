import SpacePhotosCore
import TerminalUI

extension Favourites.State {
    /// A photo's count as the photo screens show it: "★ 3 · yours",
    /// "☆ 0", "★ 3 …" while a change is on its way, "☆ – (not live)" with no connection.
    func label(for photo: String) -> String {
        guard isLive else { return "☆ – (not live)" }
        let mark = mine.contains(photo) ? "★" : "☆"
        let suffix = pending.contains(photo) ? " …" : mine.contains(photo) ? " · yours" : ""
        return "\(mark) \(count(of: photo))\(suffix)"
    }

    /// The key that changes a photo's favourite.
    func hint(for photo: String) -> KeyHint {
        KeyHint("f", mine.contains(photo) ? "unfavourite" : "favourite")
    }
}
