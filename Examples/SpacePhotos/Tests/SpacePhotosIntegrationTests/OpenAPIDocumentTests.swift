import Foundation
import SpacePhotosServer
import Testing

/// `Examples/SpacePhotos/openapi.json` describes the example server's API:
/// these tests keep it true to the routes the server registers.
@Suite("The API document matches the server", .timeLimit(.minutes(2)))
struct OpenAPIDocumentTests {
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The document, read from the package's folder.
    static func document() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("openapi.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return try #require(object as? [String: Any])
    }

    @Test func theDocumentListsExactlyTheRoutesTheServerRegisters() async throws {
        let document = try Self.document()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: Set<RegisteredRoute> = []
        for (path, item) in paths {
            for method in Self.methods where item[method] != nil {
                documented.insert(RegisteredRoute(method: method.uppercased(), path: path))
            }
        }
        let server = ExampleServer(configuration: .init(passwordHasher: PasswordHasher(cost: 4)))
        let registered = Set(try await server.registeredRoutes())
        #expect(!registered.isEmpty)
        let undocumented = registered.subtracting(documented).map(\.description).sorted()
        let unserved = documented.subtracting(registered).map(\.description).sorted()
        #expect(undocumented.isEmpty, "Routes missing from openapi.json: \(undocumented)")
        #expect(unserved.isEmpty, "openapi.json lists routes the server does not have: \(unserved)")
    }

    @Test func theDocumentIsOpenAPI31AndEveryReferenceResolves() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in references {
            // Local references only: #/components/<kind>/<name>.
            let parts = reference.split(separator: "/").map(String.init)
            var node: Any? = document
            for part in parts.dropFirst() { node = (node as? [String: Any])?[part] }
            #expect(parts.first == "#" && node != nil, "Unresolved reference \(reference)")
        }
    }

    @Test func everyOperationDocumentsItsResponses() throws {
        let paths = try #require(Self.document()["paths"] as? [String: [String: Any]])
        for (path, item) in paths {
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                let responses = operation["responses"] as? [String: Any] ?? [:]
                #expect(!responses.isEmpty, "\(method.uppercased()) \(path) documents no responses")
            }
        }
    }
}
