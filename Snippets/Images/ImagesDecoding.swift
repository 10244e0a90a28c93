// Decoding bytes that did not come from the network, turning photos upright,
// and adding a format of your own.

// snippet.hide
import BaselineHTTP
import BaselineImages
import Foundation

let savedData = Data()
let client = HTTPClient(baseURL: URL(string: "https://photos.example")!)

// snippet.show
// snippet.sniff
// What the bytes are, from their first few.
switch ImageFormat(sniffing: savedData) {
case .png?, .jpeg?:
    // The pipeline's decoders, for bytes from a file or a database.
    let image = try ImagePipeline.Configuration().decoders.decode(savedData, limits: ImageDecodingLimits())
    print(image.pixel(x: 0, y: 0))  // RGBA(r: …, g: …, b: …, a: 255)
case nil:
    print("not an image Baseline decodes")
}
// snippet.end

// snippet.orientation
// A phone photo stored sideways (EXIF 6) decodes upright by default. To keep
// the stored layout, and turn it yourself later:
let storedLayout = JPEGDecoder(appliesOrientation: false)
if storedLayout.canDecode(savedData) {
    let stored = try storedLayout.decode(savedData, limits: ImageDecodingLimits())
    let upright = stored.oriented(.right)  // a quarter turn: width and height swap
    print(upright.width == stored.height)  // true
}
// snippet.end

// snippet.limits
// A few hundred bytes can declare a 100,000 × 100,000 image. The limit is
// checked from the header, before any pixel memory is allocated.
var configuration = ImagePipeline.Configuration()
configuration.limits = ImageDecodingLimits(maximumPixelCount: 24_000_000)  // 96 MB of RGBA
configuration.limits.maximumScanCount = 50  // a progressive JPEG's passes over the image
configuration.maximumDataSize = 16 << 20  // encoded bytes
// snippet.end

// snippet.custom
/// A format of your own: recognise it cheaply, decode it fully, respect
/// the limits before allocating.
struct PortablePixmapDecoder: ImageDecoding {
    func canDecode(_ data: Data) -> Bool {
        data.starts(with: Array("P6".utf8))
    }

    func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        // Header: "P6 <width> <height> 255", one whitespace, then RGB bytes.
        let fields = data.prefix(64).split(whereSeparator: { $0 == 0x20 || $0 == 0x0A }).prefix(4)
        guard fields.count == 4,
            let width = Int(String(decoding: fields[fields.startIndex + 1], as: UTF8.self)),
            let height = Int(String(decoding: fields[fields.startIndex + 2], as: UTF8.self)),
            let maxLine = fields.last?.endIndex
        else { throw ImageError.corruptImage("Not a P6 header") }
        try limits.check(width: width, height: height)
        let rgb = data[(maxLine + 1)...]
        guard rgb.count >= width * height * 3 else { throw ImageError.corruptImage("Truncated pixels") }
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for pixel in stride(from: rgb.startIndex, to: rgb.startIndex + width * height * 3, by: 3) {
            pixels += [rgb[pixel], rgb[pixel + 1], rgb[pixel + 2], 255]
        }
        return try DecodedImage(width: width, height: height, pixels: pixels)
    }
}

configuration.decoders.append(PortablePixmapDecoder())
let pipeline = ImagePipeline(client: client, configuration: configuration)
// snippet.end
_ = pipeline
