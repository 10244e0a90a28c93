import ArgumentParser
import BaselineHTTP
import BaselineImages
import Foundation
import SpacePhotosTerminal
import TerminalUI

/// How commands draw images in the terminal.
struct ImageOptions: ParsableArguments {
    @Option(help: "The images' width in characters. Default: the terminal's width.")
    var width: Int?

    @Flag(help: "List the photos without drawing their images.")
    var noImages = false

    var columns: Int { max(1, width ?? TerminalSize.current().columns) }

    /// Prints `image`, scaled to ``columns``.
    func draw(_ image: DecodedImage) async {
        for line in await Self.render(image, columns: columns) {
            print(line)
        }
    }

    /// `image` as terminal lines. Scaling a large photo takes a while, so
    /// it runs off the caller's actor (the commands run on the main actor,
    /// as an app's views would). `@concurrent` keeps it there even with
    /// nonisolated async functions running on their caller's actor.
    @concurrent
    static func render(_ image: DecodedImage, columns: Int) async -> [String] {
        HalfBlockImage(image, columns: columns).lines
    }

    /// An image pipeline on `client`. With `persistentCache`, a disk cache
    /// keeps downloaded images between runs (256 MiB under the cache
    /// directory; without a usable directory, memory alone). An embedded
    /// server listens on a new port each run, so its URLs never repeat: it
    /// gets no disk cache, which would only fill up.
    static func pipeline(client: HTTPClient, persistentCache: Bool) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        if persistentCache {
            configuration.diskCache = try? DiskImageCache(
                directory: AppDirectories.cache.appendingPathComponent("images"),
                limit: 256 * 1_048_576
            )
        }
        return ImagePipeline(client: client, configuration: configuration)
    }
}
