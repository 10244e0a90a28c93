import BaselineImages
import Foundation

extension SavedPhotos {
    /// Saved photos whose images come from `pipeline`: from its disk cache
    /// when the catalog already showed them, else downloaded once.
    public convenience init(repository: SavedPhotoRepository, pipeline: ImagePipeline) {
        self.init(repository: repository) { url in
            let data = try await pipeline.data(for: url)
            // The pipeline hands out only bytes it recognised as an image.
            let mediaType = ImageFormat(sniffing: data)?.mediaType ?? "application/octet-stream"
            return (data, mediaType)
        }
    }
}
