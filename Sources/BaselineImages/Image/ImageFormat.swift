/// An encoded image format Baseline can decode.
public enum ImageFormat: Sendable, Hashable {
    /// Portable Network Graphics.
    case png
    /// JPEG (JFIF or EXIF).
    case jpeg

    /// The format of the bytes, recognised by their first bytes (the "magic
    /// number"), or `nil` when they are of no known format. Only the start of
    /// `data` is read.
    ///
    /// ```swift
    /// ImageFormat(sniffing: try Data(contentsOf: file))   // .png
    /// ```
    public init?(sniffing data: some Collection<UInt8>) {
        if data.starts(with: Self.pngSignature) {
            self = .png
        } else if data.starts(with: Self.jpegSignature) {
            self = .jpeg
        } else {
            return nil
        }
    }

    /// The format's media type: `"image/png"` or `"image/jpeg"`.
    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        }
    }

    /// The eight bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Start of image, then the first marker's 0xFF.
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
}
