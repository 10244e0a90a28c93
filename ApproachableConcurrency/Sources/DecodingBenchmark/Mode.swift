/// Which build this is (this file differs between the two).
let mode = "default isolation MainActor"
