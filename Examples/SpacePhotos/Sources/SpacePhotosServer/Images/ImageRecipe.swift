/// How to make one of the files `GET /images/{name}` serves: a catalogue
/// picture, or one of the ``BrokenImages``.
enum ImageRecipe: Sendable, Equatable {
    case catalog(CatalogImage)
    case truncatedPNG
    case garbage
    case oversizedPNG

    /// The recipe for the file called `name`, nil when there is none.
    init?(name: String) {
        switch name {
        case BrokenImages.truncatedName: self = .truncatedPNG
        case BrokenImages.garbageName: self = .garbage
        case BrokenImages.oversizedName: self = .oversizedPNG
        default:
            guard let image = ImageCatalog.image(named: name) else { return nil }
            self = .catalog(image)
        }
    }

    var name: String {
        switch self {
        case let .catalog(image): image.name
        case .truncatedPNG: BrokenImages.truncatedName
        case .garbage: BrokenImages.garbageName
        case .oversizedPNG: BrokenImages.oversizedName
        }
    }

    var mediaType: String {
        switch self {
        case let .catalog(image): image.format.mediaType
        case .truncatedPNG, .oversizedPNG: "image/png"
        case .garbage: "image/jpeg"
        }
    }

    /// Makes the file: slow for large pictures (drawing and encoding), so
    /// ``ImageStore`` does it once per name.
    func make() throws -> EncodedImage {
        let bytes: [UInt8]
        switch self {
        case let .catalog(image): bytes = try image.render()
        case .truncatedPNG: bytes = try BrokenImages.truncatedPNG()
        case .garbage: bytes = BrokenImages.garbage()
        case .oversizedPNG: bytes = try BrokenImages.oversizedPNG()
        }
        // The tag names the content; the prefix makes tags readable in logs.
        let stem = name.prefix { $0 != "." }
        return EncodedImage(bytes: bytes, contentType: mediaType, tagPrefix: "\(stem)-")
    }
}
