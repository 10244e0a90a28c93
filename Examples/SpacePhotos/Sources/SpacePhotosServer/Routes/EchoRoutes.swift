import Hummingbird

/// `GET /echo/headers`: the request's header fields as a JSON object,
/// names lowercased, repeated fields joined with ", ", and `host` — so a
/// test can see what arrived, and where (whether `Authorization` survived a
/// redirect to another origin, say).
struct EchoRoutes: Sendable {
    struct Headers: ResponseEncodable {
        var fields: [String: String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(fields)
        }
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("echo/headers") { request, _ -> Headers in
            var fields: [String: String] = [:]
            // HTTP/1.1's Host arrives as the request's authority, not as a field.
            if let authority = request.head.authority { fields["host"] = authority }
            for field in request.headers {
                let name = field.name.canonicalName
                fields[name] = fields[name].map { "\($0), \(field.value)" } ?? field.value
            }
            return Headers(fields: fields)
        }
    }
}
