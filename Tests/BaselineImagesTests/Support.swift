import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

/// The image files in Fixtures/ (made once with libpng and libjpeg).
///
/// The PNGs are 4×2: top row red, green, blue, white; bottom row black,
/// gray 128, yellow, cyan (`rgba.png` and `palette.png` add the alphas in
/// ``alphas``; `gray.png` holds 15, 47, …, 239). The JPEGs are 32×16, left
/// half one colour, right half another. `rgb16-untagged.png` is 2×1, 16-bit,
/// with no gAMA or sRGB chunk. `progressive-512.jpg` is a 512×512
/// progressive JPEG (3 kB): left half red, right half blue, green rising
/// from top to bottom.
///
/// 16-bit interlaced PNGs and their non-interlaced twins: `basi0g16.png`,
/// `basn0g16.png`, `basi2c16.png` and `basn2c16.png` are from Willem van
/// Schaik's PngSuite ("permission to use, copy, modify and distribute these
/// images for any purpose and without fee is hereby granted"); the
/// `adam7-*.png` and `plain-*.png` pairs are written by
/// scripts/make-png16-fixtures.py. `lossless.jpg`, `extended-12bit.jpg` and
/// `many-scans.jpg` are written by scripts/make-jpeg-fixtures.py.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    static let colors: [RGBA] = [
        RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 255, b: 0), RGBA(r: 0, g: 0, b: 255), RGBA(r: 255, g: 255, b: 255),
        RGBA(r: 0, g: 0, b: 0), RGBA(r: 128, g: 128, b: 128), RGBA(r: 255, g: 255, b: 0), RGBA(r: 0, g: 255, b: 255),
    ]
    static let alphas: [UInt8] = [255, 128, 0, 255, 64, 255, 200, 10]
}

/// Whether two channels are within `tolerance` (JPEG is lossy).
func close(_ pixel: RGBA, _ expected: RGBA, tolerance: Int = 8) -> Bool {
    abs(Int(pixel.r) - Int(expected.r)) <= tolerance && abs(Int(pixel.g) - Int(expected.g)) <= tolerance
        && abs(Int(pixel.b) - Int(expected.b)) <= tolerance && pixel.a == expected.a
}

/// A decoder that counts its decodes and notes the priority each ran at.
struct CountingDecoder: ImageDecoding {
    let base: any ImageDecoding
    let decodes = LockedValue(0)
    let priorities = LockedValue<[TaskPriority]>([])

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decode(_ data: Data, limits: ImageDecodingLimits) throws -> DecodedImage {
        decodes.withLock { $0 += 1 }
        priorities.withLock { $0.append(Task.currentPriority) }
        return try base.decode(data, limits: limits)
    }
}

/// A pipeline over a ``StubTransport``, for one test.
struct PipelineFixture {
    let transport = StubTransport()
    let decoder = CountingDecoder(base: PNGDecoder())

    static let baseURL = URL(string: "https://images.test")!

    static func url(_ path: String) -> URL {
        baseURL.appendingPathComponent(path)
    }

    func makePipeline(
        memoryCacheLimit: Int = 64 * 1024 * 1024,
        diskCache: DiskImageCache? = nil,
        maximumDataSize: Int = 1024 * 1024
    ) -> ImagePipeline {
        let client = HTTPClient(baseURL: Self.baseURL, transport: transport)
        let configuration = ImagePipeline.Configuration(
            memoryCacheLimit: memoryCacheLimit,
            diskCache: diskCache,
            decoders: [decoder, JPEGDecoder()],
            maximumDataSize: maximumDataSize
        )
        return ImagePipeline(client: client, configuration: configuration)
    }

    static func png(_ name: String = "rgb.png") throws -> StubResponse {
        StubResponse(status: .ok, headerFields: [.contentType: "image/png"], body: try Fixture.data(name))
    }
}
