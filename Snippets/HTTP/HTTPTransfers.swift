// Uploads and downloads with progress.

// snippet.hide
import BaselineHTTP
import Foundation

let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
let photoURL = URL(fileURLWithPath: "/tmp/orion.jpg")
let archiveURL = URL(fileURLWithPath: "/tmp/archive.bin")

/// Shows a fraction on a progress bar.
@MainActor final class ProgressBar {
    var fraction = 0.0
}
let bar = ProgressBar()

// snippet.show
// snippet.download
// Written beside the destination, renamed into place when complete: never whole in memory.
let saved = try await client.download(Request<Void>.get("/downloads/64MiB.bin"), to: archiveURL) { progress in
    for await update in progress {
        await MainActor.run { bar.fraction = update.fractionCompleted ?? 0 }
    }
}
print("Saved \(saved.metrics.bytesReceived) bytes to \(saved.value.path)")
// snippet.end

// snippet.upload
struct UploadReceipt: Decodable, Sendable {
    var id: String
    var bytes: Int
}

// A file body is read as it is sent.
let receipt = try await client.upload(
    Request<UploadReceipt>.post("/uploads", body: .file(photoURL, contentType: "image/jpeg"))
) { progress in
    for await update in progress {
        await MainActor.run { bar.fraction = update.fractionCompleted ?? 0 }
    }
}
print("Uploaded as \(receipt.value.id)")
// snippet.end

// snippet.multipart
let form = MultipartForm()
    .field("title", "Orion Nebula")
    .field("date", "2024-02-11")
    .file("photo", at: photoURL, filename: "orion.jpg", contentType: "image/jpeg")
try await client.send(Request<Void>.post("/photos", body: .multipart(form)))
// snippet.end
