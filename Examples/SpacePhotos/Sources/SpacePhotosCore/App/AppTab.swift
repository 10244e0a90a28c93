/// The main screen's tabs.
public enum AppTab: String, CaseIterable, Codable, Sendable, Hashable {
    case photos
    case saved
    case todos
    case counter
    case profile

    /// The tab's name, for its label.
    public var title: String {
        switch self {
        case .photos: "Photos"
        case .saved: "Saved"
        case .todos: "To-dos"
        case .counter: "Counter"
        case .profile: "Profile"
        }
    }

    /// The tab after this one, wrapping around.
    public var next: AppTab {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }

    /// The tab before this one, wrapping around.
    public var previous: AppTab {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + all.count - 1) % all.count]
    }
}
