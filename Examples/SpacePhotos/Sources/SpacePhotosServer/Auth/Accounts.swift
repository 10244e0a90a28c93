import Foundation

/// A member of the example service, as the server knows it.
public struct Account: Sendable {
    /// The login id.
    public var id: String
    /// The name the app shows.
    public var nickname: String
    /// The birthday as `yyyy-MM-dd`.
    public var birthday: String
    /// The bcrypt hash of the password; the password itself is never kept.
    public var passwordHash: String
}

/// A demo member: what the server seeds at start, password in the clear
/// (it is hashed before it is stored).
public struct DemoUser: Sendable {
    /// The login id.
    public var id: String
    /// The password, in the clear: these are demo accounts.
    public var password: String
    /// The name the app shows.
    public var nickname: String
    /// The birthday as `yyyy-MM-dd`.
    public var birthday: String

    /// A member to seed.
    public init(id: String, password: String, nickname: String, birthday: String) {
        self.id = id
        self.password = password
        self.nickname = nickname
        self.birthday = birthday
    }

    /// The members every example server starts with (documented in the README).
    public static let all: [DemoUser] = [
        DemoUser(id: "astro", password: "stardust-42", nickname: "Astro", birthday: "1990-04-12"),
        DemoUser(id: "luna", password: "moonwalk-1969", nickname: "Luna", birthday: "1969-07-20"),
    ]

    /// The member the demo logs in as.
    public static var demo: DemoUser { all[0] }
}
