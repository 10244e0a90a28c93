import BaselineSync
import Foundation
import Hummingbird

/// A `POST /sync/push` body read change by change: one change that does not
/// decode (a bad timestamp, a value that is not one of the five kinds) is
/// refused as `malformed_change` by its id, alongside the push's other
/// faults, rather than the whole body being an unreadable document.
struct SyncPushBody: Decodable {
    /// One element of `changes`: the change, or why it did not decode.
    struct Entry: Decodable {
        var change: SyncChange?
        /// The element's `id`, when it has a string one.
        var id: String?
        /// Why the element is not a change.
        var problem: String?

        private enum Key: String, CodingKey {
            case id
        }

        init(from decoder: any Decoder) throws {
            id = try? decoder.container(keyedBy: Key.self).decode(String.self, forKey: .id)
            do {
                change = try SyncChange(from: decoder)
            } catch let error as DecodingError {
                problem = Request.message(for: error)
            }
        }
    }

    var changes: [Entry]

    /// The changes, if every element decoded.
    var decoded: [SyncChange]? {
        let decoded = changes.compactMap(\.change)
        return decoded.count == changes.count ? decoded : nil
    }

    /// Every element at fault, in push order: those that did not decode
    /// (`malformed_change`, by their `id` if they have one, else `""`), and
    /// the changes `validator` refuses.
    func faults(_ validator: SyncPushValidator) -> [SyncRefusal.Change] {
        let latest = validator.latestAcceptedMilliseconds()
        return changes.enumerated().compactMap { index, entry in
            guard let change = entry.change else {
                return SyncRefusal.Change(
                    id: entry.id ?? "",
                    code: .malformed,
                    message: entry.problem ?? "changes[\(index)] is not a change."
                )
            }
            return validator.fault(of: change, latest: latest)
        }
    }
}
