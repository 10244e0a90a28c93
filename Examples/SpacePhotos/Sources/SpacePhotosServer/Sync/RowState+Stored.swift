import BaselineSync
import Foundation

/// A row's state as both stores keep it: JSON text in `sync_row.state`.
extension RowState {
    /// The state stored as `text`.
    init(storedJSON text: String) throws {
        self = try JSONDecoder().decode(RowState.self, from: Data(text.utf8))
    }

    /// The JSON text to store: keys sorted, so equal states are equal text.
    func storedJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
