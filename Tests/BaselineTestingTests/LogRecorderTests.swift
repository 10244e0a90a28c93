import BaselineTesting
import Logging
import Testing

@Suite("LogRecorder")
struct LogRecorderTests {
    @Test func recordsLevelMessageMetadataAndLabel() {
        let logs = LogRecorder()
        var logger = logs.logger(label: "unit", level: .info)
        logger[metadataKey: "request"] = "42"
        logger.debug("too quiet")
        logger.warning("careful", metadata: ["user": "astro"])
        #expect(logs.entries.count == 1)
        let entry = logs.entries[0]
        #expect(entry.level == .warning)
        #expect(entry.message == "careful")
        #expect(entry.metadata == ["request": "42", "user": "astro"])
        #expect(entry.label == "unit")
        #expect(logs.text == "careful request=42 user=astro")
    }
}
