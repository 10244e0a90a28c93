/// One picture of the space photo catalogue: what it shows, its size and
/// file format, and the random seed it is drawn from.
struct CatalogImage: Sendable, Equatable {
    /// The file formats the catalogue serves.
    enum Format: Sendable {
        case png
        case jpeg

        var mediaType: String {
            switch self {
            case .png: "image/png"
            case .jpeg: "image/jpeg"
            }
        }

        var fileExtension: String {
            switch self {
            case .png: "png"
            case .jpeg: "jpg"
            }
        }
    }

    /// `<theme>-<number>.<extension>`, as in `nebula-02.png`.
    let name: String
    let theme: SpaceArt.Theme
    let width: Int
    let height: Int
    let format: Format
    let seed: UInt64

    /// JPEG quality: high enough that gradients in the clouds do not band.
    static let jpegQuality = 85

    /// Draws and encodes the picture: the file's bytes.
    func render() throws -> [UInt8] {
        let bitmap = try SpaceArt.render(theme, width: width, height: height, seed: seed)
        switch format {
        case .png: return try ImageEncoder.png(bitmap)
        case .jpeg: return try ImageEncoder.jpeg(bitmap, quality: Self.jpegQuality, chroma: .half)
        }
    }
}

/// The catalogue `GET /images` lists and `GET /photos` picks from: 36
/// pictures, two thirds JPEG and one third PNG, from 320×240 up to six of
/// 2400×1600 (four JPEG, two PNG) and a 2000×1500 PNG. Fixed, so names,
/// sizes and pixels are the same on every run.
enum ImageCatalog {
    static let images: [CatalogImage] = {
        typealias Entry = (theme: SpaceArt.Theme, width: Int, height: Int, format: CatalogImage.Format)
        // Three large PNGs (galaxy-15, stars-17, cluster-20): compressed, each
        // takes 0.9–1.6 MB rather than the 9–11.5 MB of its pixels.
        let entries: [Entry] = [
            (.starField, 320, 240, .jpeg), (.nebula, 320, 240, .png), (.galaxy, 480, 320, .jpeg),
            (.cluster, 320, 240, .jpeg),
            (.starField, 640, 480, .png), (.nebula, 480, 320, .jpeg), (.galaxy, 320, 240, .png),
            (.cluster, 800, 600, .jpeg),
            (.starField, 1024, 768, .jpeg), (.nebula, 640, 480, .png), (.galaxy, 800, 600, .jpeg),
            (.cluster, 480, 320, .png),
            (.starField, 480, 320, .jpeg), (.nebula, 1280, 720, .jpeg), (.galaxy, 2400, 1600, .png),
            (.cluster, 1024, 768, .jpeg),
            (.starField, 2400, 1600, .png), (.nebula, 800, 600, .jpeg), (.galaxy, 1600, 1200, .jpeg),
            (.cluster, 2000, 1500, .png),
            (.starField, 1280, 720, .jpeg), (.nebula, 320, 240, .png), (.galaxy, 1024, 768, .jpeg),
            (.cluster, 1600, 1200, .jpeg),
            (.starField, 320, 240, .png), (.nebula, 1600, 1200, .jpeg), (.galaxy, 1280, 720, .jpeg),
            (.cluster, 400, 400, .png),
            (.starField, 1920, 1080, .jpeg), (.nebula, 1024, 768, .jpeg), (.galaxy, 480, 480, .png),
            (.cluster, 1920, 1080, .jpeg),
            (.starField, 2400, 1600, .jpeg), (.nebula, 2400, 1600, .jpeg), (.galaxy, 2400, 1600, .jpeg),
            (.cluster, 2400, 1600, .jpeg),
        ]
        return entries.enumerated().map { index, entry in
            let number = index + 1
            return CatalogImage(
                name: "\(entry.theme.rawValue)-\(number < 10 ? "0" : "")\(number).\(entry.format.fileExtension)",
                theme: entry.theme,
                width: entry.width,
                height: entry.height,
                format: entry.format,
                seed: SplitMix64.value(at: UInt64(index), seed: 0x5AC3_F070)
            )
        }
    }()

    private static let byName: [String: CatalogImage] = Dictionary(uniqueKeysWithValues: images.map { ($0.name, $0) })

    /// The catalogue image called `name`, if any.
    static func image(named name: String) -> CatalogImage? {
        byName[name]
    }
}
