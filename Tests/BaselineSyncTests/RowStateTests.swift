import Foundation
import Testing

@testable import BaselineSync

@Suite("Merging rows: per field, the later write wins")
struct RowStateTests {
    static func stamp(_ milliseconds: UInt64, node: UInt64 = 1) -> HybridTimestamp {
        HybridTimestamp(milliseconds: milliseconds, counter: 0, node: node)
    }

    @Test func editsOfDifferentFieldsOnTwoDevicesAreBothKept() {
        let base = RowState.write(["text": .text("milk"), "done": .integer(0)], at: Self.stamp(1))
        let onA = base.merging(.write(["text": .text("oat milk")], at: Self.stamp(5, node: 1)))
        let onB = base.merging(.write(["done": .integer(1)], at: Self.stamp(6, node: 2)))

        let merged = onA.merging(onB)

        #expect(merged == onB.merging(onA))
        #expect(merged.fields["text"]?.value == .text("oat milk"))
        #expect(merged.fields["done"]?.value == .integer(1))
        #expect(merged.exists)
    }

    @Test func twoEditsOfOneFieldKeepTheLater() {
        let earlier = RowState.write(["text": .text("from A")], at: Self.stamp(5, node: 1))
        let later = RowState.write(["text": .text("from B")], at: Self.stamp(5, node: 2))
        #expect(earlier.merging(later).fields["text"]?.value == .text("from B"))
        #expect(later.merging(earlier).fields["text"]?.value == .text("from B"))
    }

    @Test func aDeleteAfterAnEditDeletes() {
        let edit = RowState.write(["text": .text("edited on A")], at: Self.stamp(5, node: 1))
        let delete = RowState.delete(at: Self.stamp(6, node: 2))
        #expect(!edit.merging(delete).exists)
        #expect(!delete.merging(edit).exists)
    }

    @Test func anEditAfterADeleteBringsTheRowBackWithItsOtherFields() {
        let created = RowState.write(["text": .text("milk"), "done": .integer(0)], at: Self.stamp(1))
        let deleted = created.merging(.delete(at: Self.stamp(5, node: 2)))
        let edited = created.merging(.write(["done": .integer(1)], at: Self.stamp(6, node: 1)))

        let merged = deleted.merging(edited)

        #expect(merged.exists)
        #expect(merged.fields["text"]?.value == .text("milk"))
        #expect(merged.fields["done"]?.value == .integer(1))
    }

    @Test func deleteThenInsertAgainWithTheSameIDIsAlive() {
        let first = RowState.write(["text": .text("bread")], at: Self.stamp(1))
        let again = first.merging(.delete(at: Self.stamp(2))).merging(
            .write(["text": .text("bread, again")], at: Self.stamp(3))
        )
        #expect(again.exists)
        #expect(again.fields["text"]?.value == .text("bread, again"))
    }

    @Test func onEqualTimestampsTheChoiceDoesNotDependOnOrder() {
        let same = Self.stamp(9)
        let a = RowState(alive: Stamped(true, at: same), fields: ["x": Stamped(.integer(1), at: same)])
        let b = RowState(alive: Stamped(false, at: same), fields: ["x": Stamped(.text("1"), at: same)])
        #expect(a.merging(b) == b.merging(a))
        #expect(!a.merging(b).exists)
    }

    /// Random writes and deletes from three devices, merged in random orders
    /// and groupings, with repeats: every order gives the same row.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func mergingIsCommutativeAssociativeAndIdempotent(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let values: [SyncValue] = [
            .null, .integer(1), .integer(2), .real(1), .real(.nan), .text("a"), .blob(Data([1])),
        ]
        let changes: [RowState] = (0..<40).map { _ in
            let stamp = HybridTimestamp(
                milliseconds: UInt64.random(in: 0..<8, using: &random),
                counter: UInt32.random(in: 0..<2, using: &random),
                node: UInt64.random(in: 1...3, using: &random)
            )
            if Int.random(in: 0..<5, using: &random) == 0 { return .delete(at: stamp) }
            var fields: [String: SyncValue] = [:]
            for name in ["text", "date", "done"] where Bool.random(using: &random) {
                fields[name] = values.randomElement(using: &random)
            }
            return .write(fields, at: stamp)
        }
        let expected = changes.reduce(RowState()) { $0.merging($1) }
        for _ in 0..<20 {
            var shuffled = (changes + changes.prefix(10)).shuffled(using: &random)
            // Grouped: merge pairs first, then the results.
            var grouped: [RowState] = []
            while !shuffled.isEmpty {
                let a = shuffled.removeLast()
                let b = shuffled.popLast() ?? RowState()
                grouped.append(a.merging(b))
            }
            let merged = grouped.shuffled(using: &random).reduce(RowState()) { $0.merging($1) }
            #expect(Self.same(merged, expected))
        }
    }

    /// Equal, with NaN equal to itself (the bit patterns decide).
    static func same(_ a: RowState, _ b: RowState) -> Bool {
        guard a.alive == b.alive, a.fields.keys.sorted() == b.fields.keys.sorted() else { return false }
        return a.fields.allSatisfy { name, field in
            guard let other = b.fields[name], field.timestamp == other.timestamp else { return false }
            if case let .real(x) = field.value, case let .real(y) = other.value { return x.bitPattern == y.bitPattern }
            return field.value == other.value
        }
    }

    @Test func valuesTravelAsTheirStorageClass() throws {
        let values: [SyncValue] = [.null, .integer(1), .real(1), .text("1"), .blob(Data([1, 2]))]
        let json = try JSONEncoder().encode(values)
        #expect(try JSONDecoder().decode([SyncValue].self, from: json) == values)
    }
}
