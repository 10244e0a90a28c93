import Foundation

/// What a client sends on `GET /favourites/live`: `{"photo": "<id>", "favourite": true|false}`,
/// which sets the member's flag for that photo (setting it twice changes
/// nothing: it is not a toggle).
struct FavouriteRequest: Decodable, Sendable, Equatable {
    var photo: String
    var favourite: Bool

    /// Why a message was refused; its ``reason`` goes in the 1008 close frame.
    struct Refusal: Error, Equatable {
        /// A short sentence, well within a close frame's 123 bytes.
        var reason: String
    }

    /// The longest photo id, in bytes.
    static let maximumPhotoIDLength = 64

    /// The request in `text`, a JSON object with a valid photo id.
    static func parse(_ text: String) throws(Refusal) -> FavouriteRequest {
        let request: FavouriteRequest
        do {
            request = try JSONDecoder().decode(FavouriteRequest.self, from: Data(text.utf8))
        } catch {
            throw Refusal(reason: "Expected {\"photo\": id, \"favourite\": true|false}.")
        }
        guard isValidPhotoID(request.photo) else {
            throw Refusal(reason: "A photo id is 1 to 64 characters of A-Z a-z 0-9 . _ -")
        }
        return request
    }

    /// 1…64 bytes of `[A-Za-z0-9._-]`: ids that are safe to log and echo.
    static func isValidPhotoID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maximumPhotoIDLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}

/// What the server sends on `GET /favourites/live`: a photo's count (how
/// many members have it as a favourite) and whether the receiving
/// connection's member is one of them.
struct FavouriteUpdate: Codable, Sendable, Equatable {
    var photo: String
    var count: Int
    var favourite: Bool
}

/// One entry of a connection's outbound queue.
enum FavouriteOutbound: Sendable, Equatable {
    /// The counts as they stood when the connection joined, one message per
    /// photo; queued as one entry so that a large table does not fill the
    /// queue by itself.
    case snapshot([FavouriteUpdate])
    /// A count or flag that changed, or the confirmation of a set that changed nothing.
    case update(FavouriteUpdate)
    /// A set the table refused (`{"error": {"code", "message"}}`); the socket stays open.
    case error(code: String, message: String)

    /// The text messages this entry stands for, in order.
    func texts() -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func text(_ value: some Encodable) -> String {
            // Encoding these plain structures cannot fail; an empty object
            // would only be sent if it somehow did.
            (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        switch self {
        case .snapshot(let updates): return updates.map(text)
        case .update(let update): return [text(update)]
        case .error(let code, let message):
            return [text(APIError.Document(error: .init(code: code, message: message)))]
        }
    }
}
