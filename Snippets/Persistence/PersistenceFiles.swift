// A signed-in session kept between launches, and a small export written so
// that no reader ever sees half of it.

// snippet.hide
import BaselinePersistence
import Foundation

// snippet.show
// snippet.session
struct Session: Codable, Sendable {
    var userID: String
    var token: String
}

let applicationSupport = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
let dataDirectory = applicationSupport.appending(path: "Accounts")
let sessions = SecureValueStore<Session>(fileURL: dataDirectory.appending(path: "session.json"))

// Saving replaces the file in one step, readable by this user only (0600).
try await sessions.save(Session(userID: "astro", token: "eyJhbGciOi…"))

// `nil` means nobody is signed in; a damaged file is an error, not a crash.
do throws(SecureValueStoreError) {
    if let session = try await sessions.load() {
        print("Signed in as \(session.userID)")
    }
} catch .corrupt {
    // The file holds something else: treat it as signed out, and start over.
    try await sessions.clear()
} catch {
    print("The session could not be read: \(error)")
}

// Signing out.
try await sessions.clear()
// snippet.end

// snippet.atomic
// Any small file that must be whole or absent: the old content or the new,
// never a mix, even if the app is killed mid-write.
let export = Data("title,date\nCall the plumber,2026-11-23\n".utf8)
do throws(AtomicFile.Failure) {
    try AtomicFile.write(export, to: dataDirectory.appending(path: "notes.csv"), permissions: 0o644)
} catch {
    print("Could not save the export: \(error.operation) failed, \(error.reason)")
}
// snippet.end
